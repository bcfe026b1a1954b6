"""The CARC 31 denials of template appeals/member_id_correction hold together: registration billed a
member id the payer does not hold for the patient, the payer holds the patient under another, in force
on the date of service, and files the denied claim under the id billed; each case is decided by a
different fact of the payer's enrollment (a new id and effective date at renewal; a dependent's own
suffix, subscriber and relationship), and each trap is a member of the same payer (a namesake born
another day; the subscriber, whose own id was billed). A case whose payer holds the billed id does not
build: such a denial would have no cause."""
from __future__ import annotations

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.cases import CaseError, build_case
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/member_id_correction"


@pytest.fixture(scope="module")
def denials():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


@pytest.fixture(scope="module")
def built(denials):
    world = build_world()
    return world, {task_id: build_case(world, task_id, task.case) for task_id, task in denials.items()}


def test_the_template_holds_a_renewal_and_a_dependent(denials):
    assert set(denials) == {"appeal-easy-05", "appeal-easy-06"}
    # What the payer's enrollment corrects besides the id: the renewal's date; the dependent's subscriber.
    assert [sorted(t.case.coverages[0].at_payer.model_fields_set) for t in
            (denials["appeal-easy-05"], denials["appeal-easy-06"])] == [
        ["effective", "member_id"], ["member_id", "relationship", "subscriber_name"]]
    for task in denials.values():
        [claim] = task.case.claims
        assert {(a.group, a.carc, a.rarc) for line in claim.lines for a in line.adjustments} == {("CO", "31", "N382")}
        assert task.difficulty == "easy" and task.skills == ["member_id_correction"]


def test_the_payer_holds_the_patient_under_another_id_on_the_date_of_service(denials, built):
    _world, records = built
    for task_id, task in denials.items():
        spec, [claim_spec] = task.case.coverages[0], task.case.claims
        payer = records[task_id].payer
        [member] = [c for c in payer.coverages if c.mrn == payer.patients[0].mrn]
        assert member.member_id == spec.at_payer.member_id != spec.member_id
        assert member.active_on(claim_spec.service_date)
        [claim] = [c for c in payer.claims if c.mrn == member.mrn]
        assert claim.member_id == spec.member_id  # filed under the id billed


def test_each_trap_is_another_member_of_the_same_payer(denials, built):
    _world, records = built
    renewal, dependent = records["appeal-easy-05"].payer, records["appeal-easy-06"].payer
    patient, namesake = renewal.patients[:2]
    assert (namesake.first_name, namesake.last_name) == (patient.first_name, patient.last_name)
    assert namesake.dob != patient.dob
    subscriber = dependent.patients[1]
    [subscriber_coverage] = [c for c in dependent.coverages if c.mrn == subscriber.mrn]
    # The id billed for the patient is the subscriber's own, active at the payer.
    assert subscriber_coverage.member_id == denials["appeal-easy-06"].case.coverages[0].member_id
    assert denials["appeal-easy-06"].case.coverages[0].at_payer.subscriber_name == subscriber.full_name


def test_a_denial_whose_payer_holds_the_billed_id_does_not_build(denials, built):
    world, _records = built
    task = denials["appeal-easy-05"]
    spec = task.case.coverages[0]
    same = task.case.model_copy(update={"coverages": [spec.model_copy(update={"at_payer": None})]})
    with pytest.raises(CaseError, match="a CARC 31 denial needs another id at the payer"):
        build_case(world, task.id, same)
