"""Replay verification against real apps and Chromium: an honest run replays to its record;
a changed action, a grafted final state and a doctored initial snapshot are each found,
with the app and the step. (The CLI's --replay --ledger on a model agent's run:
tests/runner/test_served_agent_evaluation.py.)"""
from __future__ import annotations

import json
import shutil

import pytest

from admindesk.harness.leaderboard.replay import EpisodeReplayer, ReplayJob, replay_settings
from admindesk.harness.running import local as runner_local
from admindesk.schema.task_model import TASKS_ROOT, load_tasks
from admindesk.verifiers.record_files import load_record, record_file, write_record

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TASK_ID = "appeal-easy-01"


@pytest.fixture(scope="module")
def tasks_dir(tmp_path_factory):
    """A one-task suite, so the run covers its whole split."""
    folder = tmp_path_factory.mktemp("tasks")
    source = next(TASKS_ROOT.glob(f"*/{TASK_ID}.yaml"))
    (folder / source.parent.name).mkdir()
    shutil.copy(source, folder / source.parent.name / source.name)
    return folder


@pytest.fixture(scope="module")
def honest_run(tasks_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    runner_local.run("reference", load_tasks(tasks_dir), out, keep_screenshots=False, tasks_dir=tasks_dir)
    return out


@pytest.fixture(scope="module")
def replayer(honest_run, tasks_dir):
    run = json.loads((honest_run / "run.json").read_text())
    replayer = EpisodeReplayer(replay_settings(run, tasks_dir))
    yield replayer
    replayer.close()


def doctored(honest_run, tmp_path, change):
    """A copy of the honest episode's record with `change(record)` applied; its replay job."""
    record = load_record(record_file(honest_run / f"{TASK_ID}-t0"))
    change(record)
    folder = tmp_path / "episode"
    folder.mkdir()
    return ReplayJob(episode="doctored", task_id=TASK_ID, record_path=write_record(folder, record))


def test_an_honest_episode_replays_to_its_record(honest_run, replayer):
    path = record_file(honest_run / f"{TASK_ID}-t0")
    outcome = replayer.replay(ReplayJob(episode="honest", task_id=TASK_ID, record_path=path))
    assert outcome.findings == [] and outcome.steps > 20


def test_a_changed_action_is_found_at_its_step(honest_run, replayer, tmp_path):
    record = load_record(record_file(honest_run / f"{TASK_ID}-t0"))
    origin = record.trajectory[0]["apps"]["ehr_web"]
    # The first click that left the page it was on: replaced by a visit to the home page.
    step = next(entry["step"] for before, entry in zip(record.trajectory, record.trajectory[1:])
                if entry["action"]["type"] == "click" and entry["url"] != before["url"]
                and not entry["url"].rstrip("/").endswith(origin.rsplit(":", 1)[-1]))

    def change(doctored_record):
        doctored_record.trajectory[step]["action"] = {"type": "goto", "url": origin + "/patients"}
    outcome = replayer.replay(doctored(honest_run, tmp_path, change))
    ehr = [finding for finding in outcome.findings if finding.app == "ehr_web"]
    assert ehr and ehr[0].step == step, [f.describe() for f in outcome.findings]


def test_a_noop_trajectory_with_the_reference_final_state_is_refused(honest_run, replayer, tmp_path):
    def change(record):
        record.trajectory = [record.trajectory[0], {"step": 1, "action": {"type": "done", "answer": record.answer},
                                                    "url": record.trajectory[0]["url"], "error": None}]
    outcome = replayer.replay(doctored(honest_run, tmp_path, change))
    assert {finding.app for finding in outcome.findings} >= {"ehr_web"}


def test_a_doctored_initial_snapshot_is_found_at_step_zero(honest_run, replayer, tmp_path):
    def change(record):
        record.initial_snapshots["payer_portal_a"]["audit_events"].append({"id": 10**6, "path": "/hidden"})
    outcome = replayer.replay(doctored(honest_run, tmp_path, change))
    assert [(f.app, f.step) for f in outcome.findings] == [("payer_portal_a", 0)]
