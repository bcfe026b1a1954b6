"""Tests of the synthetic world: determinism, counts, referential integrity, facts."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import pytest

from admindesk.envs.common.npi import is_valid_npi
from admindesk.envs.world import WORLD_ANCHOR, World, build_world, generate_world

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
DOC_KINDS = {"progress_note", "pt_note", "imaging_report", "sleep_study", "lab_result", "letter",
             "referral", "medication_history", "face_to_face", "written_order"}


@pytest.fixture(scope="module")
def world() -> World:
    return build_world()


def test_same_seed_gives_equal_world():  # its speed: bench/reset_bench.py
    first = generate_world(20261129)
    second = generate_world(20261129)
    assert first == second
    assert [p.mrn for p in first.patients] == [p.mrn for p in second.patients]
    assert build_world() is build_world(20261129)


def test_other_seed_gives_other_world():
    assert generate_world(7).patients != build_world().patients


def test_no_patient_shares_a_clinicians_name(world):
    # Seed 20261129 drew a patient named as its oncologist; a note naming the doctor then read as
    # naming another patient.
    clinicians = {(p.first_name, p.last_name) for p in world.providers}
    assert not [p.mrn for p in world.patients if (p.first_name, p.last_name) in clinicians]


def test_no_note_calls_a_patient_under_bmi_30_obese(world):
    # A play trial stopped on "past medical history notable for obesity" beside a BMI of 24.3.
    contradicted = [doc.id for doc in world.documents
                    if (bmi := re.search(r"BMI (\d+(?:\.\d+)?) kg/m2", doc.text)) and float(bmi.group(1)) < 30
                    and re.search(r"obesity(?! \(resolved)", doc.text)]
    assert not contradicted


def test_counts(world):
    assert len(world.patients) >= 320
    assert len(world.payers) >= 6
    assert len(world.plans) >= 9
    assert len(world.facilities) >= 5
    assert len(world.providers) >= 25
    assert len(world.suppliers) >= 6
    assert len(world.faxes) >= 25
    assert len(world.codes.icd10) >= 150
    assert len(world.codes.procedures) >= 120
    assert len(world.codes.carc) >= 25
    assert len(world.codes.rarc) >= 15
    assert 1.2 <= len(world.orders) / len(world.patients) <= 1.9
    assert 0.6 <= len(world.claims) / len(world.patients) <= 1.1


def test_payer_portals(world):
    portals = Counter(p.portal for p in world.payers)
    assert portals["a"] >= 5 and portals["b"] == 1
    assert {p.payer_id for p in world.plans} == {p.id for p in world.payers}
    for payer in world.payers:
        for number in (payer.phone, payer.pa_fax, payer.appeals_fax):
            assert len(number) == 10 and number.isdigit()
        assert len(payer.payer_code) == 5


def test_required_codes_present(world):
    for code in ("72148", "70553", "73721", "95810", "95811", "E0601", "E1390", "K0001", "E0260",
                 "E0143", "J0135", "J1745", "J2350", "J9312", "A9276", "E2103", "A4239", "J2506", "81162", "81435"):
        assert code in world.codes.procedures, code
    for code in ("4", "16", "18", "29", "50", "96", "97", "109", "119", "151", "167", "197", "204", "236",
                 "242", "252", "11", "22", "27", "31", "45", "55", "56", "59", "181", "182"):
        assert code in world.codes.carc, code
    for code in ("N130", "M127", "N386", "MA130", "N290", "M60"):
        assert code in world.codes.rarc, code
    assert {p.category for p in world.codes.procedures.values()} <= {
        "imaging", "procedure", "drug", "dme", "sleep", "therapy", "lab", "office", "inpatient", "genetic testing"}


def test_unique_ids(world):
    for records, key in ((world.patients, "mrn"), (world.coverages, "id"), (world.encounters, "id"),
                         (world.orders, "id"), (world.documents, "id"), (world.claims, "claim_number"),
                         (world.remittances, "id"), (world.authorizations, "auth_number"),
                         (world.faxes, "id"), (world.providers, "npi"), (world.coverages, "member_id")):
        values = [getattr(r, key) for r in records]
        assert len(values) == len(set(values)), key
    org_faxes = ([p.pa_fax for p in world.payers] + [p.appeals_fax for p in world.payers]
                 + [f.fax for f in world.facilities] + [p.fax for p in world.providers]
                 + [s.fax for s in world.suppliers])
    assert len(org_faxes) == len(set(org_faxes))


def test_npis_are_valid(world):
    assert is_valid_npi("1234567893") and not is_valid_npi("1234567890")
    npis = ([p.npi for p in world.providers] + [f.npi for f in world.facilities]
            + [s.npi for s in world.suppliers])
    assert all(is_valid_npi(n) for n in npis)


def test_coverage_rules(world):
    plans = {p.id: p for p in world.plans}
    anchor = WORLD_ANCHOR.date()
    for patient in world.patients:
        covs = world.coverages_for(patient.mrn)
        assert any(c.rank == 1 for c in covs)
        assert any(c.active_on(anchor) for c in covs), patient.mrn
    for cov in world.coverages:
        assert plans[cov.plan_id].payer_id == cov.payer_id
        assert cov.relationship in ("Self", "Spouse", "Child")
    terminated = [c for c in world.coverages if c.rank == 1 and c.termination and c.termination < anchor]
    assert 0.03 <= len(terminated) / len(world.patients) <= 0.15


def test_referential_integrity(world):
    mrns = {p.mrn for p in world.patients}
    npis = {p.npi for p in world.providers}
    facility_ids = {f.id for f in world.facilities}
    encounters = {e.id: e for e in world.encounters}
    orders = {o.id: o for o in world.orders}
    for enc in world.encounters:
        assert enc.mrn in mrns and enc.provider_npi in npis and enc.facility_id in facility_ids
        assert all(code in world.codes.icd10 for code in enc.diagnosis_codes)
        assert enc.date <= WORLD_ANCHOR.date()
    for order in world.orders:
        assert encounters[order.encounter_id].mrn == order.mrn
        assert world.coverage(order.coverage_id).mrn == order.mrn
        assert order.code in world.codes.procedures
        assert all(code in world.codes.icd10 for code in order.diagnosis_codes)
        assert order.ordering_npi in npis and order.facility_id in facility_ids
        assert order.place_of_service == world.facility(order.facility_id).place_of_service
    for doc in world.documents:
        assert doc.kind in DOC_KINDS
        if doc.order_id:
            assert orders[doc.order_id].mrn == doc.mrn
        if doc.encounter_id:
            assert encounters[doc.encounter_id].mrn == doc.mrn
    for claim in world.claims:
        cov = world.coverage(claim.coverage_id)
        assert (cov.mrn, cov.payer_id, cov.member_id) == (claim.mrn, claim.payer_id, claim.member_id)
        if claim.order_id:
            assert orders[claim.order_id].mrn == claim.mrn
        assert claim.total_charge == pytest.approx(sum(line.charge for line in claim.lines))
    for auth in world.authorizations:
        assert orders[auth.order_id].mrn == auth.mrn
        assert any((c.payer_id, c.member_id) == (auth.payer_id, auth.member_id)
                   for c in world.coverages_for(auth.mrn))


def test_orders_have_supporting_documents(world):
    per_order = Counter(d.order_id for d in world.documents if d.order_id)
    scenario_orders = [o for o in world.orders if o.needs_auth and o.category != "therapy"]
    assert all(1 <= per_order[o.id] <= 4 for o in scenario_orders)


def test_document_facts_are_in_text(world):
    for doc in world.documents:
        assert 150 <= len(doc.text.split()) <= 600, doc.id
        for key, value in doc.facts:
            assert value.lower() in doc.text.lower(), (doc.id, key, value)
    studies = [d for d in world.documents if d.kind == "sleep_study"]
    assert studies and all(f"AHI): {d.fact('ahi')} events/hour" in d.text for d in studies)


def test_facts_vary_across_patients(world):
    weeks = {d.fact("conservative_therapy_weeks") for d in world.documents
             if d.fact("conservative_therapy_weeks")}
    assert {"2", "8"} <= weeks
    ahis = [float(d.fact("ahi")) for d in world.documents if d.kind == "sleep_study"]
    assert min(ahis) < 15 <= max(ahis)


def test_claims_and_remittances(world):
    statuses = Counter(c.status for c in world.claims)
    assert 0.2 <= statuses["Denied"] / len(world.claims) <= 0.4
    carcs = Counter(a.carc for c in world.claims for line in c.lines for a in line.adjustments)
    assert {"197", "50", "16", "97", "29", "45"} <= set(carcs)
    remits = {r.claim_number: r for r in world.remittances}
    for claim in world.claims:
        remit = remits.get(claim.claim_number)
        assert (remit is None) == (claim.status == "Pending")
        if remit:
            payer = world.payer(claim.payer_id)
            assert remit.appeal_deadline == remit.paid_on + timedelta(days=payer.timely_appeal_days)
            assert remit.paid_amount == pytest.approx(claim.paid_amount)
            assert remit.paid_on <= WORLD_ANCHOR.date()
    anchor = WORLD_ANCHOR.date()
    denied = [remits[c.claim_number] for c in world.claims if c.status == "Denied"]
    assert any(r.appeal_deadline < anchor for r in denied) and any(r.appeal_deadline >= anchor for r in denied)


def test_appealable_auth_denials_exist(world):
    auth_orders = {a.order_id for a in world.authorizations if a.status == "Approved"}
    co197 = [c for c in world.claims
             if any(a.carc == "197" for line in c.lines for a in line.adjustments)]
    assert any(c.order_id in auth_orders for c in co197)
    assert any(c.order_id not in auth_orders for c in co197)


def test_staff(world):
    for app in APPS:
        accounts = world.staff_for(app)
        assert 4 <= len(accounts) <= 6
        assert any(a.username == "coordinator" and a.password == "admindesk" for a in accounts)
        assert len({a.username for a in accounts}) == len(accounts)
    assert any("Nurse" in a.role for a in world.staff_for("ehr_web"))


def test_faxes(world):
    kinds = Counter(f.kind for f in world.faxes)
    assert {"determination_letter", "request_for_information", "supplier_confirmation", "misc"} <= set(kinds)
    assert all(f.received_at <= WORLD_ANCHOR for f in world.faxes)
    assert [f.received_at for f in world.faxes] == sorted(f.received_at for f in world.faxes)
    mrns = {p.mrn for p in world.patients}
    assert all(f.mrn is None or f.mrn in mrns for f in world.faxes)


def test_lookups(world):
    patient = world.patients[0]
    assert world.patient(patient.mrn) is patient
    # Equal to a plain filter (in world order), so an empty or partial index would fail.
    assert world.orders_for(patient.mrn) == tuple(o for o in world.orders if o.mrn == patient.mrn)
    assert world.documents_for(patient.mrn) == tuple(d for d in world.documents if d.mrn == patient.mrn)
    assert world.claims_for(patient.mrn) == tuple(c for c in world.claims if c.mrn == patient.mrn)
    assert world.orders_for("no-such-mrn") == ()
    assert world.plan(world.plans[0].id).payer_id == world.payer(world.plans[0].payer_id).id
    assert world.provider(world.providers[0].npi).facility_id == world.facility(world.providers[0].facility_id).id
