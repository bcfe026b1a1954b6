"""The parallel runner against real apps and Chromium: 2 workers equal the serial runner,
a killed app is an infra error retried on a fresh worker, a rerun resumes, Ray equals local.

The noop agent keeps episodes short; its results are deterministic (the world is), so
per-task results and final snapshot hashes must match whatever ran them.
"""
from __future__ import annotations

import json
import shutil

import pytest

from admindesk.harness.running import local as runner_local
from admindesk.harness.running.pool import run_parallel
from admindesk.harness.running.worker import WorkerConfig
from admindesk.schema.task_model import load_tasks
from admindesk.verifiers.record_files import RECORD_FILE

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TASK_IDS = ("pa-easy-01", "pa-easy-02")


@pytest.fixture(scope="module")
def tasks():
    by_id = {task.id: task for task in load_tasks()}
    return [by_id[task_id] for task_id in TASK_IDS]


def per_task(episodes) -> dict[str, tuple[str, dict[str, str]]]:
    return {e["task_id"]: (e["result"], e["final_snapshot_hashes"]) for e in episodes}


@pytest.fixture(scope="module")
def serial(tasks, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    outcomes = runner_local.run("noop", tasks, out, keep_screenshots=False)
    return per_task(o.summary.model_dump() for o in outcomes)


@pytest.fixture(scope="module")
def two_workers(tasks, tmp_path_factory):
    out = tmp_path_factory.mktemp("two_workers")
    run_json = run_parallel(WorkerConfig(agent_name="noop", keep_screenshots=False), tasks, out, workers=2)
    return out, run_json


def test_episodes_in_flight_in_one_worker_equal_the_serial_run(tasks, serial, tmp_path):
    config = WorkerConfig(agent_name="noop", keep_screenshots=False, concurrency=2)
    run_json = run_parallel(config, tasks, tmp_path, workers=1, trials=2)
    by_episode = {(e["task_id"], e["trial"]): (e["result"], e["final_snapshot_hashes"]) for e in run_json["episodes"]}
    assert by_episode == {(task.id, trial): serial[task.id] for task in tasks for trial in range(2)}
    assert len({e["worker_pid"] for e in run_json["episodes"]}) == 1 and run_json["concurrency"] == 2
    assert run_json["infra_retries"] == []


def test_the_api_channel_refuses_episodes_in_flight(tasks, tmp_path):
    config = WorkerConfig(agent_name="noop", channel="api", concurrency=2)
    with pytest.raises(ValueError, match="api channel runs one episode per worker"):
        run_parallel(config, tasks, tmp_path)


def test_two_workers_equal_the_serial_run(tasks, serial, two_workers):
    out, run_json = two_workers
    assert per_task(run_json["episodes"]) == serial
    assert all(len(hashes) == 4 for _result, hashes in serial.values())
    # Two workers each had their own Env: two worker processes served the run.
    assert len({e["worker_pid"] for e in run_json["episodes"]}) == 2
    stored = json.loads((out / "run.json").read_text())
    assert stored["metrics"]["n_episodes"] == 2 and set(stored["metrics"]["pass_hat_k"]) == {"1"}
    assert stored["versions"]["task_revisions"] == {task.id: task.revision for task in tasks}
    assert stored["versions"]["chromium"] and stored["versions"]["viewport"] == {"width": 1280, "height": 800}
    for task_id in TASK_IDS:
        assert {RECORD_FILE, "scores.json", "summary.json"} <= {p.name for p in (out / f"{task_id}-t0").iterdir()}


def test_rerun_skips_finished_episodes_and_reruns_unfinished(tasks, two_workers, tmp_path):
    out = tmp_path / "resumed"
    shutil.copytree(two_workers[0], out)
    (out / "pa-easy-02-t0" / "scores.json").unlink()  # interrupted before it was scored
    (out / ".staging-leftover").mkdir()                # what a Ctrl-C mid-install leaves
    kept = (out / "pa-easy-01-t0" / RECORD_FILE).stat().st_mtime_ns
    ran = []
    run_json = run_parallel(WorkerConfig(agent_name="noop", keep_screenshots=False), tasks, out,
                            workers=1, on_episode=ran.append)
    assert [e["task_id"] for e in ran] == ["pa-easy-02"]
    assert run_json["resumed_episodes"] == ["pa-easy-01-t0"]
    assert (out / "pa-easy-01-t0" / RECORD_FILE).stat().st_mtime_ns == kept
    assert (out / "pa-easy-02-t0" / "scores.json").is_file()
    assert per_task(run_json["episodes"]) == per_task(two_workers[1]["episodes"])
    assert not list(out.glob(".staging-*"))


def test_killed_app_is_an_infra_error_retried_on_a_fresh_worker(tasks, serial, tmp_path):
    config = WorkerConfig(agent_name="noop", keep_screenshots=False,
                          kill_app_at_start={"pa-easy-01-t0": "ehr_web"})
    run_json = run_parallel(config, tasks[:1], tmp_path, workers=1)
    retried = [r for r in run_json["infra_retries"] if r["reason"].startswith("app process died")]
    assert retried == [{"episode": "pa-easy-01-t0", "attempt": 0, "reason": "app process died: ehr_web"}]
    (episode,) = run_json["episodes"]
    assert episode["attempt"] >= 1 and episode["result"] != "infra_error"
    assert per_task([episode]) == {"pa-easy-01": serial["pa-easy-01"]}
    assert run_json["metrics"]["results"]["infra_error"] == 0 and run_json["metrics"]["n_episodes"] == 1


def test_ray_actors_equal_the_serial_run(tasks, serial, tmp_path):
    ray = pytest.importorskip("ray", reason="the ray backend needs `pip install admindesk[ray]`")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        run_json = run_parallel(WorkerConfig(agent_name="noop", keep_screenshots=False), tasks, tmp_path,
                                workers=2, backend="ray")
    finally:
        ray.shutdown()
    assert per_task(run_json["episodes"]) == serial
    assert run_json["backend"] == "ray"
    assert all((tmp_path / f"{task_id}-t0" / RECORD_FILE).is_file() for task_id in TASK_IDS)


def test_reference_trials_on_two_workers_agree(tasks, tmp_path):
    # The reference agent files the precertification: a real episode, judged checks aside.
    run_json = run_parallel(WorkerConfig(agent_name="reference", keep_screenshots=False), tasks[:1],
                            tmp_path, trials=2, workers=2)
    first, second = run_json["episodes"]
    assert first["result"] == second["result"] == "unjudged"
    assert first["final_snapshot_hashes"] == second["final_snapshot_hashes"]
    assert first["worker_pid"] != second["worker_pid"]
    assert first["subtask_pass_rate"] == second["subtask_pass_rate"] > 0 and first["steps"] == second["steps"] > 0
    assert set(run_json["metrics"]["pass_hat_k"]) == {"1", "2"}
