"""The CO-27 denials of template appeals/coverage_ended: what decides each case is the denying
payer's own enrollment against the date of service, read beside the registration's coverages;
a CO-27 the payer's record contradicts is labelled `eligibility_error` (the audit and the case
builder hold the label to that)."""
from __future__ import annotations

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_world
from admindesk.envs.world.cases.builder import CaseError, build_case
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/coverage_ended"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


@pytest.fixture(scope="module")
def world():
    return build_world()


def _in_force(coverage, day, at_payer=False) -> bool:
    ends = coverage.at_payer.termination if at_payer and coverage.at_payer and coverage.at_payer.termination \
        else coverage.termination
    return coverage.effective <= day and (ends is None or day <= ends)


def test_every_case_is_a_co27_denial_of_a_portal_a_payer(cases):
    assert set(cases) == {"appeal-easy-07", "appeal-medium-01"}
    for task in cases.values():
        [claim] = [c for c in task.case.claims if c.key == "denied"]
        assert claim.status == "Denied" and [a.carc for a in claim.lines[0].adjustments] == ["27"]
        assert "coverage_ended" in task.skills


def test_the_rebill_case_has_exactly_one_other_coverage_in_force_on_the_dos(cases):
    task = cases["appeal-easy-07"]
    [claim] = task.case.claims
    denying = next(c for c in task.case.coverages if c.key == claim.coverage)
    assert not _in_force(denying, claim.service_date, at_payer=True)
    in_force = [c.key for c in task.case.coverages if c.key != claim.coverage and _in_force(c, claim.service_date)]
    assert in_force == ["new_plan"] and "cob" in task.skills


def test_the_reconsideration_case_is_covered_only_by_the_payers_own_record(cases):
    task = cases["appeal-medium-01"]
    [claim] = task.case.claims
    denying = next(c for c in task.case.coverages if c.key == claim.coverage)
    # Registration shows no coverage on the date of service (the trap); the payer's record does.
    assert not any(_in_force(c, claim.service_date) for c in task.case.coverages)
    assert _in_force(denying, claim.service_date, at_payer=True) and claim.eligibility_error


def test_the_audit_flags_an_unlabelled_co27_on_a_covered_date(cases, world):
    task = cases["appeal-medium-01"]
    labelled = build_case(world, task.id, task.case)
    assert not [f for f in audit_world(labelled.view("payer"), task.now.date()).findings
                if f.kind == "coverage_denial_on_active_date"]
    unlabelled = task.case.model_copy(update={"claims": [task.case.claims[0].model_copy(
        update={"eligibility_error": False})]})
    found = audit_world(build_case(world, task.id, unlabelled).view("payer"), task.now.date()).findings
    assert [f.kind for f in found if f.kind == "coverage_denial_on_active_date"]


def test_a_label_the_payers_record_does_not_support_does_not_build(cases, world):
    task = cases["appeal-medium-01"]
    # The payer's record now ends with the registration's, before the date of service.
    case = task.case.model_copy(update={"coverages": [task.case.coverages[0].model_copy(update={"at_payer": None}),
                                                      *task.case.coverages[1:]]})
    with pytest.raises(CaseError, match="eligibility_error"):
        build_case(world, task.id, case)
