"""A case becomes world records: reserved ids, facts in the text, checks against the world."""
from __future__ import annotations

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.cases import CaseError, build_case
from admindesk.schema.task_model import load_tasks
from tests.cases.examples import TASKS_DIR

RECORD_IDS = {
    "patients": lambda r: [r.mrn], "coverages": lambda r: [r.id, r.member_id, r.group_number],
    "encounters": lambda r: [r.id], "orders": lambda r: [r.id], "documents": lambda r: [r.id],
    "claims": lambda r: [r.claim_number], "remittances": lambda r: [r.id, r.check_number],
    "authorizations": lambda r: [r.auth_number, r.case_number], "faxes": lambda r: [r.id],
}


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture(scope="module")
def built(world):
    return {task.id: (task, build_case(world, task.id, task.case)) for task in load_tasks(TASKS_DIR)}


def ids_of(world) -> set[str]:
    return {value for table, get in RECORD_IDS.items() for record in getattr(world, table) for value in get(record)}


def test_case_ids_never_collide_with_the_world(world, built):
    background = ids_of(world)
    for _task, records in built.values():
        for view in (records.chart, records.payer):
            case_ids = ids_of(view)
            assert case_ids and not case_ids & background


def test_a_case_holds_only_its_own_records_over_the_worlds_reference_data(world, built):
    task, records = built["case-pa-shortfall"]
    assert [p.full_name for p in records.chart.patients] == ["Dana Whitfield"]
    assert records.chart.providers == world.providers and records.chart.codes is world.codes
    assert {o.mrn for o in records.chart.orders} == {records.chart.patients[0].mrn}


def test_the_same_task_gives_the_same_records(world, built):
    task, records = built["case-dme-cpap-stale"]
    assert build_case(world, task.id, task.case) == records


def test_every_fact_is_stated_in_the_documents_text(built):
    for _task, records in built.values():
        for document in records.chart.documents:
            assert document.facts, document.id
            for key, value in document.facts:
                assert value in document.text, (document.id, key, value)


def test_facts_keep_the_worlds_formats(built):
    _task, records = built["case-dme-cpap-stale"]
    psg, f2f, swo = records.chart.documents
    assert psg.fact("ahi") == "22.4" and psg.fact("study_date") == "02/18/2026"
    assert f2f.fact("face_to_face_date") == "03/02/2026"  # a face-to-face states its own date
    assert "BreatheRight Home Medical" in swo.text  # the order's supplier is on the written order


def test_the_payer_view_differs_only_where_the_case_says(built):
    _task, records = built["case-coverage-termed"]
    chart, payer = records.chart.coverages, records.payer.coverages
    assert chart[0].termination is None and str(payer[0].termination) == "2026-09-30"
    assert chart[0].member_id == payer[0].member_id and chart[1] == payer[1]


def test_a_member_id_off_by_one_character_at_the_payer(world, built):
    task, _records = built["case-coverage-termed"]
    data = task.case.model_dump()
    data["coverages"][0].update(member_id="CSH0770123", at_payer={"member_id": "CSH0770128"})
    records = build_case(world, task.id, type(task.case).model_validate(data))
    assert records.chart.coverages[0].member_id == "CSH0770123"
    assert records.payer.coverages[0].member_id == "CSH0770128"


def test_a_member_id_of_the_background_world_is_refused(world, built):
    task, _records = built["case-pa-shortfall"]
    data = task.case.model_dump()
    data["coverages"][0]["at_payer"] = {"member_id": world.coverages[0].member_id}
    with pytest.raises(CaseError, match="case.coverages.0.at_payer.member_id: .* background world"):
        build_case(world, task.id, type(task.case).model_validate(data))


def test_a_lookalike_is_another_patient_with_the_same_name(built):
    _task, records = built["case-lookalike"]
    patient, alike = records.chart.patients
    assert (patient.full_name, alike.full_name) == ("Robert Miller", "Robert Miller Jr")
    assert patient.mrn != alike.mrn and str(alike.dob) == "1981-03-17"
    assert {c.mrn for c in records.chart.coverages} == {patient.mrn, alike.mrn}


def test_the_denied_claim_lacks_the_auth_that_is_on_file(built):
    _task, records = built["case-denial-auth-on-file"]
    (claim,), (auth,), (remit,) = records.chart.claims, records.chart.authorizations, records.chart.remittances
    assert claim.auth_number is None and auth.status == "Approved" and auth.order_id == claim.order_id
    (line,) = claim.lines
    assert [(a.group, a.carc, a.rarc, a.amount) for a in line.adjustments] == [("CO", "197", "N54", 1840.0)]
    assert remit.paid_amount == 0 and str(remit.appeal_deadline) == "2027-03-31"  # Atlas: 180 days


