"""Static validation of task checks against the apps' snapshot schema and the case, and of
the goal and guidance against giving the answer away."""
from typing import get_args

import pytest
from pydantic import ValidationError

from admindesk.schema.task_model import Challenge, Task
from admindesk.verifiers.snapshot_schema import SCHEMA_PATH, load_schema
from admindesk.verifiers.static_validation import CHALLENGE_WORDS, hint_problems, validate_task, validate_task_data
from tests.unit.fixtures.episodes import MEMBER, MEMBER_ID, TITLE, task, task_data
from tests.unit.fixtures.snapshot_schema_dump import render_schema


def test_snapshot_schema_file_matches_the_apps():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), (
        "verifiers/snapshot_schema.json is stale: run python3 -m tests.unit.fixtures.snapshot_schema_dump")


def test_the_fixture_task_is_valid():
    assert validate_task(task()) == []


def _with_check(check: dict) -> list[str]:
    data = task_data()
    data["subtasks"][0]["checks"].append(check)
    return validate_task(Task.model_validate(data))


@pytest.mark.parametrize("check, message", [
    ({"kind": "query", "app": "fax", "query": "outbound_faxs", "op": "count", "expected": 1},
     "reads no table of fax"),
    ({"kind": "query", "app": "fax", "query": "outbound_faxes[0].to_numbr", "expected": "x"},
     "to_numbr is not a field of outbound_faxes"),
    ({"kind": "query", "app": "fax", "query": "outbound_faxes[?", "op": "count", "expected": 1},
     "does not compile"),
    ({"kind": "query", "app": "ehr_web", "query": "patients[0].last_name", "expected": {"case": "patient.nickname"}},
     "has no 'nickname'"),
    ({"kind": "query", "app": "ehr_web", "query": "coverages[0].member_id", "expected": MEMBER_ID},
     f"expected value '{MEMBER_ID}' retypes the case's"),
    ({"kind": "state_diff", "app": "ehr_web", "allowed": {"order_auths": None}}, "ehr_web has no table order_auths"),
])
def test_problems_are_named(check, message):
    problems = _with_check(check)
    assert len(problems) == 1 and message in problems[0], problems


@pytest.mark.parametrize("query", ["audit_events[0].detail.claim", "audit_events[].detail.claim",
                                   "audit_events[?detail.claim=='x'].id",
                                   "audit_events[-1].detail[?claim=='x'].code"])
def test_fields_inside_json_columns_are_not_schema_errors(query):
    assert _with_check({"kind": "query", "app": "ehr_web", "query": query, "expected": "x"}) == []


def test_guard_tables_and_fields_are_checked():
    data = task_data()
    data["guards"].append({"kind": "recipient", "app": "fax", "table": "outbound_faxes", "field": "number",
                           "allowed": ["8005550101"]})
    assert any("outbound_faxes has no field number" in p for p in validate_task(Task.model_validate(data)))


@pytest.mark.parametrize("change, message", [
    (lambda s: s[1].update(depends_on=["nope"]), "depends_on nope, which is not a subtask"),
    (lambda s: s[0].update(depends_on=["report"]), "in a cycle"),
    (lambda s: s[1].update(id="review"), "used twice"),
    (lambda s: s[0]["checks"][0].update(colour="red"), "Extra inputs are not permitted"),
    (lambda s: s[0].update(category="paperwork"), "category"),
])
def test_task_shape_errors(change, message):
    data = task_data()
    change(data["subtasks"])
    with pytest.raises(ValidationError, match=message):
        Task.model_validate(data)
    assert message.split()[0] in validate_task_data(data, "pa-medium-01.yaml")[0]


def test_checks_get_stable_default_ids():
    loaded = task()
    assert [c.id for c in loaded.checks()][:3] == ["review.1", "submit.1", "submit.2"]
    assert [g.id for g in loaded.guards][0] == "guard.1"


def test_schema_lists_every_app():
    assert set(load_schema()) == {"ehr_web", "payer_portal_a", "payer_portal_b", "fax"}


def _hints(**changes) -> list[str]:
    return hint_problems(task(**changes))


def test_a_goal_that_names_the_tasks_challenge_is_refused():
    problems = _hints(goal="Get the lumbar MRI for Dana Whitfield authorised; another patient has the same name.")
    assert problems == [
        "pa-medium-01 goal: 'same name' names the task's challenge lookalike_patient "
        "('Get the lumbar MRI for Dana Whitfield authorised; another patient has the same name.')",
        "pa-medium-01 goal: 'another patient' names the task's challenge lookalike_patient "
        "('Get the lumbar MRI for Dana Whitfield authorised; another patient has the same name.')"]


def test_a_guidance_line_that_names_the_tasks_challenge_is_refused():
    problems = _hints(challenge="conflicting_documents",
                      guidance=["Open the order.", "Watch for: an Addendum corrects the note."])
    assert len(problems) == 1 and problems[0].startswith(
        "pa-medium-01 guidance line 2: 'Addendum' names the task's challenge conflicting_documents"), problems


def test_another_challenges_words_are_not_a_hint():
    assert _hints(guidance=["Check the secondary coverage too; an addendum corrects the note it names."]) == []


def test_a_line_that_says_an_expected_value_is_refused():
    problems = _hints(guidance=["Record the request as Approved and add a comment."])
    assert problems == ["pa-medium-01 guidance line 1: 'Approved' is a value the task's checks expect "
                        "('Record the request as Approved and add a comment.')"]


def test_a_line_that_says_a_case_value_a_check_expects_is_refused():
    data = task_data(goal="Get the MRI for Dana Whitfield authorised; attach the Lumbar spine follow-up.")
    data["subtasks"][0]["checks"].append({"kind": "query", "app": "ehr_web", "query": "documents[0].title",
                                          "expected": TITLE})
    problems = hint_problems(Task.model_validate(data))
    assert problems == ["pa-medium-01 goal: 'Lumbar spine follow-up' is a value the task's checks expect "
                        "('Get the MRI for Dana Whitfield authorised; attach the Lumbar spine follow-up.')"]


def test_hints_are_refused_by_validation():
    problems = validate_task(task(goal="Dana Whitfield's MRI: another patient has the same name."))
    assert any("names the task's challenge lookalike_patient" in problem for problem in problems), problems


def test_a_work_item_goal_passes():
    data = task_data(goal=f"Work the Prior Auth queue item for the lumbar spine MRI of Dana Whitfield "
                          f"(born 1961-04-12), member {MEMBER_ID}, Northwind Health Plan (PYR-NWH).",
                     guidance=["Open the order and its documents; confirm the patient by name and date of birth.",
                               "Record the outcome and set the item to the status that matches it.",
                               "The request goes out once: send 1 request, with the signed forms."])
    # The checks expect the patient, the member id and the payer (they identify the work), an
    # audit's record type "order", and a count of 1 (too short to be a hint).
    data["subtasks"][0]["checks"] += [
        {"kind": "query", "app": "ehr_web", "query": "patients[0].last_name", "expected": {"case": "patient.last_name"}},
        {"kind": "query", "app": "ehr_web", "query": "coverages[0].member_id", "expected": MEMBER},
        {"kind": "query", "app": "ehr_web", "query": "coverages[0].payer_id", "expected": {"case": "coverages.0.payer"}},
        {"kind": "query", "app": "ehr_web", "query": "patients[0].dob", "expected": {"case": "patient.dob"}}]
    assert validate_task(Task.model_validate(data)) == []


def test_every_challenge_has_words_that_name_it():
    assert set(CHALLENGE_WORDS) == set(get_args(Challenge)) - {"none"}
