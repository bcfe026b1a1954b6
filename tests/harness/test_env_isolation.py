"""Files across apps, the sandbox (bench API, file:, other ports), episode isolation, replay."""
from __future__ import annotations

import hashlib
import http.server
import threading
import time

import pytest

from tests.harness.conftest import adhoc
from tests.harness.fixture_app import DOWNLOAD_BYTES

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DOWNLOAD_SHA = hashlib.sha256(DOWNLOAD_BYTES).hexdigest()


def click(env, selector: str):
    x, y = env.element_center(selector)
    obs, *_ = env.step({"type": "click", "x": x, "y": y})
    assert obs.last_action_error is None, obs.last_action_error
    return obs


def download_report(env):
    obs = click(env, "#download")
    assert obs.downloads == ["report.pdf"]
    assert (env.downloads_dir / "report.pdf").read_bytes() == DOWNLOAD_BYTES


def test_download_then_upload_through_the_drawn_dialog(fixture_env):
    fixture_env.reset(adhoc("/"))
    download_report(fixture_env)
    obs = click(fixture_env, "#upload")
    obs = click(fixture_env, "#file")
    assert obs.file_dialog_open
    chrome = fixture_env._executor.chrome_state()
    row = chrome.dialog_row_boxes()[0]
    assert chrome.dialog_files == [("report.pdf", len(DOWNLOAD_BYTES))]
    obs, *_ = fixture_env.step({"type": "click", "x": row[0] + 10, "y": row[1] + 10})
    assert obs.last_action_error is None and not obs.file_dialog_open
    click(fixture_env, "button[type=submit]")
    record = fixture_env.record()
    assert record.final_snapshots["ehr_web"]["uploads"] == [{"name": "report.pdf",
                                                            "sha256": DOWNLOAD_SHA}]
    assert [(f.name, f.sha256) for f in record.downloads] == [("report.pdf", DOWNLOAD_SHA)]
    assert [(f.name, f.sha256) for f in record.uploads] == [("report.pdf", DOWNLOAD_SHA)]


def test_choose_file_action_cancel_and_errors(fixture_env):
    fixture_env.reset(adhoc("/"))
    download_report(fixture_env)
    download_report_again = click(fixture_env, "#download")
    assert download_report_again.downloads == ["report.pdf", "report (1).pdf"]
    click(fixture_env, "#upload")
    obs, *_ = fixture_env.step({"type": "choose_file", "name": "report.pdf"})
    assert "no file dialog" in obs.last_action_error
    click(fixture_env, "#file")
    obs, *_ = fixture_env.step({"type": "type", "text": "x"})
    assert "file dialog is open" in obs.last_action_error
    obs, *_ = fixture_env.step({"type": "key", "keys": "Escape"})
    assert not obs.file_dialog_open
    click(fixture_env, "#file")
    obs, *_ = fixture_env.step({"type": "choose_file", "name": "../../etc/passwd"})
    assert "no file" in obs.last_action_error and obs.file_dialog_open
    obs, *_ = fixture_env.step({"type": "choose_file", "name": "report (1).pdf"})
    assert obs.last_action_error is None and not obs.file_dialog_open
    click(fixture_env, "button[type=submit]")
    uploads = fixture_env.record().final_snapshots["ehr_web"]["uploads"]
    assert uploads == [{"name": "report (1).pdf", "sha256": DOWNLOAD_SHA}]


def test_page_cannot_reach_the_bench_api_files_or_other_ports(fixture_env):
    fixture_env.reset(adhoc("/"))
    page = fixture_env._episode.page
    token = fixture_env.services.token
    # Even a page that somehow knew the token gets no answer: the pages' port never serves
    # the bench API, and a connection to the bench port never leaves the browser.
    fetch = """([url, token]) => fetch(url, {headers: {'X-Bench-Token': token}})
        .then(r => 'status ' + r.status, e => 'failed: ' + e.message)"""
    assert page.evaluate(fetch, ["/_bench/snapshot", token]) == "status 404"
    bench_port = fixture_env.services.bench_ports["ehr_web"]
    assert page.evaluate(fetch, [f"http://127.0.0.1:{bench_port}/_bench/snapshot", token]).startswith("failed")
    assert fixture_env.record().final_snapshots["ehr_web"]["bench_port_refused"] == 0
    obs, *_ = fixture_env.step({"type": "goto", "url": fixture_env.app_url("ehr_web", "/_bench/snapshot")})
    assert "bench API" in obs.last_action_error
    obs, *_ = fixture_env.step({"type": "goto", "url": "file:///etc/passwd"})
    assert "not allowed" in obs.last_action_error
    opened = page.evaluate("() => { const w = window.open('file:///etc/passwd'); "
                           "return w ? 'opened' : 'refused'; }")
    fixture_env.step({"type": "wait", "seconds": 0})
    assert all(not url.startswith("file:") for _, url in fixture_env._episode.tabs())
    assert opened in ("opened", "refused")  # either way no tab ever shows the file
    # Another loopback server (say, another episode's app) is out of reach.
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        other = f"http://127.0.0.1:{server.server_port}/"
        assert page.evaluate("url => fetch(url, {mode: 'no-cors'}).then(() => 'reached', "
                             "() => 'blocked')", other) == "blocked"
        obs, *_ = fixture_env.step({"type": "goto", "url": other})
        assert "not one of the benchmark's apps" in obs.last_action_error
    finally:
        server.shutdown()


