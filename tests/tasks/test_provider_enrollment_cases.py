"""The cases of template appeals/provider_enrollment hold together with the payers' enrollment rule
(participation counts from the day the payer logged the complete application): each case's denial is
B7 on the rendering clinician's own enrollment, decided by the application's receipt against the date
of service, with the trap that makes the other route tempting."""
from __future__ import annotations

import pytest

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/provider_enrollment"


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _enrollment(task):
    """The denied claim, and the rendering clinician's enrollment with the claim's payer."""
    case = task.case
    [claim] = [c for c in case.claims if c.key == "denied"]
    [order] = [o for o in case.orders if o.key == claim.order]
    payer = next(c.payer for c in case.coverages if c.key == claim.coverage)
    [enrollment] = [e for e in case.enrollments if e.provider == order.ordering_provider and e.payer == payer]
    return claim, enrollment


def test_the_template_converts_its_two_tasks_with_a_b7_denial(tasks):
    assert {t: tasks[t].difficulty for t in tasks} == {"appeal-easy-12": "easy", "appeal-medium-15": "medium"}
    for task in tasks.values():
        claim, _ = _enrollment(task)
        assert {(a.group, a.carc, a.rarc) for line in claim.lines for a in line.adjustments} == {("CO", "B7", "N570")}
        assert "provider_enrollment" in task.skills


def test_the_handoff_clinician_applied_after_the_service_though_participating_today(tasks):
    task = tasks["appeal-easy-12"]
    claim, enrollment = _enrollment(task)
    assert "hand_off" in {s.id for s in task.subtasks}
    assert enrollment.received_on > claim.service_date and enrollment.status == "Participating"
    others = [e for e in task.case.enrollments if e.payer != enrollment.payer]
    assert any(e.status == "Participating" and e.effective < claim.service_date for e in others)


def test_the_reconsideration_clinicians_directory_date_is_after_the_service_but_the_application_before(tasks):
    task = tasks["appeal-medium-15"]
    claim, enrollment = _enrollment(task)
    assert "file_reconsideration" in {s.id for s in task.subtasks}
    assert enrollment.received_on <= claim.service_date < enrollment.effective
    [letter] = task.case.faxes
    assert enrollment.provider in letter.pages[0] and enrollment.effective.strftime("%m/%d/%Y") in letter.pages[0]
