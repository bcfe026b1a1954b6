"""`tasks check --ablate`: a skipped subtask must fail the task; reading done on the way
(`read_on_the_way`) is not ablated, and the task file model says where that may be."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from admindesk.harness.agents.reference.work import ReadNotes, SkippedPhase
from admindesk.harness.task_tools import check as task_check
from admindesk.schema.task_model import Task, load_task_file
from tests.unit.test_credited_routes import TASKS

READ_ON_THE_WAY = TASKS / "appeals" / "appeal-easy-05.yaml"


def fake_outcome(result: str, subtasks: dict[str, str]) -> SimpleNamespace:
    failing = next((name for name, outcome in subtasks.items() if outcome == "fail"), None)
    summary = SimpleNamespace(result=result, first_failing_subtask=failing, steps=1, error=None, agent_note=None,
                              final_snapshot_hashes={})
    score = SimpleNamespace(outcome=result, subtasks=[SimpleNamespace(id=name, outcome=outcome)
                                                      for name, outcome in subtasks.items()],
                            model_dump=lambda exclude=None: {"outcome": result, "subtasks": subtasks})
    return SimpleNamespace(summary=summary, score=score)


derived_results: dict[str, str] = {}  # subtask -> the result of its ablation derived from the reference
resumed_results: dict[str, str] = {}  # subtask -> the result of its ablation resumed from the reference's state


@pytest.fixture
def skip_results(monkeypatch):
    """Fake episodes: the reference passes, controls fail, a skip run gives what the test sets
    (fail by default); the skipped subtasks are recorded."""
    task = load_task_file(READ_ON_THE_WAY)
    names = [subtask.id for subtask in task.subtasks]
    skipped_results: dict[str, str] = {}
    skipped: list[str] = []
    derived_results.clear()
    resumed_results.clear()

    def run(agent, tasks, out_dir, *, agent_options, env):
        skip = agent_options.get("skip")
        if agent != "reference":
            return [fake_outcome("fail", dict.fromkeys(names, "fail"))]
        if skip is None:
            watcher = agent_options.get("phase_watcher")
            for subtask, result in derived_results.items() if watcher is not None else ():
                watcher.outcomes[subtask] = fake_outcome(result, dict.fromkeys(names, result))
            for subtask in resumed_results if watcher is not None else ():
                watcher.resumptions[subtask] = f"the reference's state at {subtask}"
            return [fake_outcome("pass", dict.fromkeys(names, "pass"))]
        if agent_options.get("resume") is not None:
            result = resumed_results[skip]
            return [fake_outcome(result, dict.fromkeys(names, "fail" if result == "error" else result))]
        skipped.append(skip)
        result = skipped_results.get(skip, "fail")
        return [fake_outcome(result, dict.fromkeys(names, result))]

    monkeypatch.setattr(task_check.runner_local, "run", run)
    return task, skipped_results, skipped


def test_reading_on_the_way_is_not_ablated_and_the_rest_is(skip_results, tmp_path):
    task, _, skipped = skip_results
    assert task.subtasks[0].read_on_the_way
    assert task_check.check_task(None, task, tmp_path, ablate=True).problems == []
    assert skipped == [subtask.id for subtask in task.subtasks[1:]]


@pytest.mark.parametrize("how", ["live", "derived from the reference", "resumed from the reference"])
def test_any_other_subtask_whose_skip_passes_is_a_problem(skip_results, tmp_path, how):
    task, skipped_results, _ = skip_results
    results = {"live": skipped_results, "derived from the reference": derived_results}.get(how, resumed_results)
    results["check_eligibility"] = "pass"
    problems = task_check.check_task(None, task, tmp_path, ablate=True).problems
    assert problems == ["skip:check_eligibility: the task was not failed"]


# How an ablation was had without running it live -> its results, and how the table counts it.
NOT_LIVE = {"derived": (derived_results, "ended at the reference's phase end"),
            "resumed": (resumed_results, "resumed from the reference's state there")}


@pytest.mark.parametrize("how", NOT_LIVE)
def test_an_ablation_not_run_live_is_counted_as_such(skip_results, tmp_path, how):
    task, _, skipped = skip_results
    results, counted = NOT_LIVE[how]
    results["check_eligibility"] = "fail"
    verdict = task_check.check_task(None, task, tmp_path, ablate=True)
    assert verdict.problems == [] and getattr(verdict, how) == ["check_eligibility"]
    assert "check_eligibility" not in skipped and verdict.outcomes["skip:check_eligibility"] == "fail"
    assert counted in task_check.format_row(verdict)


@pytest.mark.parametrize("how", NOT_LIVE)
def test_with_live_ablations_an_ablation_not_run_live_must_end_as_the_live_one(skip_results, tmp_path, how):
    task, skipped_results, skipped = skip_results
    results, _ = NOT_LIVE[how]
    results["check_eligibility"] = "fail"
    verdict = task_check.check_task(None, task, tmp_path, ablate=True, live_ablations=True)
    assert verdict.problems == [] and "check_eligibility" in skipped
    if how == "resumed":  # its episode ran beside the live one, under its own label
        assert verdict.outcomes["resumed-skip:check_eligibility"] == "fail"
    skipped_results["check_eligibility"] = "fail"
    results["check_eligibility"] = "pass"
    problems = task_check.check_task(None, task, tmp_path, ablate=True, live_ablations=True).problems
    assert problems == [f"skip:check_eligibility: the ablation {task_check.TAKEN[how]} differs from the live one "
                        "in the score"]


def test_an_ablation_whose_resumption_fails_runs_live(skip_results, tmp_path):
    task, _, skipped = skip_results
    resumed_results["check_eligibility"] = "error"
    verdict = task_check.check_task(None, task, tmp_path, ablate=True)
    assert verdict.problems == [] and verdict.resumed == []
    assert "check_eligibility" in skipped and verdict.outcomes["skip:check_eligibility"] == "fail"


def _task_data() -> dict:
    return load_task_file(READ_ON_THE_WAY).model_dump(mode="json", exclude_none=True)


def test_only_a_subtask_of_views_is_read_on_the_way():
    extra = {"kind": "query", "description": "a note exists", "app": "ehr_web", "query": "notes", "op": "count",
             "min": 1}
    data = _task_data()
    data["subtasks"][0]["checks"].append(extra)
    with pytest.raises(ValidationError, match="read_on_the_way is for a subtask whose checks are all"):
        Task.model_validate(data)


def test_reading_on_the_way_needs_later_work_that_depends_on_it():
    data = _task_data()
    for subtask in data["subtasks"][1:]:
        subtask["depends_on"] = [name for name in subtask["depends_on"] if name != "review_denial"]
    with pytest.raises(ValidationError, match="read_on_the_way but no subtask depends on it"):
        Task.model_validate(data)


def test_a_note_a_skipped_phase_never_wrote_stops_the_ablated_reference_cleanly():
    skipped: list[str] = []
    notes = ReadNotes(skipped)
    with pytest.raises(KeyError):  # nothing skipped: a missing note is the solution's bug
        notes["attach_as"]
    skipped.append("check_requirements")
    with pytest.raises(SkippedPhase, match="attach_as was never read .*check_requirements skipped"):
        notes["attach_as"]
    notes["attach_as"] = "Detailed written order"
    assert notes["attach_as"] == "Detailed written order" and notes.get("missing") is None