def test_two_episodes_share_no_cookie_download_or_row(fixture_env):
    fixture_env.reset(adhoc("/"))
    download_report(fixture_env)
    click(fixture_env, "#click")
    first_downloads = fixture_env.downloads_dir
    assert fixture_env.record().final_snapshots["ehr_web"]["events"]
    first_cookies = {(c["name"], c["value"]) for c in fixture_env._episode.context.cookies()}
    assert ("client_mark", "1") in first_cookies
    obs, _ = fixture_env.reset(adhoc("/", login=False))
    assert not first_cookies & {(c["name"], c["value"]) for c in fixture_env._episode.context.cookies()}
    assert "/login" in obs.url and obs.downloads == []
    assert len(fixture_env._episode.pages) == 1
    assert fixture_env._episode.page.evaluate("history.length") == 2  # blank tab + login page
    assert list(fixture_env.downloads_dir.iterdir()) == []
    assert fixture_env.downloads_dir != first_downloads
    record = fixture_env.record()
    assert record.final_snapshots["ehr_web"]["events"] == []
    assert record.downloads == [] and record.uploads == []
    fixture_env.reset(adhoc("/"))  # the same page as the first episode: storage is empty again
    assert fixture_env._episode.page.evaluate("window.foundEarlierVisit") == [None, None, False, ""]


def test_a_grown_renderer_is_replaced_at_the_next_reset(fixture_env, monkeypatch):
    """A renderer kept across episodes would grow all run long; below the budget it is kept
    (a fresh one costs ~0.5 s of reset), above it the next episode gets a new one.

    The Env's Chromium lists its own renderers (the test process may hold other browsers);
    one of them, for Chromium's own UI, has no tab and stays."""
    from admindesk.harness.env import episode_browser

    renderers = fixture_env.browser.renderer_pids
    fixture_env.reset(adhoc("/"))
    first = set(renderers())
    assert first
    fixture_env.reset(adhoc("/"))
    assert first <= set(renderers())  # small: kept
    monkeypatch.setattr(episode_browser, "RENDERER_RECYCLE_MB", 0)
    fixture_env.reset(adhoc("/"))
    deadline = time.monotonic() + 5
    while first <= set(renderers()) and time.monotonic() < deadline:
        time.sleep(0.1)  # the old renderer exits shortly after its last tab closes
    assert not first <= set(renderers())
    assert set(renderers()) - first  # the episode's tab is in a new renderer
    assert fixture_env._episode.page.evaluate("history.length") == 2  # new tab + login page


def test_same_actions_from_the_same_reset_give_the_same_snapshot(fixture_env):
    def episode():
        fixture_env.reset(adhoc("/"))
        click(fixture_env, "#click")
        click(fixture_env, "#q")
        fixture_env.step({"type": "type", "text": "abc"})
        fixture_env.step({"type": "key", "keys": "Enter"})
        download_report(fixture_env)
        return fixture_env.record()

    first, second = episode(), episode()
    assert first.final_snapshots == second.final_snapshots
    assert first.initial_snapshots == second.initial_snapshots
    assert [s["action"] for s in first.trajectory] == [s["action"] for s in second.trajectory]


def test_trajectory_is_recorded_to_disk(tmp_path):
    from admindesk.harness.env.environment import Env
    from tests.harness.conftest import fixture_services

    with Env("screenshot", services=fixture_services(["ehr_web"]), record_dir=tmp_path) as env:
        env.reset(adhoc("/"))
        env.step({"type": "click", "x": 5, "y": 500})
        env.step({"type": "goto", "url": "javascript:alert(1)"})
    folder = tmp_path / "adhoc-001"
    lines = (folder / "trajectory.jsonl").read_text().splitlines()
    assert len(lines) == 3
    import json
    entries = [json.loads(line) for line in lines]
    assert entries[0]["action"] is None and entries[1]["action"]["type"] == "click"
    assert "not allowed" in entries[2]["error"] and "total_ms" in entries[2]["timing"]
    assert all((folder / e["screenshot"]).read_bytes().startswith(b"\x89PNG") for e in entries)


def test_the_folder_trajectory_keeps_the_goal_and_the_text_the_agent_read_but_the_record_does_not(tmp_path):
    import json

    from admindesk.harness.env.environment import Env
    from tests.harness.conftest import fixture_services

    with Env("both", services=fixture_services(["ehr_web"]), record_dir=tmp_path) as env:
        observation, _ = env.reset(adhoc("/"))
        env.step({"type": "click", "x": 5, "y": 500})
        recorded = env.record().trajectory
    entries = [json.loads(line) for line in (tmp_path / "adhoc-001/trajectory.jsonl").read_text().splitlines()]
    assert entries[0]["goal"] == adhoc("/")["goal"] and recorded[0]["goal"] == entries[0]["goal"]
    assert entries[0]["axtree"] == observation.axtree and all(entry["axtree"] for entry in entries)
    assert not any("axtree" in entry for entry in recorded)  # the record stays small
