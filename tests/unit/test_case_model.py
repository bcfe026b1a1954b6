"""The `case:` section of a task file: validated by pydantic, errors name the file and field."""
from __future__ import annotations

import pytest
import yaml

from admindesk.schema.task_model import (
    TaskFileError,
    _ExplainingTextDatesLoader,
    load_task_file,
    load_tasks,
    parse_task_text,
)
from tests.cases.examples import EXAMPLE_TASK_IDS, TASKS_DIR

BASE = {
    "id": "case-unit",
    "case": {
        "patient": {"first_name": "Ann", "last_name": "Lee", "dob": "1970-01-02", "sex": "F"},
        "coverages": [{"key": "primary", "payer": "PYR-NWH", "effective": "2024-01-01"}],
        "orders": [{"key": "mri", "code": "72148", "diagnoses": ["M54.16"], "ordering_provider": "Orthopedics",
                    "facility": "FAC-OPI", "coverage": "primary", "ordered_on": "2026-11-10",
                    "planned_date": "2026-12-01"}],
        "documents": [{"key": "visit", "type": "progress_note", "date": "2026-11-10", "author": "Orthopedics",
                       "order": "mri", "facts": {"conservative_therapy_weeks": 3}}],
    },
}


def write_task(tmp_path, edit) -> object:
    data = yaml.safe_load(yaml.safe_dump(BASE))
    edit(data["case"])
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_every_example_case_loads():
    assert sorted(task.id for task in load_tasks(TASKS_DIR)) == sorted(EXAMPLE_TASK_IDS)
    assert all(task.case is not None for task in load_tasks(TASKS_DIR))


def test_a_valid_case_keeps_typed_values(tmp_path):
    task = load_task_file(write_task(tmp_path, lambda case: None))
    assert task.case.documents[0].facts.conservative_therapy_weeks == 3
    assert task.case.orders[0].ordered_on.isoformat() == "2026-11-10"


@pytest.mark.parametrize("edit,field,message", [
    (lambda c: c["documents"][0]["facts"].update(conservative_therapy_weeks="three"),
     "case.documents.0.facts.conservative_therapy_weeks", "valid integer"),
    (lambda c: c["documents"][0]["facts"].update(ahi="high"), "case.documents.0.facts.ahi", "valid number"),
    (lambda c: c["orders"][0].update(ordered_on="2026-13-45"), "case.orders.0.ordered_on", "valid date"),
    (lambda c: c["patient"].update(dob="next spring"), "case.patient.dob", "valid date"),
    (lambda c: c["documents"][0]["facts"].update(weeks_of_therapy=3), "case.documents.0.facts.weeks_of_therapy",
     "Extra inputs"),
    (lambda c: c["orders"][0].update(coverage="tertiary"), "case", "orders.0.coverage: no 'tertiary'"),
    (lambda c: c["orders"][0].update(planned_date="2026-11-01"), "case.orders.0", "planned_date is before"),
    (lambda c: c["coverages"].append(dict(c["coverages"][0])), "case", "coverages.1.key: 'primary' is used twice"),
    (lambda c: c.update(lookalikes=[{"sex": "F"}]), "case", "lookalikes.0: change at least"),
    (lambda c: c.update(payer_history={"requests": [{"key": "onfile", "order": "mri", "status": "Pended",
                                                     "recorded": True}]}),
     "case.payer_history.requests.0", "only an Approved request is `recorded`"),
])
def test_a_bad_case_names_the_file_and_the_field(tmp_path, edit, field, message):
    path = write_task(tmp_path, edit)
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    text = str(caught.value)
    assert text.startswith(str(path)) and field in text and message in text


def test_an_unreadable_task_file_names_the_file(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("id: x\ncase: [unclosed\n")
    with pytest.raises(TaskFileError, match="broken.yaml: cannot read") as caught:
        load_task_file(path)
    assert "case: [unclosed" in str(caught.value)  # the offending line is quoted


def test_task_files_parse_fast_and_keep_dates_as_text():
    # libyaml reads the suite; the pure-Python parser (kept for its error messages) must agree.
    text = "id: x\nnow: 2026-03-02T09:00:00\ndob: 1950-01-02\nn: 3\nlist: [a, 2024-01-01]\n"
    assert parse_task_text(text) == yaml.load(text, Loader=_ExplainingTextDatesLoader) == {
        "id": "x", "now": "2026-03-02T09:00:00", "dob": "1950-01-02", "n": 3, "list": ["a", "2024-01-01"]}
