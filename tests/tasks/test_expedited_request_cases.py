"""The cases of template prior_auth/expedited_request hold together: the review timeframe each expects
is the one the ordering physician's note supports (its `clinical_urgency`), that physician is the one
an expedited request names, the service is no MRI, and in each case something a hurried coordinator
reads first (the order's priority, the patient's plans) points the other way."""
from __future__ import annotations

import pytest

from admindesk.envs.world import build_world
from admindesk.schema.task_model import TASKS_ROOT, load_tasks
from tests.unit.test_credited_routes import _task, check_passes, ids

TEMPLATE = "prior_auth/expedited_request"


@pytest.fixture(scope="module")
def requests():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _urgency_check(task):
    [check] = [c for s in task.subtasks for c in s.checks if c.description.startswith("the payer holds the request")]
    return check


def _note(task):
    [order] = [o for o in task.case.orders if o.key == "svc"]
    [note] = [d for d in task.case.documents if d.facts.clinical_urgency]
    return order, note


def test_the_template_holds_two_portal_a_requests_of_no_mri(requests):
    assert set(requests) == {"pa-easy-13", "pa-hard-18"}
    payers = {p.id: p.portal for p in build_world().payers}
    for task in requests.values():
        order, _ = _note(task)
        assert payers[task.case.coverages[0].payer] == "a" and "expedited_review" in task.skills
        assert order.code in ("78815", "27130")


@pytest.mark.parametrize("task_id", ["pa-easy-13", "pa-hard-18"])
def test_the_expected_timeframe_is_the_one_the_physician_documents(requests, task_id):
    task = requests[task_id]
    order, note = _note(task)
    assert note.author == order.ordering_provider and note.order == "svc"
    urgent = note.facts.clinical_urgency.startswith("urgent")
    assert _urgency_check(task).expected == ("Expedited" if urgent else "Standard")
    # The trap: the order's priority says the opposite of the physician's opinion.
    assert order.priority == ("Routine" if urgent else "Urgent")


def test_the_expedited_request_names_the_ordering_physician(requests):
    task = requests["pa-easy-13"]
    order, _ = _note(task)
    [provider] = [p for p in build_world().providers if p.npi == order.ordering_provider]
    assert provider.credentials in ("MD", "DO")  # the attesting opinion is a physician's
    [check] = [c for s in task.subtasks for c in s.checks if c.description.startswith("the expedited request names")]
    assert provider.last_name in check.expected


def test_the_standard_case_states_only_a_non_clinical_wish_for_an_earlier_date(requests):
    _, note = _note(requests["pa-hard-18"])
    assert note.facts.clinical_urgency.startswith("routine") and "Arizona" in note.narrative
    assert not any(c.description.startswith("the expedited request") for s in requests["pa-hard-18"].subtasks
                   for c in s.checks)


def _portal_a(task_id: str, **request) -> dict:
    member = ids(task_id)["coverages"]["primary"]["payer_member_id"]
    return {"payer_portal_a": {"pa_requests": [{"id": 1, "member_id": member, **request}]}}


@pytest.mark.parametrize("task_id, filed, passes", [
    ("pa-easy-13", "Expedited", True), ("pa-easy-13", "Standard", False),
    ("pa-hard-18", "Standard", True), ("pa-hard-18", "Expedited", False),
])
def test_only_the_timeframe_the_note_supports_passes(task_id, filed, passes):
    final = _portal_a(task_id, urgency=filed)
    assert check_passes(task_id, _urgency_check(_task(task_id)).description, final) is passes


@pytest.mark.parametrize("attested_by, passes", [
    ("Robert Becker, MD", True), ("Dr. becker", True), ("BECKER ROBERT", True),
    ("Paul Mcguire, NP", False), (None, False),
])
def test_the_attesting_physician_is_credited_however_the_name_is_written(attested_by, passes):
    final = _portal_a("pa-easy-13", urgency="Expedited", expedited_attested_by=attested_by)
    assert check_passes("pa-easy-13", "the expedited request names the treating physician who attests to the urgency",
                        final) is passes
