"""The world audit: clean on the built world, and each inconsistency kind is caught."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, time, timedelta

import pytest

from admindesk.envs.world import WORLD_ANCHOR, build_world
from admindesk.envs.world.audit import KINDS, audit_world, format_report, main
from admindesk.envs.world.faxes import answered_order, faxed_request
from admindesk.envs.world.models import (
    Adjustment,
    BenefitAccumulator,
    ClaimSubmission,
    CountedVisit,
    InpatientNotice,
    ProviderEnrollment,
    Recoupment,
)
from admindesk.envs.world.review_rules import MET, NOT_MET, review
from tests.cases.examples import TASKS_DIR


@pytest.fixture(scope="module")
def world():
    return build_world()


def _swap(world, field: str, old, new):
    """The world with one record of `field` replaced."""
    return replace(world, **{field: tuple(new if r is old else r for r in getattr(world, field))})


def _outcome(world, auth):
    coverage = next(c for c in world.coverages_for(auth.mrn) if c.member_id == auth.member_id)
    facts = {k: v for d in world.documents if d.order_id == auth.order_id for k, v in d.facts}
    return review(auth.code, world.payer(auth.payer_id).portal, world.plan(coverage.plan_id).product, facts,
                  coverage.active_on(auth.start)).outcome


def _auth(world, status, outcome):
    return next(a for a in world.authorizations if a.status == status and a.deliberate_error is None
                and _outcome(world, a) == outcome)


def _paid_claim(world, **where):
    return next(c for c in world.claims if c.status == "Paid" and c.order_id
                and all(getattr(world.order(c.order_id), k) == v for k, v in where.items()))


def _with_first_line_adjustment(claim, adjustment):
    first = replace(claim.lines[0], adjustments=(adjustment,))
    return replace(claim, lines=(first, *claim.lines[1:]))


def _inject(world, kind):
    """(defective world, the record the finding must name) for one inconsistency kind."""
    if kind == "invalid_code":
        order = world.orders[0]
        return _swap(world, "orders", order, replace(order, diagnosis_codes=("G35",))), order.id
    if kind == "auth_contradicts_rules":
        auth = _auth(world, "Approved", MET)
        return _swap(world, "authorizations", auth, replace(auth, status="Denied")), auth.case_number
    if kind == "auth_for_unreviewed_service":
        auth = _auth(world, "Approved", MET)
        return _swap(world, "authorizations", auth, replace(auth, code="93306")), auth.case_number
    if kind == "mislabelled_deliberate_error":
        auth = _auth(world, "Denied", NOT_MET)
        bad = replace(auth, deliberate_error="denied_although_criteria_met")
        return _swap(world, "authorizations", auth, bad), auth.case_number
    if kind == "denial_quotes_wrong_criterion":
        auth = _auth(world, "Denied", NOT_MET)
        bad = replace(auth, decision_reason="Criteria not met: a criterion this service does not have.")
        return _swap(world, "authorizations", auth, bad), auth.case_number
    if kind == "rfi_asks_wrong_records":
        auth = next(a for a in world.authorizations if a.status == "Pended")
        return _swap(world, "authorizations", auth, replace(auth, requested_items=("any records",))), auth.case_number
    if kind == "paid_outside_coverage":
        claim = _paid_claim(world)
        before = world.coverage(claim.coverage_id).effective - timedelta(days=1)
        return _swap(world, "claims", claim, replace(claim, service_date=before)), claim.claim_number
    if kind == "coverage_denial_on_active_date":
        claim = _paid_claim(world)
        bad = _with_first_line_adjustment(claim, Adjustment("CO", "27", None, claim.lines[0].charge))
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "paid_without_required_auth":
        claim = next(c for c in world.claims if c.status == "Paid" and c.auth_number)
        return _swap(world, "claims", claim, replace(claim, auth_number=None)), claim.claim_number
    if kind == "necessity_denial_without_auth":
        claim = next(c for c in world.claims if c.status == "Paid" and c.auth_number and len(c.lines) == 1)
        line = claim.lines[0]
        denied = replace(line, paid=0.0, adjustments=(Adjustment("CO", "50", None, line.charge),))
        return _swap(world, "claims", claim, replace(claim, status="Denied", auth_number=None, lines=(denied,))), \
            claim.claim_number
    if kind == "co197_with_covering_auth":
        # A paid claim whose authorization covers its line, denied as if no authorization were on file.
        approved = {a.auth_number: a for a in world.authorizations if a.status == "Approved"}
        claim = next(c for c in world.claims if c.status == "Paid" and len(c.lines) == 1
                     and (a := approved.get(c.auth_number or "")) and a.code == c.lines[0].code
                     and a.start <= c.service_date <= a.end and c.lines[0].units <= a.units)
        line = claim.lines[0]
        denied = replace(line, paid=0.0, adjustments=(Adjustment("CO", "197", None, line.charge),))
        return _swap(world, "claims", claim, replace(claim, status="Denied", lines=(denied,))), claim.claim_number
    if kind == "dme_not_billed_by_supplier":
        claim = next(c for c in world.claims if c.order_id and world.order(c.order_id).category == "dme")
        bad = replace(claim, billing_npi=world.facility(claim.facility_id).npi)
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "clearinghouse_history_mismatch":
        # A history whose only transmission's report is not in the chart.
        claim = _paid_claim(world)
        sent = ClaimSubmission(claim.submitted_on, "CX-20260101-0001", "X1", None, "DOC-MISSING")
        return _swap(world, "claims", claim, replace(claim, submissions=(sent,))), claim.claim_number
    if kind == "co18_without_original":
        claim = next(c for c in world.claims if c.original_claim_number)
        return _swap(world, "claims", claim, replace(claim, original_claim_number=None)), claim.claim_number
    if kind == "co109_without_responsible_payer":
        # A denial sent to "the payer responsible" for a patient with no other payer's coverage.
        claim = next(c for c in world.claims if c.status == "Denied" and not [
            o for o in world.coverages_for(c.mrn) if o.payer_id != c.payer_id and o.active_on(c.service_date)])
        bad = _with_first_line_adjustment(claim, Adjustment("CO", "109", "N418", claim.lines[0].charge))
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "medicare_remark_on_non_medicare_plan":
        claim = next(c for c in world.claims if c.status == "Denied"
                     and world.plan(world.coverage(c.coverage_id).plan_id).product == "PPO")
        bad = _with_first_line_adjustment(claim, Adjustment("CO", "50", "N386", claim.lines[0].charge))
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "co97_not_bundled":
        claim = _paid_claim(world, category="imaging")
        bad = _with_first_line_adjustment(claim, Adjustment("CO", "97", "N20", claim.lines[0].charge))
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "priced_off_contract":
        # Keystone allows its published share: a line priced $10 lower, the write-off $10 higher.
        claim = next(c for c in world.claims if c.payer_id == "PYR-KMH" and c.paid_amount > 0)
        line = claim.lines[0]
        cut = replace(line, paid=round(line.paid - 10, 2), adjustments=tuple(
            replace(a, amount=round(a.amount + 10, 2)) if a.carc == "45" else a for a in line.adjustments))
        return _swap(world, "claims", claim, replace(claim, lines=(cut, *claim.lines[1:]))), claim.claim_number
    if kind == "recoupment_not_a_duplicate":
        # A recovery naming an earlier paid claim of another patient as the first payment.
        claim = next(c for c in world.claims if c.payer_id == "PYR-KMH" and c.paid_amount > 0)
        other = next(c for c in world.claims if c.mrn != claim.mrn and c.paid_amount > 0)
        notice = Recoupment(duplicate_of=other.claim_number, amount=claim.paid_amount, notice_on=WORLD_ANCHOR.date(),
                            dispute_by=WORLD_ANCHOR.date() + timedelta(days=45), payer_error=False)
        return _swap(world, "claims", claim, replace(claim, recoupment=notice)), claim.claim_number
    if kind == "benefit_limit_miscounted":
        # A visit denied CARC 119 with no accumulator behind the denial.
        claim = next(c for c in world.claims if c.status == "Denied" and c.benefit_accumulator is None)
        bad = _with_first_line_adjustment(claim, Adjustment(group="PR", carc="119", rarc=None,
                                                            amount=claim.lines[0].charge))
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "therapy_visits_inconsistent":
        # A therapy visit applied to a Keystone member's limit a week from now.
        coverage = next(c for c in world.coverages if c.payer_id == "PYR-KMH")
        later = WORLD_ANCHOR.date() + timedelta(days=7)
        accumulator = BenefitAccumulator(benefit="Outpatient rehabilitation", visits_allowed=20,
                                         period_start=later.replace(month=1, day=1),
                                         period_end=later.replace(month=12, day=31),
                                         counted=(CountedVisit(on=later, code="97110", provider="Clinic"),),
                                         payer_error=False, limit_type="Soft")
        return _swap(world, "coverages", coverage, replace(coverage, therapy_accumulator=accumulator)), coverage.id
    if kind == "appeal_deadline_mismatch":
        remit = world.remittances[0]
        bad = replace(remit, appeal_deadline=remit.appeal_deadline + timedelta(days=30))
        return _swap(world, "remittances", remit, bad), remit.claim_number
    if kind == "dated_after_today":
        claim = next(c for c in world.claims if c.status == "Pending")
        bad = replace(claim, submitted_on=WORLD_ANCHOR.date() + timedelta(days=30))
        return _swap(world, "claims", claim, bad), claim.claim_number
    if kind == "unanswered_claim_inconsistent":  # followed up as unanswered with its remittance posted
        claim = next(c for c in world.claims if world.remittance_for(c.claim_number) is not None)
        return _swap(world, "claims", claim, replace(claim, no_response=True)), claim.claim_number
    if kind == "fax_request_before_order":
        fax, order = next((f, o) for f in world.faxes if f.kind == "supplier_confirmation"
                          and (o := answered_order(world, f)) is not None)
        # A confirmation at 01:00 on the order's day answers a packet sent the evening before.
        received = datetime.combine(order.ordered_on, time(1, 0))
        return _swap(world, "faxes", fax, replace(fax, received_at=received)), fax.id
    if kind == "fax_answer_before_request":
        # A letter the day before the order answers a request faxed the morning the order was signed.
        fax, order = next((f, o) for f in world.faxes if f.kind == "determination_letter"
                          and faxed_request(world, f) is not None and (o := answered_order(world, f)))
        received = datetime.combine(order.ordered_on - timedelta(days=1), time(12, 0))
        return _swap(world, "faxes", fax, replace(fax, received_at=received)), fax.id
    if kind == "inpatient_stay_inconsistent":
        # A stay discharged three days from now.
        enc = world.encounters[0]
        stay = replace(enc, kind="Inpatient Admission", admitted_at=datetime.combine(enc.date, time(8, 0)),
                       admission_type="Emergent", unit="5 East", bed="501", disposition="Home",
                       discharged_on=WORLD_ANCHOR.date() + timedelta(days=3))
        return _swap(world, "encounters", enc, stay), enc.id
    if kind == "inpatient_notice_inconsistent":
        # A stay notified with a next review a day later than the admit date plus the days approved.
        encounters = {e.id: e for e in world.encounters}
        order = next(o for o in world.orders if o.coverage_id and encounters[o.encounter_id].date == o.ordered_on)
        enc, coverage = encounters[order.encounter_id], world.coverage(order.coverage_id)
        admitted = datetime.combine(enc.date, time(8, 0))
        days = (WORLD_ANCHOR.date() - enc.date).days + 2
        stay = replace(enc, kind="Inpatient Admission", admitted_at=admitted, admission_type="Emergent",
                       unit="5 East", bed="501")
        notice = InpatientNotice(case_number="KM-I-26-900001", payer_id=coverage.payer_id,
                                 member_id=coverage.member_id, mrn=order.mrn, order_id=order.id,
                                 encounter_id=enc.id, admitted_at=admitted, admission_type="Emergent",
                                 facility_id=order.facility_id, attending_npi=enc.provider_npi,
                                 diagnosis_codes=order.diagnosis_codes, notified_at=admitted + timedelta(hours=20),
                                 approved_days=days, next_review=enc.date + timedelta(days=days + 1))
        defective = replace(_swap(world, "encounters", enc, stay), inpatient_notices=(notice,))
        return defective, notice.case_number
    if kind == "injury_denial_without_accident":
        # A denial for the workers' compensation carrier of a patient registration holds no injury for.
        claim = next(c for c in world.claims if c.status == "Denied")
        return _swap(world, "claims", claim, _with_first_line_adjustment(claim, Adjustment("CO", "19", None, claim.lines[0].charge))), \
            claim.claim_number
    if kind == "injury_report_without_accident":
        # A first report of injury whose date of injury registration does not hold.
        document = world.documents[0]
        report = replace(document, kind="injury_report", facts=(("injury_date", "09/08/2026"),))
        return _swap(world, "documents", document, report), document.id
    if kind == "ndc_denial_not_a_drug":
        # An NDC remark on a line that bills a procedure, not a drug.
        claim = next(c for c in world.claims if c.status == "Denied"
                     and world.codes.procedures[c.lines[0].code].category != "drug")
        return _swap(world, "claims", claim, _with_first_line_adjustment(
            claim, Adjustment("CO", "16", "M119", claim.lines[0].charge))), claim.claim_number
    if kind == "diagnosis_denial_covered":
        # A TSH denied for its diagnosis although the line carries hypothyroidism, which the policy lists.
        claim = next(c for c in world.claims if c.status == "Denied")
        line = replace(claim.lines[0], code="84443", diagnosis_codes=("E03.9",),
                       adjustments=(Adjustment("CO", "167", "N130", claim.lines[0].charge),))
        return _swap(world, "claims", claim, replace(claim, lines=(line, *claim.lines[1:]))), claim.claim_number
    if kind == "enrollment_denial_unexplained":
        # A B7 denial for a clinician with no enrollment on file (so participating with every payer).
        claim = next(c for c in world.claims if c.status == "Denied")
        return _swap(world, "claims", claim, _with_first_line_adjustment(claim, Adjustment("CO", "B7", None, claim.lines[0].charge))), \
            claim.claim_number
    if kind == "enrollment_paid_before_application":
        # A clinician's enrollments on file: every payer since 2000, but the payer of its earliest paid claim
        # logged the application the day after that service.
        claim = min((c for c in world.claims if c.status == "Paid"), key=lambda c: (c.service_date, c.claim_number))
        since = claim.service_date.replace(year=2000)
        enrollments = tuple(ProviderEnrollment(claim.rendering_npi, payer.id, since, since, "Participating", since, None)
                            for payer in world.payers if payer.id != claim.payer_id)
        late = claim.service_date + timedelta(days=1)
        late_one = ProviderEnrollment(claim.rendering_npi, claim.payer_id, late, late, "Participating", late, None)
        return replace(world, provider_enrollments=(*enrollments, late_one)), claim.claim_number
    if kind == "eob_fax_disagrees":
        # The primary's EOB faxed in for a paid claim, stating a cent more than the claim was paid.
        claim = next(c for c in world.claims if c.status == "Paid" and c.lines[0].paid > 0)
        page = (f"Explanation of Benefits\nDate of service: {claim.service_date.isoformat()}   Service: "
                f"{claim.lines[0].code}\nPaid to provider: {sum(line.paid for line in claim.lines) + 0.01:.2f}")
        fax = replace(world.faxes[0], id="FAX-EOB-1", kind="misc", mrn=claim.mrn, pages_text=(page,))
        return replace(world, faxes=(*world.faxes, fax)), fax.id
    raise AssertionError(f"no injection for {kind}")


def test_the_built_world_has_no_inconsistency(world, capsys):
    report = audit_world(world)
    assert report.findings == []
    assert sum(report.counts().values()) == 0 and set(report.counts()) == set(KINDS)
    families = report.family_counts
    assert {"lumbar_mri", "knee_mri", "cpap", "specialty_drug", "office_visit"} <= set(families)
    assert families["lumbar_mri"]["open orders"] > 0 and families["lumbar_mri"]["claims"] > 0
    assert main(["--tasks-dir", str(TASKS_DIR)]) == 0  # the cases' audit: test_case_audit.py
    printed = capsys.readouterr().out
    assert "Total inconsistencies: 0" in printed and "lumbar_mri" in printed


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_inconsistency_kind_is_detected(world, kind):
    defective, record = _inject(world, kind)
    report = audit_world(defective)
    assert [f.record for f in report.findings if f.kind == kind] == [record]
    assert report.counts()[kind] == 1
    assert f"! {kind}" in format_report(report)


def test_the_command_exits_1_and_lists_the_finding_when_anything_is_inconsistent(world, monkeypatch, capsys):
    defective, record = _inject(world, "co18_without_original")
    monkeypatch.setattr("admindesk.envs.world.audit.build_world", lambda seed: defective)
    assert main(["--seed", "1", "--tasks-dir", str(TASKS_DIR)]) == 1
    printed = capsys.readouterr().out
    assert "co18_without_original [" in printed and record in printed and "Total inconsistencies: 1" in printed
