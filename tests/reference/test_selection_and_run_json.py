"""Task selection for `admindesk run`/`tasks check`, and the run.json metrics names."""
from __future__ import annotations

import pytest

from admindesk.harness.cli.run import select_tasks
from admindesk.harness.running.local import EpisodeSummary, metrics
from admindesk.harness.task_tools.check import dependents, files_nothing
from admindesk.schema.task_model import load_tasks


@pytest.fixture(scope="module")
def suite():
    return [task for task in load_tasks() if task.workflow == "prior_auth"]


def test_selection_by_ids_filters_and_all(suite):
    assert [t.id for t in select_tasks("pa-easy-02,pa-easy-01", suite)] == ["pa-easy-02", "pa-easy-01"]
    hard_b = select_tasks("difficulty=hard,template=portal_b_precert", suite)
    assert hard_b and all(t.difficulty == "hard" and t.template.endswith("portal_b_precert") for t in hard_b)
    assert {t.id for t in select_tasks("feasible=false", suite)} == {t.id for t in suite if not t.feasible}
    assert len(select_tasks("all", suite)) == len(suite)


@pytest.mark.parametrize("selection, message", [("pa-nope-01", "no task"), ("colour=red", "cannot filter"),
                                                ("pa-easy-01,difficulty=easy", "mix")])
def test_bad_selection_is_refused_with_a_reason(suite, selection, message):
    with pytest.raises(ValueError, match=message):
        select_tasks(selection, suite)


def test_metrics_keep_the_names_other_tools_read():
    episodes = [EpisodeSummary(task_id="a", trial=0, result=result, subtask_pass_rate=rate,
                               first_failing_subtask=None, steps=3, wall_s=1.0, folder="a")
                for result, rate in (("pass", 1.0), ("unjudged", 1.0), ("fail", 0.25), ("error", 0.0))]
    summary = metrics(episodes)
    assert summary["e2e_success"] == 0.25 and summary["n_episodes"] == 4
    assert summary["subtask_pass_rate"] == pytest.approx(0.5625)


def test_which_tasks_a_filing_control_must_fail(suite):
    by_id = {t.id: t for t in suite}
    assert files_nothing(by_id["pa-medium-08"])        # infeasible: stop and document
    assert files_nothing(by_id["pa-easy-10"])          # no auth required: file nothing anywhere
    assert not files_nothing(by_id["pa-easy-01"])      # the precertification must be filed
    assert dependents(by_id["pa-easy-01"], "submit_precert") == {"record_decision", "close_item"}
