"""`tasks check --out DIR` again: verdicts without problems of unchanged tasks are reused."""
from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace

import pytest

from admindesk.harness.task_tools import check as task_check
from admindesk.harness.task_tools.check import TaskCheck, check_tasks
from admindesk.schema.task_model import load_tasks


@pytest.fixture
def checked(monkeypatch):
    """Fake episodes: every call is recorded; tasks named in `failing` get a problem."""
    calls: list[tuple[str, bool, bool]] = []
    failing: set[str] = set()

    def fake_check(env, task, out_dir, *, ablate, rerun=False, earlier=None, live_ablations=False):
        calls.append((task.id, ablate, rerun))
        return TaskCheck(task.id, {"reference": "unjudged", "noop": "fail"},
                         ["noop was not failed"] if task.id in failing else [])

    monkeypatch.setattr(task_check, "check_task", fake_check)
    monkeypatch.setattr(task_check, "Env", lambda *args, **kwargs: contextlib.nullcontext())
    return calls, failing


def test_a_second_check_repeats_only_what_failed_or_changed(checked, tmp_path):
    calls, failing = checked
    first, second = load_tasks()[:2]
    failing.add(second.id)
    verdicts, _ = check_tasks([first, second], tmp_path, echo=lambda line: None)
    assert [bool(v.problems) for v in verdicts] == [False, True] and len(calls) == 2

    failing.clear()
    rows: list[str] = []
    verdicts, _ = check_tasks([first, second], tmp_path, echo=rows.append)
    assert calls[2:] == [(second.id, False, False)]  # the first task's verdict is reused
    assert [v.reused_from is not None for v in verdicts] == [True, False]
    assert any(first.id in row and "verdict of an earlier check" in row for row in rows)

    changed = first.model_copy(update={"max_steps": first.max_steps + 1})
    check_tasks([changed], tmp_path, echo=lambda line: None)
    assert calls[-1] == (first.id, False, False)  # a changed task file is checked again
    check_tasks([changed], tmp_path, ablate={first.id}, echo=lambda line: None)
    assert calls[-1] == (first.id, True, False)  # a deeper check than the stored one runs


@pytest.fixture
def episodes(monkeypatch):
    """Fake episodes that keep a run.json as the runner does: the reference and its rerun pass
    (ending in the state `hashes` says), the controls and the ablations fail; each run is recorded."""
    runs: list[str] = []
    hashes = {"ehr_web": "a1"}

    def run(agent, tasks, out_dir, *, agent_options, env):
        label = out_dir.name
        runs.append(label)
        passing = agent == "reference" and "skip" not in agent_options
        names = [subtask.id for subtask in tasks[0].subtasks]
        summary = SimpleNamespace(result="pass" if passing else "fail", first_failing_subtask=None, steps=1,
                                  error=None, agent_note=None, final_snapshot_hashes=dict(hashes))
        score = SimpleNamespace(outcome=summary.result, subtasks=[SimpleNamespace(id=name, outcome=summary.result)
                                                                  for name in names])
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "run.json").write_text(json.dumps({"episodes": [{"final_snapshot_hashes": dict(hashes)}]}))
        return [SimpleNamespace(summary=summary, score=score)]

    monkeypatch.setattr(task_check.runner_local, "run", run)
    monkeypatch.setattr(task_check, "Env", lambda *args, **kwargs: contextlib.nullcontext())
    return runs, hashes


def test_a_deeper_check_builds_on_a_shallower_one(episodes, tmp_path):
    runs, hashes = episodes
    task = next(task for task in load_tasks() if task.id == "appeal-easy-05")
    verdicts, _ = check_tasks([task], tmp_path, echo=lambda line: None)
    assert verdicts[0].problems == [] and runs[0] == "reference" and "reference-rerun" not in runs

    runs.clear()
    rows: list[str] = []
    verdicts, _ = check_tasks([task], tmp_path, ablate={task.id}, rerun={task.id}, echo=rows.append)
    # Only what the first check did not run: the rerun, then one ablation per subtask not read on the way.
    assert runs == ["reference-rerun"] + [f"skip:{s.id}" for s in task.subtasks if not s.read_on_the_way]
    assert verdicts[0].problems == [] and verdicts[0].outcomes["noop"] == "fail"
    assert "reference and controls of an earlier check" in rows[0]
    stored = json.loads((tmp_path / task.id / "verdict.json").read_text())
    assert stored["ablate"] and stored["rerun"]

    runs.clear()
    check_tasks([task], tmp_path, ablate={task.id}, rerun={task.id}, echo=lambda line: None)
    assert runs == []  # as deep as asked: reused whole


def test_a_deepened_rerun_must_reproduce_the_kept_reference(episodes, tmp_path):
    runs, hashes = episodes
    task = next(task for task in load_tasks() if task.id == "appeal-easy-05")
    check_tasks([task], tmp_path, echo=lambda line: None)
    hashes["ehr_web"] = "b2"
    verdicts, _ = check_tasks([task], tmp_path, rerun={task.id}, echo=lambda line: None)
    assert verdicts[0].problems == ["the reference's rerun ended in a different state in ehr_web"]
