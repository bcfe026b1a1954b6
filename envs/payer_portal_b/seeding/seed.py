"""Seed Keystone Mutual's portal from the world: only what this payer's own system holds.

The world's payer with `portal == "b"` is this portal's payer. Its subscribers, claims,
EOBs and authorizations on file are copied; policies, DME requirements, benefits and
announcements come from the YAML files in `data/`.
"""
from __future__ import annotations

from datetime import datetime, time
from pathlib import Path

import yaml
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from admindesk.envs.common.code_sets import seed_code_sets
from admindesk.envs.common.state.seeding import WorldSeed
from admindesk.envs.common.state.sequences import seed_sequences
from admindesk.envs.payer_portal_b import models as m
from admindesk.envs.payer_portal_b.claim_models import AccumulatorVisit, BenefitAccumulator
from admindesk.envs.payer_portal_b.inpatient.models import InpatientCase, InpatientReview
from admindesk.envs.payer_portal_b.numbering import SEQUENCES
from admindesk.envs.payer_portal_b.referral_models import Referral
from admindesk.envs.payer_portal_b.rules.inpatient_rules import is_late
from admindesk.envs.payer_portal_b.rules.recovery_rules import issue_recovery
from admindesk.envs.payer_portal_b.seeding.appeals_on_file import seed_appeals_on_file
from admindesk.envs.payer_portal_b.seeding.seed_history import dme_on_file, seed_history

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
PORTAL_KEY = "b"


def load_yaml(name: str):
    """One of the package's data files."""
    return yaml.safe_load((DATA_DIR / name).read_text(encoding="utf-8"))


def _payer(world):
    return next(p for p in world.payers if p.portal == PORTAL_KEY)


def _reference_data(session: Session, world) -> None:
    """The payer's profile and plans, providers, code sets, policies, announcements."""
    payer = _payer(world)
    session.add(m.PayerProfile(payer_id=payer.id, name=payer.name, payer_code=payer.payer_code,
                               phone=payer.phone, precert_fax=payer.pa_fax, appeals_fax=payer.appeals_fax,
                               appeal_filing_days=payer.timely_appeal_days, allowed_share=payer.allowed_share))
    benefits = load_yaml("benefits.yaml")
    for plan in world.plans:
        if plan.payer_id == payer.id:
            session.add(m.Plan(plan_id=plan.id, name=plan.name, product=plan.product,
                               benefits=benefits[plan.product]))
    session.flush()
    _seed_providers(session, world)
    seed_code_sets(session, world, m.CODE_SET_MODELS)
    _seed_policies(session)
    for index, note in enumerate(load_yaml("announcements.yaml"), start=1):
        session.add(m.Announcement(id=index, **note))
    seed_sequences(session, SEQUENCES)
    session.flush()


def seed_records(session: Session, world) -> None:
    """This payer's subscribers, requests on file, claims, EOBs and appeals among the patients of
    `world` (the background world's, or a task's case as the payer has it)."""
    payer_id = _payer(world).id
    _seed_subscribers(session, world, payer_id)
    session.flush()
    _seed_authorizations(session, world, payer_id)
    _seed_claims(session, world, payer_id)
    session.flush()
    _seed_recoveries(session, world, payer_id)
    _seed_accumulators(session, world, payer_id)
    seed_history(session, world)
    seed_appeals_on_file(session, world, payer_id)
    _seed_referrals(session, world, payer_id)
    _seed_inpatient(session, world, payer_id)
    session.flush()


# A case touches this portal when one of its patients is enrolled with this payer.
seed = WorldSeed(reference=_reference_data, records=seed_records, view="payer",
                 touches=lambda world: any(c.payer_id == _payer(world).id for c in world.coverages))


def _seed_subscribers(session: Session, world, payer_id: str) -> None:
    for coverage in world.coverages:
        if coverage.payer_id != payer_id:
            continue
        patient = world.patient(coverage.mrn)
        session.add(m.Subscriber(
            subscriber_id=coverage.member_id, first_name=patient.first_name, last_name=patient.last_name,
            dob=patient.dob, sex=patient.sex, plan_id=coverage.plan_id, group_number=coverage.group_number,
            policy_holder=coverage.subscriber_name, relationship=coverage.relationship,
            effective=coverage.effective, termination=coverage.termination, pcp_npi=coverage.pcp_npi,
            address=f"{patient.address}, {patient.city}, {patient.state} {patient.zip}"))


def _seed_providers(session: Session, world) -> None:
    for provider in world.providers:
        session.add(m.Provider(npi=provider.npi, name=provider.display_name, kind="Individual",
                               specialty=provider.specialty, phone=provider.phone, fax=provider.fax,
                               network_status="In Network"))
    for facility in world.facilities:
        session.add(m.Provider(npi=facility.npi, name=facility.name, kind="Organization",
                               specialty=f"Place of service {facility.place_of_service}",
                               phone=facility.phone, fax=facility.fax, network_status="In Network"))
    for supplier in world.suppliers:
        session.add(m.Supplier(npi=supplier.npi, name=supplier.name, phone=supplier.phone, fax=supplier.fax))


