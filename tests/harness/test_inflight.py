"""Episodes in flight on one thread: greenlet lanes over one Playwright driver and one
Chromium, the apps serving a lane per episode. They interleave, stay isolated, end in the
same state as a serial run, and a renderer that dies takes one episode's tabs only."""
from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from admindesk.harness.env import faults
from admindesk.harness.env.browser import Browser, acquire_playwright, release_playwright
from admindesk.harness.env.cooperative import pause, run_lanes, wait_for
from admindesk.harness.env.environment import PAGE_CRASHED, Env
from admindesk.harness.env.services import Services
from admindesk.harness.running.inflight import InflightWorker
from admindesk.harness.running.pool import Job
from admindesk.harness.running.worker import EpisodeWorker, WorkerConfig
from admindesk.schema.task_model import load_tasks


@pytest.fixture
def driver():
    browser = Browser()
    driver = acquire_playwright()
    yield browser, driver
    release_playwright()
    browser.close()


def test_lanes_waiting_on_threads_and_on_the_browser_overlap(driver):
    browser, playwright = driver
    threads = ThreadPoolExecutor(max_workers=3)
    events: list[str] = []

    def lane(number: int) -> tuple[int, str]:
        context = browser.chromium.new_context()
        try:
            page = context.new_page()
            page.set_content(f"<p>lane {number}</p>")
            events.append("start")
            page.wait_for_timeout(300)  # a browser-side wait
            answer = wait_for(threads.submit(lambda: (time.sleep(0.5), number * 10)[1]))  # a "model call"
            pause(0.3)
            events.append("end")
            return answer, page.inner_text("p")
        finally:
            context.close()

    started = time.perf_counter()
    outcomes = run_lanes(playwright, [lambda number=number: lane(number) for number in range(3)])
    elapsed = time.perf_counter() - started
    assert [outcome.result() for outcome in outcomes] == [(0, "lane 0"), (10, "lane 1"), (20, "lane 2")]
    # Every lane started before any finished its 1.1 s of waiting, and the three took about
    # one lane's time, not three.
    assert events == ["start"] * 3 + ["end"] * 3 and elapsed < 2.5
    threads.shutdown()


def test_a_lane_that_raises_leaves_the_others_running(driver):
    _browser, playwright = driver

    def failing() -> None:
        pause(0.05)
        raise LookupError("lane broke")

    def finishing() -> str:
        pause(0.2)
        return "done"

    broken, fine = run_lanes(playwright, [failing, finishing])
    with pytest.raises(LookupError, match="lane broke"):
        broken.result()
    assert fine.result() == "done"


def test_waits_outside_lanes_are_plain_waits():
    done: Future[int] = Future()
    threading.Timer(0.05, done.set_result, (7,)).start()
    assert wait_for(done) == 7


@pytest.mark.slow
def test_episodes_in_flight_end_in_the_state_of_a_serial_run():
    """Three reference episodes in flight at once on one worker (the same task on two lanes
    among them) give the final snapshots a one-at-a-time worker gives, byte for byte: no
    episode's rows reach another's lane."""
    tasks = {task.id: task for task in load_tasks()}
    chosen = ["appeal-easy-01", "dme-easy-02", "appeal-easy-01"]
    config = WorkerConfig(agent_name="reference", keep_screenshots=False, concurrency=3)
    worker = InflightWorker(config)
    try:
        replies = [worker.submit(Job(tasks[task_id], trial)) for trial, task_id in enumerate(chosen)]
        in_flight = [reply.result(timeout=600)["summary"] for reply in replies]
    finally:
        worker.close()
    serial_worker = EpisodeWorker(WorkerConfig(agent_name="reference", keep_screenshots=False))
    try:
        serial = [serial_worker.run(tasks[task_id], 0, 0)["summary"] for task_id in chosen[:2]]
    finally:
        serial_worker.close()
    assert all(summary["result"] == "unjudged" and summary["error"] is None for summary in in_flight), in_flight
    assert in_flight[0]["final_snapshot_hashes"] == serial[0]["final_snapshot_hashes"]
    assert in_flight[1]["final_snapshot_hashes"] == serial[1]["final_snapshot_hashes"]
    assert in_flight[2]["final_snapshot_hashes"] == serial[0]["final_snapshot_hashes"]
    assert in_flight[0]["final_snapshot_hashes"] != in_flight[1]["final_snapshot_hashes"]


@pytest.mark.slow
def test_killing_one_episodes_renderer_leaves_the_others_running():
    with Services(lanes=2) as services:
        browser = Browser()
        try:
            first = Env("screenshot", services=services.lane(0), browser=browser)
            second = Env("screenshot", services=services.lane(1), browser=browser)
            task = {"id": "adhoc", "goal": "look", "start": {"app": "ehr_web", "path": "/", "login": True}}
            first.reset(task)
            before = set(browser.renderer_pids())
            second.reset(task)
            second_renderers = set(browser.renderer_pids()) - before
            assert second_renderers, "each context has a renderer of its own"
            # The lanes are different origins: the first episode's pages are not the second's.
            assert first.app_url("ehr_web") != second.app_url("ehr_web")
            for pid in before:
                os.kill(pid, signal.SIGKILL)
            obs, *_ = first.step({"type": "scroll", "x": 640, "y": 400, "dx": 0, "dy": 200})
            assert obs.last_action_error == PAGE_CRASHED
            for _ in range(3):
                obs, *_ = second.step({"type": "scroll", "x": 640, "y": 400, "dx": 0, "dy": 200})
                assert obs.last_action_error is None and obs.url.startswith(second.app_url("ehr_web"))
            assert set(browser.renderer_pids()) >= second_renderers
            first.reset(task)  # the crashed episode's Env starts its next episode as usual
            obs, *_ = first.step({"type": "scroll", "x": 640, "y": 400, "dx": 0, "dy": 200})
            assert obs.last_action_error is None
            first.close()
            second.close()
        finally:
            browser.close()


@pytest.mark.slow
def test_an_app_restarted_by_another_lane_is_an_error_of_the_episode_it_was_under():
    task = {"id": "adhoc", "goal": "look", "start": {"app": "fax", "path": "/", "login": True}}
    with Services(lanes=2) as services:
        browser = Browser()
        try:
            first = Env("screenshot", services=services.lane(0), browser=browser)
            second = Env("screenshot", services=services.lane(1), browser=browser)
            first.reset(task)
            faults.kill_app(services, "fax")
            services.processes["fax"].process.wait(timeout=10)
            second.reset(task)  # finds the fax app dead and restarts it, for both lanes
            assert first.apps_restarted_since_reset() == ["fax"] and second.apps_restarted_since_reset() == []
            record = first.record()
            assert "fax" not in record.final_snapshots and "restarted during the episode" in record.snapshot_errors["fax"]
            assert second.record().snapshot_errors == {}
            first.close()
            second.close()
        finally:
            browser.close()
