"""Faults the harness must ride out: hung and killed apps, crashed pages, a reset landing
while the last episode's page is busy; and the task id the apps are told at reset."""
from __future__ import annotations

import json
import time
import urllib.request

import pytest

from admindesk.harness.env.faults import kill_app, kill_renderers, stop_app
from admindesk.harness.env.services import RESET_TIMEOUT, SNAPSHOT_TIMEOUT
from admindesk.schema.task_model import Task
from tests.harness.conftest import adhoc, fixture_services


def test_a_hung_app_is_restarted_and_reset_within_seconds():
    with fixture_services() as services:
        services.reset_all()
        hung = services.processes["fax"].process.pid
        stop_app(services, "fax")
        started = time.monotonic()
        replies = services.reset_all()
        elapsed = time.monotonic() - started
        assert all(reply["ok"] for reply in replies.values())
        assert elapsed < RESET_TIMEOUT + 10, elapsed  # detection + restart, never 30 s
        assert services.processes["fax"].process.pid != hung
        assert services.processes["fax"].starts == 2 and services.processes["ehr_web"].starts == 1


def test_a_task_is_prepared_once_per_app_process_then_reset_on_the_short_timeout():
    with fixture_services(["ehr_web"]) as services:
        for _ in range(3):
            services.reset_all(task="pa-easy-01")
        services.reset_all(task="pa-easy-02")
        app = services.processes["ehr_web"]
        with urllib.request.urlopen(f"{app.base_url}/_test/prepared", timeout=5) as response:
            assert json.loads(response.read()) == ["pa-easy-01", "pa-easy-02"]
        services.restart(["ehr_web"])  # a new process has built nothing yet
        services.reset_all(task="pa-easy-01")
        with urllib.request.urlopen(f"{app.base_url}/_test/prepared", timeout=5) as response:
            assert json.loads(response.read()) == ["pa-easy-01"]


def test_reset_sends_the_task_id_for_task_file_tasks_only():
    with fixture_services(["ehr_web"]) as services:
        services.reset_all(task="pa-easy-01")
        assert services.snapshot_all()["ehr_web"]["_meta"]["task"] == "pa-easy-01"
        services.reset_all()
        assert services.snapshot_all()["ehr_web"]["_meta"]["task"] is None



@pytest.mark.browser
@pytest.mark.slow
def test_env_tells_the_apps_the_task_and_caches_initial_state_per_task(fixture_env):
    # Tasks that give the apps something to build (here: an interruption) are named to them.
    first = Task.model_validate({"id": "pa-easy-01", "goal": "g", "interruptions": {"fax": ["line_busy"]}})
    second = Task.model_validate({"id": "pa-easy-02", "goal": "g", "interruptions": {"fax": ["line_busy"]}})
    bare = Task.model_validate({"id": "hand-made", "goal": "g"})
    for task, expected in ((first, "pa-easy-01"), (second, "pa-easy-02"), (adhoc("/"), None),
                           (bare, None), (first, "pa-easy-01")):
        fixture_env.reset(task)
        assert fixture_env.initial_snapshots["ehr_web"]["_meta"]["task"] == expected
        assert fixture_env.record().final_snapshots["ehr_web"]["_meta"]["task"] == expected


@pytest.mark.browser
@pytest.mark.slow
def test_reset_leaves_no_request_of_the_last_page_in_flight(fixture_env):
    for _ in range(3):
        fixture_env.reset(adhoc("/"))
        fixture_env.step({"type": "goto", "url": fixture_env.app_url("ehr_web", "/poller")})
        fixture_env.step({"type": "wait", "seconds": 0.3})
        assert fixture_env.record().final_snapshots["ehr_web"]["events"]  # it is busy
        fixture_env.reset(adhoc("/page2"))
        assert fixture_env.record().final_snapshots["ehr_web"]["events"] == []
        fixture_env.step({"type": "wait", "seconds": 0.3})
        assert fixture_env.record().final_snapshots["ehr_web"]["events"] == []