def _seed_policies(session: Session) -> None:
    site_of_care: dict[str, str] = {}
    continuation: dict[str, str] = {}
    for policy in load_yaml("policies.yaml"):
        codes = policy.pop("codes")
        # A site-of-care policy governs where another policy's drugs are given, not whether.
        site_of_care.update(dict.fromkeys(policy.pop("site_of_care_codes", ()), policy["policy_number"]))
        # A continuation policy states what renewing another policy's approval of a drug takes.
        continuation.update(dict.fromkeys(policy.pop("continuation_codes", ()), policy["policy_number"]))
        session.add(m.MedicalPolicy(**policy))
        session.flush()
        for code in codes:
            session.add(m.PolicyCode(code=code, policy_number=policy["policy_number"]))
    session.flush()
    for code, policy_number in site_of_care.items():
        session.get(m.PolicyCode, code).site_of_care_policy = policy_number
    for code, policy_number in continuation.items():
        session.get(m.PolicyCode, code).continuation_policy = policy_number
    for requirement in load_yaml("dme_requirements.yaml"):
        test = requirement.pop("test") or (None, None, None)
        session.add(m.DmeRequirement(**requirement, test_field=test[0], test_operator=test[1],
                                     test_threshold=test[2]))


def _seed_authorizations(session: Session, world, payer_id: str) -> None:
    """Requests already on file (made before this portal's history starts) keep their case numbers;
    DME items are listed with the DME requests, everything else with the precertifications."""
    policy_of = dict(session.execute(select(m.PolicyCode.code, m.PolicyCode.policy_number)).all())
    dme_codes = set(session.scalars(select(m.DmeRequirement.code)))
    subscribers = {c.member_id: world.patient(c.mrn) for c in world.coverages if c.payer_id == payer_id}
    for auth in world.authorizations:
        if auth.payer_id != payer_id:
            continue
        if auth.code in dme_codes and auth.order_id:
            session.add(dme_on_file(world, auth, subscribers[auth.member_id].full_name,
                                    _ON_FILE_REASONS[auth.status]))
            continue
        order = world.order(auth.order_id) if auth.order_id else None
        approved = auth.status == "Approved"
        # A modified approval (fewer units or another code) is Keystone's Partially Approved.
        status = "Partially Approved" if approved and auth.modified else auth.status
        reason = (f"Approved in part: {auth.granted_units} unit(s) of {auth.granted_code} (requested "
                  f"{auth.units} of {auth.code})." if status == "Partially Approved" else _ON_FILE_REASONS[auth.status])
        # Requests are decided within days of the order, so the order date stands in.
        decided_at = datetime.combine(order.ordered_on if order else auth.start, time(10, 0))
        session.add(m.PrecertRequest(
            reference_number=auth.case_number, subscriber_id=auth.member_id,
            patient_name=subscribers[auth.member_id].full_name, service_code=auth.code, units=auth.units,
            diagnosis_codes=list(order.diagnosis_codes) if order else [],
            rendering_npi=order.ordering_npi if order else None, referring_npi=None,
            place_of_service=order.place_of_service if order else None, urgency="Standard",
            start_date=auth.start, end_date=auth.end, clinical={}, clinical_summary="",
            contact_name="", contact_phone="", policy_number=policy_of.get(auth.code),
            status=status, decision_reason=reason,
            authorization_number=auth.auth_number if approved else None,
            approved_units=auth.granted_units if approved else None, approved_start=auth.start if approved else None,
            approved_end=auth.end if approved else None, duplicate_of=None, source="On file",
            submitted_by=None, submitted_at=decided_at, updated_at=decided_at))


_ON_FILE_REASONS = {
    "Approved": "Meets medical policy criteria.",
    "Pended": "Additional clinical information requested: office notes documenting the medical necessity.",
    "Denied": "Does not meet medical policy criteria.",
    "Cancelled": "Cancelled at the provider's request.",
}


