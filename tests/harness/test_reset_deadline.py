"""Reset cannot wedge: a navigation in flight, a browser call that never answers, a tab
that will not go blank; every time reset still returns a clean, signed-in episode."""
from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager

import pytest

from admindesk.harness.env.faults import descendants
from admindesk.harness.env.services import available_apps
from tests.harness.conftest import adhoc

# Longer than any deadline the reset path sets itself; a reset still running then is hung.
HUNG_AFTER = 25.0


def chromium_pid(env) -> int:
    """The Env's Chromium browser process, as Chromium itself reports it."""
    session = env.browser.chromium.new_browser_cdp_session()
    try:
        processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
    finally:
        session.detach()
    return next(process["id"] for process in processes if process["type"] == "browser")


@contextmanager
def hang_detector(env):
    """Yields a list that gets "hung" if the block outlives HUNG_AFTER; then kills the Env's
    Chromium, which ends the blocked Playwright call, so the test fails instead of hanging."""
    pid, verdict = chromium_pid(env), []

    def expire() -> None:
        verdict.append("hung")
        for victim in [pid, *descendants(pid)]:
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                continue

    timer = threading.Timer(HUNG_AFTER, expire)
    timer.start()
    try:
        yield verdict
    finally:
        timer.cancel()


def assert_clean_start(obs, start_url: str) -> None:
    """One tab at the start page (signed in: a signed-out visit is sent to /login), framed."""
    assert obs.screenshot.startswith(b"\x89PNG") and obs.step == 0
    assert [tab.url for tab in obs.tabs] == [start_url] and obs.url == start_url
    assert obs.last_action_error is None


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif("ehr_web" not in available_apps(), reason="needs the EHR app")
def test_reset_right_after_a_form_submit_never_hangs():
    from admindesk.harness.env.environment import Env

    start = {"id": "mid-submit", "goal": "g", "max_steps": 50,
             "start": {"app": "ehr_web", "path": "/patients?q=a", "login": True}}
    with Env("screenshot", apps=["ehr_web"], settle_cap=0) as env:
        env.reset(start)
        for _ in range(12):
            # Outside `step`: its screenshot mid-commit may hang too, which is not reset's.
            env.page_locator("form[role=search] button[type=submit]").click(no_wait_after=True)
            started = time.monotonic()
            with hang_detector(env) as verdict:
                try:
                    obs, _ = env.reset(start)
                except Exception as exc:  # noqa: BLE001 - reported with the verdict
                    obs = exc
            assert not verdict, f"reset hung (Chromium killed after {HUNG_AFTER} s)"
            assert not isinstance(obs, Exception), repr(obs)
            assert time.monotonic() - started < HUNG_AFTER
            assert_clean_start(obs, env.app_url("ehr_web", "/patients?q=a"))
            events = env.record().final_snapshots["ehr_web"]["audit_events"]
            assert all("search=1" not in event["path"] for event in events), events


@pytest.mark.browser
def test_a_browser_call_that_never_answers_costs_a_relaunch_not_the_reset(fixture_env, monkeypatch):
    from admindesk.harness.env.environment import BROWSER_CALL_DEADLINE, STOP_CAP

    fixture_env.reset(adhoc("/"))
    episode, old_pid = fixture_env._episode, fixture_env.browser.pid
    expiries = fixture_env.browser.watchdog.expiries
    # A page call with no timeout of its own, whose promise never settles: the stop hangs.
    monkeypatch.setattr(episode, "stop_all_pages",
                        lambda *args: episode.page.evaluate("new Promise(() => {})"))
    started = time.monotonic()
    with hang_detector(fixture_env) as verdict:
        obs, _ = fixture_env.reset(adhoc("/page2"))
    assert not verdict
    assert time.monotonic() - started < BROWSER_CALL_DEADLINE + STOP_CAP + 2 * 2 + 5
    assert fixture_env.browser.pid != old_pid and fixture_env.browser.watchdog.expiries == expiries + 1
    assert_clean_start(obs, fixture_env.app_url("ehr_web", "/page2"))
    assert obs.tabs[0].title == "Page two - ehr_web"


@pytest.mark.browser
def test_a_tab_that_will_not_go_blank_gets_its_context_replaced(fixture_env, monkeypatch):
    from playwright.sync_api import Error as PlaywrightError

    fixture_env.reset(adhoc("/"))
    episode, old_context, old_pid = fixture_env._episode, fixture_env._episode.context, fixture_env.browser.pid
    page = episode.page

    def interrupted(url, **options):
        raise PlaywrightError(f'Page.goto: Navigation to "{url}" is interrupted by another navigation')

    monkeypatch.setattr(page, "goto", interrupted)
    fixture_env.step({"type": "new_tab", "url": fixture_env.app_url("ehr_web", "/page2")})
    obs, _ = fixture_env.reset(adhoc("/"))
    assert fixture_env._episode.context is not old_context and fixture_env.browser.pid == old_pid
    assert_clean_start(obs, fixture_env.app_url("ehr_web", "/"))
    assert obs.tabs[0].title == "Playground - ehr_web"


@pytest.mark.browser
def test_a_frame_that_never_comes_ends_the_step_in_time_and_the_next_reset_is_clean(fixture_env, monkeypatch):
    from admindesk.harness.env.environment import BROWSER_CALL_DEADLINE
    from admindesk.harness.env.watchdog import BrowserWedged

    fixture_env.reset(adhoc("/"))
    episode, old_pid = fixture_env._episode, fixture_env.browser.pid
    # The screenshot after a submit that never returns: a page call whose promise never settles.
    monkeypatch.setattr(episode, "screenshot_png", lambda: episode.page.evaluate("new Promise(() => {})"))
    started = time.monotonic()
    with hang_detector(fixture_env) as verdict, pytest.raises(BrowserWedged, match="taking the frame"):
        fixture_env.step({"type": "wait", "seconds": 0})
    assert not verdict
    assert time.monotonic() - started < BROWSER_CALL_DEADLINE + fixture_env.settle_cap + 5
    monkeypatch.undo()
    obs, _ = fixture_env.reset(adhoc("/page2"))
    assert fixture_env.browser.pid != old_pid
    assert_clean_start(obs, fixture_env.app_url("ehr_web", "/page2"))
