"""The cases of template prior_auth/fax_determination: the payer's letter in the fax inbox says
what was approved, and that is not what was asked (the letter's own dates; another code), and the
look-alike patient is really another person of the same name."""
from __future__ import annotations

import re

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.cases import CaseError, build_case
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "prior_auth/fax_determination"


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _letter(world, task) -> tuple[str, object]:
    records = build_case(world, task.id, task.case)
    (fax,) = records.chart.faxes
    (auth,) = records.chart.authorizations
    return " ".join(" ".join(fax.pages_text).split()), auth


def test_the_template_converts_two_medium_tasks(tasks):
    assert set(tasks) == {"pa-medium-04", "pa-medium-07"}
    for task in tasks.values():
        assert task.difficulty == "medium" and "determination_posting" in task.skills
        assert [r.status for r in task.case.payer_history.requests] == ["Approved"]


def test_the_full_approval_states_dates_other_than_the_request_defaults(world, tasks):
    task = tasks["pa-medium-04"]
    text, auth = _letter(world, task)
    order = task.case.orders[0]
    assert not auth.modified and "Valid from 11/20/2026 through 12/19/2026" in text
    assert (auth.end - auth.start).days < 90 and auth.start <= order.planned_date <= auth.end
    assert "PARTIALLY" not in text and f"Authorization number: {auth.auth_number}" in text


def test_the_lookalike_shares_the_name_not_the_birth_date(world, tasks):
    task = tasks["pa-medium-04"]
    patient, alike = build_case(world, task.id, task.case).chart.patients
    assert patient.full_name == alike.full_name and patient.dob != alike.dob
    text, _auth = _letter(world, task)
    assert "DOB: 11/02/1959" in text


def test_the_partial_approval_names_the_code_approved_in_place_of_the_order(world, tasks):
    task = tasks["pa-medium-07"]
    text, auth = _letter(world, task)
    assert auth.modified and (auth.code, auth.granted_code, auth.granted_units) == ("72158", "72148", 1)
    assert re.search(r"Requested: 72158 .*, 1 unit\(s\)\. Approved: 72148 MRI of the lower spine without contrast",
                     text)
    assert "peer-to-peer" in text and "approved" in text.lower()


@pytest.mark.parametrize("change,message", [
    ({"approved_code": "95810"}, "approved_code: a sleep code cannot replace the imaging service requested"),
    ({"approved_code": "72158"}, "approved_code: is the code requested"),
])
def test_a_modified_approval_must_grant_less_of_the_same_kind(world, tasks, change, message):
    task = tasks["pa-medium-07"]
    data = task.case.model_dump()
    data["payer_history"]["requests"][0].update(change)
    with pytest.raises(CaseError, match=re.escape(message)):
        build_case(world, task.id, type(task.case).model_validate(data))


def test_the_case_model_refuses_a_modified_approval_that_is_not_one(tasks):
    case_type = type(tasks["pa-medium-07"].case)
    data = tasks["pa-medium-07"].case.model_dump()
    request = data["payer_history"]["requests"][0]
    for change, message in (({"approved_units": 1}, "fewer than the requested"),
                            ({"status": "Denied"}, "only an Approved request"),
                            ({"recorded": True}, "only an Approved request|not `recorded`")):
        bad = {**request, **change}
        with pytest.raises(ValueError, match=message):
            case_type.model_validate({**data, "payer_history": {**data["payer_history"], "requests": [bad]}})