def _seed_claims(session: Session, world, payer_id: str) -> None:
    # Line and adjustment ids continue after rows already there (a case lands on the world's).
    line_id = session.scalar(select(func.max(m.ClaimLine.id))) or 0
    adjustment_id = session.scalar(select(func.max(m.ClaimAdjustment.id))) or 0
    for claim in world.claims:
        if claim.payer_id != payer_id:
            continue
        patient = world.patient(claim.mrn)
        session.add(m.Claim(
            claim_number=claim.claim_number, subscriber_id=claim.member_id, patient_name=patient.full_name,
            service_date=claim.service_date, billing_npi=claim.billing_npi, rendering_npi=claim.rendering_npi,
            received_on=claim.submitted_on, billed_amount=claim.total_charge, paid_amount=claim.paid_amount,
            status=claim.status, authorization_number=claim.auth_number))
        session.flush()
        for line in claim.lines:
            line_id += 1
            session.add(m.ClaimLine(id=line_id, claim_number=claim.claim_number, line_no=line.line_no,
                                    code=line.code, modifiers=",".join(line.modifiers), units=line.units,
                                    billed=line.charge, paid=line.paid,
                                    diagnosis_codes=",".join(line.diagnosis_codes)))
            for adjustment in line.adjustments:
                adjustment_id += 1
                session.add(m.ClaimAdjustment(id=adjustment_id, claim_number=claim.claim_number,
                                              line_no=line.line_no, group_code=adjustment.group,
                                              carc=adjustment.carc, rarc=adjustment.rarc,
                                              amount=adjustment.amount))
        remittance = world.remittance_for(claim.claim_number)
        if remittance is not None:
            session.add(m.ExplanationOfBenefits(
                eob_id=remittance.id, claim_number=claim.claim_number, paid_on=remittance.paid_on,
                check_number=remittance.check_number, paid_amount=remittance.paid_amount,
                patient_responsibility=remittance.patient_responsibility,
                appeal_deadline=remittance.appeal_deadline))


def _seed_recoveries(session: Session, world, payer_id: str) -> None:
    """The overpayment notices this payer sent, each with its open recovery."""
    for claim in world.claims:
        if claim.payer_id == payer_id and claim.recoupment is not None:
            notice = claim.recoupment
            issue_recovery(session, session.get(m.Claim, claim.claim_number),
                           first_claim=session.get(m.Claim, notice.duplicate_of), notice_on=notice.notice_on,
                           dispute_by=notice.dispute_by, amount=notice.amount)


def _seed_accumulators(session: Session, world, payer_id: str) -> None:
    """The visit-limit accumulator behind each claim this payer denied as over the limit, and each
    member's therapy visits applied so far."""
    held = [(claim.member_id, claim.benefit_accumulator) for claim in world.claims if claim.payer_id == payer_id]
    held += [(c.member_id, c.therapy_accumulator) for c in world.coverages if c.payer_id == payer_id]
    for member_id, accumulator in held:
        if accumulator is None:
            continue
        row = BenefitAccumulator(subscriber_id=member_id, benefit=accumulator.benefit,
                                 period_start=accumulator.period_start, period_end=accumulator.period_end,
                                 visits_allowed=accumulator.visits_allowed, limit_type=accumulator.limit_type)
        session.add(row)
        session.flush()
        session.add_all(AccumulatorVisit(accumulator_id=row.id, service_date=visit.on, code=visit.code,
                                         provider=visit.provider) for visit in accumulator.counted)


def _seed_referrals(session: Session, world, payer_id: str) -> None:
    """HMO referrals approved before the episode, as this payer holds them."""
    for referral in world.referrals:
        if referral.payer_id != payer_id:
            continue
        session.add(Referral(
            referral_number=referral.number, subscriber_id=referral.member_id,
            patient_name=world.patient(referral.mrn).full_name, referring_npi=referral.referring_npi,
            specialist_npi=referral.specialist_npi, specialty=referral.specialty,
            diagnosis_codes=list(referral.diagnosis_codes), visits=referral.visits, start_date=referral.start,
            end_date=referral.end, status="Approved", source="On file", submitted_by=None,
            submitted_at=datetime.combine(referral.start, time(9, 0))))


def _seed_inpatient(session: Session, world, payer_id: str) -> None:
    """Inpatient admissions notified before the episode, each with its initial review."""
    for notice in world.inpatient_notices:
        if notice.payer_id != payer_id:
            continue
        encounter = next(e for e in world.encounters if e.id == notice.encounter_id)
        summary = (f"{notice.admission_type} admission for {world.codes.icd10[notice.diagnosis_codes[0]].lower()} "
                   f"({notice.diagnosis_codes[0]}) to {encounter.unit}.")
        session.add(InpatientCase(
            case_number=notice.case_number, subscriber_id=notice.member_id,
            patient_name=world.patient(notice.mrn).full_name, admitted_at=notice.admitted_at,
            admission_type=notice.admission_type, facility_npi=world.facility(notice.facility_id).npi,
            attending_npi=notice.attending_npi, admitting_diagnosis=notice.diagnosis_codes[0], clinical_summary=summary,
            notified_at=notice.notified_at, late=is_late(notice.admitted_at, notice.notified_at), status="Approved",
            approved_days=notice.approved_days, next_review_date=notice.next_review, source="On file",
            submitted_by=None))
        session.add(InpatientReview(
            case_number=notice.case_number, kind="Initial review", review_date=notice.notified_at.date(),
            clinical_update=summary, days_requested=0, days_approved=notice.approved_days,
            total_days_approved=notice.approved_days, outcome="Approved",
            next_review_date=notice.next_review, submitted_by=None, submitted_at=notice.notified_at))
