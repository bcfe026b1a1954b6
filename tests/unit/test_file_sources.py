"""Validation that every file a task asks to send exists in its case: a file check's source
selects, by its case id, a chart document or a received fax the case provides."""
import copy

import pytest

from admindesk.schema.task_model import TASKS_ROOT, parse_task_text
from admindesk.verifiers.static_validation import validate_task_data
from tests.unit.fixtures.episodes import task_data

ACCEPTANCE_REPORT_TASK = TASKS_ROOT / "appeals" / "appeal-hard-12.yaml"


@pytest.fixture()
def appeal_data() -> dict:
    """A committed timely-filing appeal whose proof is a fax of its case (key `accepted`)."""
    return parse_task_text(ACCEPTANCE_REPORT_TASK.read_text(encoding="utf-8"))


def _file_check(data: dict) -> dict:
    return next(check for subtask in data["subtasks"] for check in subtask["checks"] if check["kind"] == "file")


def test_a_task_whose_proof_is_in_its_case_is_valid(appeal_data):
    assert validate_task_data(appeal_data, "appeal-hard-12.yaml") == []


def test_a_file_check_naming_a_fax_the_case_lacks_is_refused(appeal_data):
    without_faxes = copy.deepcopy(appeal_data)
    del without_faxes["case"]["faxes"]
    problems = [p for p in validate_task_data(without_faxes, "appeal-hard-12.yaml") if "file source" in p]
    assert problems == ["appeal-hard-12 file_appeal.6: file source names received fax 'accepted', which the case "
                        "does not provide (the case's faxes: none)"]


def test_a_file_check_naming_a_document_the_case_lacks_is_refused():
    data = task_data()
    _file_check(data)["source"]["params"] = {"doc": {"case": "ids.documents.acceptance_report"}}
    problems = [p for p in validate_task_data(data) if "file source" in p]
    assert problems == ["pa-medium-01 attach.1: file source names chart document 'acceptance_report', which the "
                        "case does not provide (the case's documents: pn)"]


@pytest.mark.parametrize("source, message", [
    ({"app": "ehr_web", "query": "documents[?title=={{t}}].sha256", "params": {"t": {"case": "documents.0.title"}}},
     "names no chart document of the case"),
    ({"app": "payer_portal_a", "query": "pa_attachments[0].sha256"}, "is not a case document"),
])
def test_a_file_source_not_selected_by_case_id_is_refused(source, message):
    data = task_data()
    _file_check(data)["source"] = source
    problems = [p for p in validate_task_data(data) if "file source" in p]
    assert len(problems) == 1 and message in problems[0], problems
