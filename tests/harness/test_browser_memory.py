"""Browser memory: app tabs share a renderer; the driver runs with small V8 semi-spaces."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from admindesk.harness.env import faults
from admindesk.harness.env.browser import DRIVER_NODE_OPTIONS, Browser
from tests.harness.conftest import fixture_services

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _driver_environment() -> dict[str, str]:
    drivers = [pid for pid in faults.descendants(os.getpid()) if "run-driver" in faults.cmdline(pid)]
    assert len(drivers) == 1, drivers
    raw = Path(f"/proc/{drivers[0]}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_tabs_of_every_app_share_one_renderer(tmp_path):
    with fixture_services() as services:
        browser = Browser()
        try:
            context = browser.new_episode(services.ports.values(), tmp_path, (1024, 768)).context
            first = context.new_page()
            first.goto(services.url("ehr_web"))
            time.sleep(0.5)  # Chromium retires the spare renderer it just used asynchronously
            after_one_tab = len(browser.renderer_pids())
            for app in ("fax", "ehr_web", "fax"):
                context.new_page().goto(services.url(app))
            time.sleep(0.5)
            # One renderer per tab would add three; a spare renderer may come and go.
            assert len(browser.renderer_pids()) <= after_one_tab + 1
        finally:
            browser.close()


def test_chromium_keeps_no_renderer_for_its_own_address_bar_popup():
    browser = Browser()
    try:
        browser.chromium.new_context().new_page().set_content("<p>one tab</p>")
        time.sleep(0.5)
        commands = [faults.cmdline(pid) for pid in browser.renderer_pids()]
        assert len(commands) == 1 and "--top-chrome-webui" not in commands[0], commands
        # The disabled features add to Playwright's list (PaintHolding is one of its).
        assert "PaintHolding" in commands[0]
    finally:
        browser.close()


def test_the_driver_runs_with_small_semi_spaces_and_the_callers_node_options(monkeypatch):
    monkeypatch.setenv("NODE_OPTIONS", "--no-deprecation")
    browser = Browser()
    try:
        assert _driver_environment()["NODE_OPTIONS"] == f"--no-deprecation {DRIVER_NODE_OPTIONS}"
    finally:
        browser.close()
    assert os.environ["NODE_OPTIONS"] == "--no-deprecation"
