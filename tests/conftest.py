"""Shared pytest configuration: pytest-playwright runs the system (Debian) Chromium."""
from __future__ import annotations

import pytest

from admindesk.harness.env.browser import CHROMIUM_ARGS, CHROMIUM_PATH


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's chromium instead of a Playwright-downloaded browser (none can be fetched)."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM_PATH,
            "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS]}


@pytest.fixture(scope="session")
def playwright():
    """pytest-playwright's driver, shared with the harness' Envs in the same thread.

    The sync API allows one driver per thread; without sharing, a worker that ran a
    browser test could not start an Env afterwards (and the other way round).
    """
    from admindesk.harness.env.browser import acquire_playwright, release_playwright

    yield acquire_playwright()
    release_playwright()