@pytest.mark.browser
@pytest.mark.slow
def test_record_with_an_app_down_is_partial_and_the_next_reset_recovers(fixture_env):
    fixture_env.reset(adhoc("/"))
    services = fixture_env.services
    stop_app(services, "fax")
    started = time.monotonic()
    record = fixture_env.record()
    assert time.monotonic() - started < SNAPSHOT_TIMEOUT + 5
    assert set(record.final_snapshots) == {"ehr_web"} and set(record.snapshot_errors) == {"fax"}
    assert "snapshot" in record.snapshot_errors["fax"]
    assert record.task_id == "adhoc" and record.trajectory
    obs, _ = fixture_env.reset(adhoc("/"))
    assert obs.tabs[0].title == "Playground - ehr_web"
    kill_app(services, "ehr_web")
    record = fixture_env.record()  # a dead app answers at once: refused
    assert set(record.snapshot_errors) == {"ehr_web"} and set(record.final_snapshots) == {"fax"}
    fixture_env.reset(adhoc("/"))
    assert not fixture_env.record().snapshot_errors


@pytest.mark.browser
@pytest.mark.slow
def test_an_app_lost_before_its_initial_snapshot_is_left_out_of_the_record(fixture_env, monkeypatch):
    # The initial snapshots are fetched once the start page is up; an app dead by then has none.
    services = fixture_env.services
    fetch = services.snapshot_futures

    def fax_dies_first(*, initial: bool = False):
        if initial:
            kill_app(services, "fax")
            services.processes["fax"].process.wait(timeout=10)
        return fetch(initial=initial)

    monkeypatch.setattr(services, "snapshot_futures", fax_dies_first)
    monkeypatch.setattr(fixture_env, "_initial_snapshot_cache", {})
    fixture_env.reset(adhoc("/"))
    record = fixture_env.record()
    assert set(record.initial_snapshots) == {"ehr_web"} and set(record.final_snapshots) == {"ehr_web"}
    assert set(record.snapshot_errors) == {"fax"}
    assert fixture_env._initial_snapshot_cache == {}  # a partial set is not kept for the next episode
    monkeypatch.undo()
    fixture_env.reset(adhoc("/"))
    record = fixture_env.record()
    assert not record.snapshot_errors and set(record.initial_snapshots) == {"ehr_web", "fax"}


@pytest.mark.browser
@pytest.mark.slow
def test_a_crashed_page_is_replaced_mid_episode_and_at_reset(fixture_env):
    from admindesk.harness.env.environment import PAGE_CRASHED

    for when in ("mid-episode", "before reset"):
        fixture_env.reset(adhoc("/"))
        fixture_env.step({"type": "new_tab", "url": fixture_env.app_url("ehr_web", "/page2")})
        assert kill_renderers() >= 1
        if when == "mid-episode":
            obs, *_ = fixture_env.step({"type": "wait", "seconds": 0.2})
            assert obs.last_action_error == PAGE_CRASHED
            assert obs.screenshot.startswith(b"\x89PNG") and obs.tabs
            obs, *_ = fixture_env.step({"type": "goto", "url": fixture_env.app_url("ehr_web", "/")})
            assert obs.last_action_error is None and "Playground" in obs.tabs[obs.active_tab].title
    obs, _ = fixture_env.reset(adhoc("/"))
    assert obs.tabs[0].title == "Playground - ehr_web" and len(obs.tabs) == 1


def test_a_screenshot_chromium_cannot_take_yet_is_tried_again(fixture_env, monkeypatch):
    from playwright.sync_api import Error as PlaywrightError

    fixture_env.reset(adhoc("/"))
    episode = fixture_env._episode
    real_session = episode._cdp_session(episode.page)
    refusals = []

    class NotYet:
        def send(self, method, params=None):
            if method == "Page.captureScreenshot" and len(refusals) < 2:
                refusals.append(method)
                raise PlaywrightError("Protocol error (Page.captureScreenshot): Unable to capture screenshot")
            return real_session.send(method, params)

    monkeypatch.setattr(episode, "_cdp_session", lambda page: NotYet())
    obs, *_ = fixture_env.step({"type": "wait", "seconds": 0.1})
    assert len(refusals) == 2 and obs.last_action_error is None
    assert obs.image().size == (1280, 800)
