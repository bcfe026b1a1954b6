"""Scoring: pass only when everything passes; unjudged when only rubrics are open; the first
failing subtask in dependency order; tallies per category and challenge."""
import pytest

from admindesk.verifiers.scoring import score_task, summarise
from tests.unit.fixtures.episodes import DISCONNECTED_FAX, good_record, task, untouched_record
from tests.unit.fixtures.judges import KeywordJudge


def test_good_work_with_a_judge_passes():
    judge = KeywordJudge("auth")
    result = score_task(task(), good_record(), judge)
    assert result.outcome == "pass" and result.subtask_pass_rate == 1.0
    assert result.first_failing_subtask is None and result.n_unjudged == 0
    assert judge.requests[0].check_id == "record.2" and "NWH2601234" in judge.requests[0].text


def test_good_work_without_a_judge_is_unjudged_not_passed():
    result = score_task(task(), good_record())
    assert result.outcome == "unjudged" and result.n_unjudged == 1
    record_subtask = next(s for s in result.subtasks if s.id == "record")
    assert record_subtask.outcome == "unjudged"
    # `report` depends on `record`: unjudged with it, so 3 of 5 subtasks pass.
    assert result.subtask_pass_rate == pytest.approx(3 / 5)


def test_a_judge_that_rejects_the_text_fails_the_task():
    result = score_task(task(), good_record(), KeywordJudge("deadline"))
    assert result.outcome == "fail" and result.first_failing_subtask == "record"


def test_untouched_state_gives_no_pass_and_no_unjudged():
    for judge in (None, KeywordJudge()):
        result = score_task(task(), untouched_record(), judge)
        assert result.outcome == "fail" and result.first_failing_subtask == "review"


def test_a_failed_guard_fails_otherwise_good_work():
    record = good_record()
    record.final_snapshots["fax"]["outbound_faxes"][0]["to_number"] = DISCONNECTED_FAX
    result = score_task(task(), record, KeywordJudge())
    assert result.outcome == "fail" and result.first_failing_subtask is None
    assert [g.kind for g in result.guards if not g.result.passed] == ["recipient"]
    # A guard failing and a rubric unjudged: still a failure, not unjudged.
    assert score_task(task(), record).outcome == "fail"


def test_first_failing_subtask_follows_dependencies_not_file_order():
    data_task = task()
    # Put `report` (depends on record) first in the file: order must still come from depends_on.
    data_task.subtasks.insert(0, data_task.subtasks.pop())
    record = good_record(answer=None)
    record.final_snapshots["payer_portal_a"]["pa_attachments"][0]["sha256"] = "d" * 64
    result = score_task(data_task, record, KeywordJudge())
    assert [s.id for s in result.subtasks] == ["review", "submit", "attach", "record", "report"]
    assert result.first_failing_subtask == "attach"


def test_a_record_of_another_task_is_refused():
    with pytest.raises(ValueError, match="not pa-medium-01"):
        score_task(task(), untouched_record().model_copy(update={"task_id": "pa-easy-01"}))


def test_summary_tallies_by_category_and_challenge():
    results = [score_task(task(), good_record(), KeywordJudge()), score_task(task(), untouched_record()),
               score_task(task(challenge="none"), good_record())]
    summary = summarise(results)
    assert summary.tasks.model_dump() == {"total": 3, "passed": 1, "unjudged": 1, "errors": 0, "failed": 1}
    assert summary.by_challenge["lookalike_patient"].model_dump() == {"total": 2, "passed": 1, "unjudged": 0,
                                                                       "errors": 0, "failed": 1}
    assert summary.by_category["documentation"].model_dump() == {"total": 3, "passed": 1, "unjudged": 1,
                                                                  "errors": 0, "failed": 1}
    assert summary.first_failing_category == {"information_retrieval": 1}
