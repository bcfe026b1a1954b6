"""Shared pytest configuration: pytest-playwright runs the system (Debian) Chromium."""
from __future__ import annotations

import pytest

from admindesk.harness.browser import CHROMIUM_ARGS, CHROMIUM_PATH


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's chromium instead of a Playwright-downloaded browser (none can be fetched)."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM_PATH,
            "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS]}
