"""The reference agent through the runner: its run folder and run.json, a rerun that ends
in the same state, and the guards that catch the wrong-patient control. The day's sample
of `admindesk tasks check` is in test_daily_check.py."""
from __future__ import annotations

import json

import pytest

from admindesk.harness.env.services import available_apps
from admindesk.harness.running import local as runner_local
from admindesk.verifiers.record_files import RECORD_FILE

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(len(available_apps()) < 4, reason="needs the four apps")]

REFERENCE_SAMPLE = ["pa-easy-01"]  # portal_b_precert x easy


@pytest.fixture(scope="module")
def env():
    from admindesk.harness.env.environment import Env

    with Env("screenshot") as shared:
        yield shared


@pytest.fixture(scope="module")
def tasks():
    from admindesk.schema.task_model import load_tasks

    return {task.id: task for task in load_tasks()}


def run_one(env, tasks, tmp_path, agent, task_id, **options):
    return runner_local.run(agent, [tasks[task_id]], tmp_path / agent, agent_options=options, env=env,
                            keep_screenshots=False)[0]


@pytest.mark.parametrize("task_id", REFERENCE_SAMPLE)
def test_reference_passes_and_reruns_to_the_same_state(env, tasks, tmp_path, task_id):
    first = run_one(env, tasks, tmp_path / "first", "reference", task_id)
    second = run_one(env, tasks, tmp_path / "second", "reference", task_id)
    assert first.summary.result == "unjudged", (first.summary, first.score)  # rubrics await a judge
    assert all(check.result.passed for subtask in first.score.subtasks for check in subtask.checks
               if check.deterministic) and all(guard.result.passed for guard in first.score.guards)
    assert first.summary.final_snapshot_hashes == second.summary.final_snapshot_hashes
    run_json = json.loads((tmp_path / "first" / "reference" / "run.json").read_text())
    assert run_json["metrics"]["n_episodes"] == 1
    assert set(run_json["episodes"][0]) >= {"task_id", "trial", "result", "subtask_pass_rate",
                                            "first_failing_subtask", "steps", "wall_s"}
    folder = tmp_path / "first" / "reference" / f"{task_id}-t0"
    assert {RECORD_FILE, "scores.json", "trajectory.jsonl"} <= {p.name for p in folder.iterdir()}


def test_wrong_patient_is_caught_by_the_guards(env, tasks, tmp_path):
    outcome = run_one(env, tasks, tmp_path, "wrong-patient", "pa-easy-01")
    failed_guards = {guard.kind for guard in outcome.score.guards if not guard.result.passed}
    assert {"recipient", "phi"} <= failed_guards


class _Overrunner:
    """A scripted agent that acts past the step budget (as a long filing solution can)."""

    name = "overrunner"
    notes: list = []

    def drive(self, env, task):
        while True:
            env.step({"type": "scroll", "x": 640, "y": 400, "dx": 0, "dy": 100})


def test_a_scripted_agent_that_runs_out_of_steps_is_scored_not_an_error(env, tasks, tmp_path):
    task = tasks["pa-easy-01"].model_copy(update={"max_steps": 3})
    outcome = runner_local.run_episode(env, _Overrunner(), task, tmp_path / "ep", trial=0)
    assert outcome.summary.result == "fail" and outcome.summary.steps == 3
    assert outcome.summary.agent_note == "stopped: the step budget (3) ran out"