@pytest.mark.parametrize("path,value,message", [
    (("coverages", 0, "payer"), "PYR-XYZ", "case.coverages.0.payer: unknown payer 'PYR-XYZ'"),
    (("orders", 0, "code"), "99999", "case.orders.0.code: service code '99999' is not in the CPT/HCPCS"),
    (("orders", 0, "diagnoses"), ["M54.16", "Q99.999"], "case.orders.0.diagnoses.1: diagnosis 'Q99.999'"),
    (("orders", 0, "ordering_provider"), "Dermatology", "case.orders.0.ordering_provider: 'Dermatology' is neither"),
    (("coverages", 0, "plan"), "PLN-KMH-PPO", "case.coverages.0.plan: PYR-NWH has no plan 'PLN-KMH-PPO'"),
])
def test_a_case_that_does_not_fit_the_world_names_the_field(world, built, path, value, message):
    task, _records = built["case-pa-shortfall"]
    data = task.case.model_dump()
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    with pytest.raises(CaseError) as caught:
        build_case(world, task.id, type(task.case).model_validate(data))
    assert message in str(caught.value)


def with_documents(task, documents: list[dict]):
    data = task.case.model_dump()
    data["documents"] = [*data["documents"], *documents]
    return type(task.case).model_validate(data)


def test_an_addendum_corrects_and_a_contradicting_note_disagrees(world, built):
    task, _records = built["case-pa-shortfall"]
    case = with_documents(task, [
        {"key": "fix", "type": "addendum", "date": "2026-11-12", "author": "Orthopedics", "corrects": "visit",
         "facts": {"conservative_therapy_weeks": 7}, "narrative": "Weeks were miscounted at the visit."},
        {"key": "other", "type": "progress_note", "date": "2026-11-13", "author": "Primary Care",
         "contradicts": "visit", "facts": {"red_flags": "new urinary retention"}}])
    visit, _pt, fix, other = build_case(world, task.id, case).chart.documents
    assert f"document {visit.id}" in fix.text and "Conservative therapy: 7 weeks" in fix.text
    assert fix.order_id == visit.order_id  # an addendum belongs where the note it corrects does
    assert fix.fact("conservative_therapy_weeks") == "7" and visit.fact("conservative_therapy_weeks") == "3"
    assert other.fact("red_flags") != visit.fact("red_flags")


def test_a_contradiction_that_agrees_is_refused(world, built):
    task, _records = built["case-pa-shortfall"]
    case = with_documents(task, [{"key": "other", "type": "progress_note", "date": "2026-11-13",
                                  "author": "Primary Care", "contradicts": "visit", "facts": {"red_flags": "none"}}])
    with pytest.raises(CaseError, match="case.documents.2.contradicts: must state a fact"):
        build_case(world, task.id, case)


def with_denial(task, documents: list[dict]):
    data = with_documents(task, documents).model_dump()
    data["payer_history"]["requests"] = [{"key": "denied", "order": "mri", "status": "Denied"}]
    return type(task.case).model_validate(data)


def test_a_denial_on_file_quotes_the_criterion_the_order_documents_fail(world, built):
    task, _records = built["case-pa-shortfall"]
    # A later visit's note (no order) is no part of what the payer reviewed.
    later = {"key": "later", "type": "progress_note", "date": "2026-11-14", "author": "Orthopedics",
             "facts": {"conservative_therapy_weeks": 7}}
    (auth,) = build_case(world, task.id, with_denial(task, [later])).payer.authorizations
    assert auth.status == "Denied" and auth.failed_criterion == "conservative_or_red_flag"
    assert auth.decision_reason.startswith("Criteria not met: lumbar MRI requires at least 6 weeks")


def test_a_denial_the_order_documents_do_not_support_is_refused(world, built):
    task, _records = built["case-pa-shortfall"]
    fix = {"key": "fix", "type": "addendum", "date": "2026-11-12", "author": "Orthopedics", "corrects": "visit",
           "facts": {"conservative_therapy_weeks": 7}}
    with pytest.raises(CaseError, match="case.payer_history.requests.0.status: the payer's rules give met"):
        build_case(world, task.id, with_denial(task, [fix]))
