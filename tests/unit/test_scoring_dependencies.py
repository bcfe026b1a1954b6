"""Subtask credit follows `depends_on`: a subtask whose prerequisite failed fails too and
says why, keeping its own checks' results; one whose prerequisite is only unjudged (or has
a judge error) is unjudged (or error), not failed. End-to-end outcome and the first
failing subtask are the checks' own."""
import copy

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_task_file
from admindesk.verifiers.judge import JudgeError
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import score_task
from tests.unit.fixtures.episodes import good_record, task
from tests.unit.fixtures.judges import KeywordJudge

APPEAL_TASK = TASKS_ROOT / "appeals/appeal-hard-08.yaml"


def by_id(result):
    return {subtask.id: subtask for subtask in result.subtasks}


def appeal_filed_only_record(appeal_task) -> EpisodeRecord:
    """The denial item set to Appeal Filed with a made-up reference; nothing read, nothing faxed."""
    ids = case_values(appeal_task)["ids"]
    item = {"id": 1, "mrn": ids["mrn"], "queue": "Denials", "claim_number": ids["claims"]["denied"],
            "status": "New", "appeal_submitted_on": None, "follow_up_date": None, "appeal_reference": None}
    initial = {
        "ehr_web": {"patients": [{"mrn": ids["mrn"], "first_name": "Lysander", "last_name": "Quigley-Adu",
                                  "dob": "1966-06-18"}],
                    "work_items": [item], "notes": [], "documents": [], "audit_events": []},
        "fax": {"outbound_faxes": [], "fax_attachments": [], "directory_contacts": [], "audit_events": []},
        "payer_portal_a": {"appeals": [], "corrected_claims": [], "audit_events": []},
        "payer_portal_b": {"appeals": [], "audit_events": []},
    }
    final = copy.deepcopy(initial)
    final["ehr_web"]["work_items"][0].update(status="Appeal Filed", appeal_submitted_on="2026-11-16",
                                             follow_up_date="2026-12-16", appeal_reference="APL-000000")
    return EpisodeRecord(task_id=appeal_task.id, initial_snapshots=initial, final_snapshots=final,
                         answer="Appeal filed.")


def test_setting_appeal_filed_without_the_fax_does_not_earn_record_appeal():
    appeal_task = load_task_file(APPEAL_TASK)
    result = score_task(appeal_task, appeal_filed_only_record(appeal_task))
    record_appeal = by_id(result)["record_appeal"]
    # Its own checks pass and stay visible; the subtask does not, and says why.
    assert record_appeal.checks_outcome == "pass"
    assert [check.result.passed for check in record_appeal.checks] == [True, True, True]
    assert record_appeal.outcome == "fail" and record_appeal.blocked_by == ["send_fax"]
    assert record_appeal.explanation == "prerequisite send_fax failed"
    assert result.subtask_pass_rate == 0.0
    # Outcome and attribution are the checks' own: the first subtask that failed by itself.
    assert result.outcome == "fail" and result.first_failing_subtask == "review_denial"


def test_a_failed_prerequisite_fails_every_subtask_after_it():
    result = score_task(task(), good_record(), KeywordJudge("deadline"))
    subtasks = by_id(result)
    assert subtasks["record"].outcome == "fail" and subtasks["record"].blocked_by == []
    assert subtasks["report"].checks_outcome == "pass" and subtasks["report"].outcome == "fail"
    assert subtasks["report"].explanation == "prerequisite record failed"
    assert subtasks["attach"].outcome == "pass"
    assert result.first_failing_subtask == "record" and result.subtask_pass_rate == pytest.approx(3 / 5)


def test_an_unjudged_prerequisite_leaves_its_dependent_unjudged_not_failed():
    result = score_task(task(), good_record())
    report = by_id(result)["report"]
    assert report.checks_outcome == "pass" and report.outcome == "unjudged"
    assert report.blocked_by == ["record"] and report.explanation == "prerequisite record is unjudged"
    assert result.outcome == "unjudged" and result.first_failing_subtask is None
    assert result.subtask_pass_rate == pytest.approx(3 / 5)


class FailingJudge:
    name = "down"

    def judge(self, request):
        raise JudgeError("judge down: unreachable")


def test_a_prerequisite_without_a_verdict_makes_its_dependent_an_error():
    result = score_task(task(), good_record(), FailingJudge())
    report = by_id(result)["report"]
    assert report.outcome == "error" and report.explanation == "prerequisite record has no verdict from the judge"
    assert result.outcome == "error" and result.first_failing_subtask is None


def test_a_stored_result_reads_back_with_its_gating():
    result = score_task(task(), good_record())
    again = type(result).model_validate_json(result.model_dump_json())
    assert again == result and by_id(again)["report"].checks_outcome == "pass"
