"""Copy what a clearinghouse portal would hold from the world into portal A's tables.

Only the payers served here (`portal == "a"`): their plans, enrollments, the provider
directory, code sets, adjudicated claims with remittances, and the prior-auth requests
already on file (with the letters sent about the recent ones).
"""
from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy.orm import Session

from admindesk.envs.common.code_sets import seed_code_sets
from admindesk.envs.common.state.seeding import WorldSeed
from admindesk.envs.common.state.sequences import seed_sequences
from admindesk.envs.payer_portal_a.letters import determination_letter
from admindesk.envs.payer_portal_a.models import (
    CODE_SET_MODELS,
    Claim,
    ClaimAdjustment,
    ClaimLine,
    Member,
    NetworkEnrollment,
    PaRequest,
    PaServiceLine,
    PaStatusEvent,
    Payer,
    Plan,
    PlanBenefit,
    Provider,
    Remittance,
)
from admindesk.envs.payer_portal_a.numbering import SEQUENCE_STARTS
from admindesk.envs.payer_portal_a.organizations import OUTSIDE_FACILITY
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.benefits import accumulators, benefit_lines
from admindesk.envs.payer_portal_a.rules.determination import PARTIALLY_APPROVED
from admindesk.envs.payer_portal_a.seeding.appeals_on_file import seed_appeals_on_file
from admindesk.envs.payer_portal_a.seeding.seed_answers import answers_from_facts
from admindesk.envs.world import WORLD_ANCHOR
from admindesk.envs.world.org import FACILITY_SERVICES

PORTAL = "a"
# Letters are in the inbox for requests decided within this many days of the world's anchor.
RECENT_LETTER_DAYS = 45


def _reference_data(session: Session, world) -> None:
    """Payers, plans and benefits, the provider directory, code sets, number sequences."""
    policy = load_policy()
    payers = [p for p in world.payers if p.portal == PORTAL]
    payer_ids = {p.id for p in payers}
    for payer in payers:
        session.add(Payer(id=payer.id, name=payer.name, payer_code=payer.payer_code, phone=payer.phone,
                          pa_fax=payer.pa_fax, appeals_fax=payer.appeals_fax,
                          timely_appeal_days=payer.timely_appeal_days))
    session.flush()
    plans = {p.id: p for p in world.plans if p.payer_id in payer_ids}
    for plan in plans.values():
        session.add(Plan(id=plan.id, payer_id=plan.payer_id, name=plan.name, product=plan.product))
    session.flush()
    for plan in plans.values():
        for row in benefit_lines(plan.product, policy, plan.payer_id):
            session.add(PlanBenefit(plan_id=plan.id, **row))
    _seed_directory_and_codes(session, world)
    seed_sequences(session, SEQUENCE_STARTS)
    session.flush()


def _payer_ids(world) -> set[str]:
    return {p.id for p in world.payers if p.portal == PORTAL}


def seed_records(session: Session, world) -> None:
    """Enrollments, claims, requests and appeals on file of this portal's payers, for the patients
    of `world` (the background world's, or a task's case as the payers have it)."""
    payer_ids = _payer_ids(world)
    plans = {p.id: p for p in world.plans if p.payer_id in payer_ids}
    _seed_members(session, world, payer_ids, plans)
    session.add_all(Provider(npi=site.npi, name=site.name, entity_type="Organization", specialty=OUTSIDE_FACILITY,
                             address=f"{site.address}, {site.city}, {site.state} {site.zip}", zip=site.zip,
                             phone=site.phone, fax=site.fax, services="; ".join(site.services),
                             next_available=site.next_available) for site in world.outside_sites)
    session.flush()
    session.add_all(NetworkEnrollment(npi=e.npi, payer_id=e.payer_id, submitted_on=e.submitted_on,
                                      received_on=e.received_on, status=e.status, effective=e.effective,
                                      welcome_letter_on=e.welcome_letter_on)
                    for e in world.provider_enrollments if e.payer_id in payer_ids)
    session.flush()
    _seed_claims(session, world, payer_ids)
    _seed_requests(session, world, payer_ids, load_policy())
    session.flush()
    seed_appeals_on_file(session, world, payer_ids)


# A case touches this portal when one of its patients is enrolled with a payer it serves.
seed = WorldSeed(reference=_reference_data, records=seed_records, view="payer",
                 touches=lambda world: any(c.payer_id in _payer_ids(world) for c in world.coverages))


def _seed_members(session: Session, world, payer_ids: set[str], plans: dict) -> None:
    for coverage in world.coverages:
        if coverage.payer_id not in payer_ids:
            continue
        patient = world.patient(coverage.mrn)
        session.add(Member(
            coverage_id=coverage.id, member_id=coverage.member_id, payer_id=coverage.payer_id,
            plan_id=coverage.plan_id, first_name=patient.first_name, last_name=patient.last_name,
            dob=patient.dob, sex=patient.sex, group_number=coverage.group_number,
            subscriber_name=coverage.subscriber_name, relationship_to_subscriber=coverage.relationship,
            coverage_rank=coverage.rank, effective=coverage.effective, termination=coverage.termination,
            **accumulators(coverage.member_id, plans[coverage.plan_id].product)))


def _seed_directory_and_codes(session: Session, world) -> None:
    facilities = {f.id: f for f in world.facilities}
    for provider in world.providers:
        site = facilities[provider.facility_id]
        session.add(Provider(npi=provider.npi, name=provider.display_name, entity_type="Individual",
                             specialty=provider.specialty, address=f"{site.address}, {site.city}, {site.state} {site.zip}",
                             zip=site.zip, phone=provider.phone, fax=provider.fax))
    for site in world.facilities:
        session.add(Provider(npi=site.npi, name=site.name, entity_type="Organization", specialty="Facility",
                             address=f"{site.address}, {site.city}, {site.state} {site.zip}", zip=site.zip,
                             phone=site.phone, fax=site.fax, services="; ".join(FACILITY_SERVICES.get(site.id, ()))))
    seed_code_sets(session, world, CODE_SET_MODELS)


def _first_accepted(claim):
    """The day the payer's front end first accepted the claim, when the case gives its clearinghouse history."""
    return next((s.transmitted_on for s in claim.submissions if not s.rejection), None)


def _seed_claims(session: Session, world, payer_ids: set[str]) -> None:
    facilities = {f.id: f for f in world.facilities}
    for claim in world.claims:
        if claim.payer_id not in payer_ids:
            continue
        patient = world.patient(claim.mrn)
        session.add(Claim(
            claim_number=claim.claim_number, payer_id=claim.payer_id, member_id=claim.member_id,
            coverage_id=claim.coverage_id, patient_name=patient.full_name, patient_dob=patient.dob,
            patient_account_number=claim.mrn, service_date=claim.service_date, billing_npi=claim.billing_npi,
            rendering_npi=claim.rendering_npi, facility_name=facilities[claim.facility_id].name,
            submitted_on=claim.submitted_on, first_accepted_on=_first_accepted(claim), total_charge=claim.total_charge,
            paid_amount=claim.paid_amount, status=claim.status, auth_number=claim.auth_number))
        for line in claim.lines:
            row = ClaimLine(claim_number=claim.claim_number, line_no=line.line_no, code=line.code,
                            modifiers=list(line.modifiers), units=line.units, charge=line.charge, paid=line.paid,
                            diagnosis_codes=list(line.diagnosis_codes))
            session.add(row)
            session.flush()
            for adjustment in line.adjustments:
                session.add(ClaimAdjustment(claim_line_id=row.id, claim_number=claim.claim_number,
                                            line_no=line.line_no, group_code=adjustment.group,
                                            carc=adjustment.carc, rarc=adjustment.rarc, amount=adjustment.amount))
        remittance = world.remittance_for(claim.claim_number)
        if remittance is not None:
            session.add(Remittance(id=remittance.id, claim_number=claim.claim_number, paid_on=remittance.paid_on,
                                   check_number=remittance.check_number, paid_amount=remittance.paid_amount,
                                   patient_responsibility=remittance.patient_responsibility,
                                   appeal_deadline=remittance.appeal_deadline))


def _modified_approval(request: PaRequest, auth, place_of_service: str) -> None:
    """Partially Approved: fewer units on the requested line, or the requested line denied and
    the code the reviewer approved in its place added as the approved line."""
    request.status, request.auth_number = PARTIALLY_APPROVED, auth.auth_number
    request.approved_units, request.approved_start, request.approved_end = auth.granted_units, auth.start, auth.end
    line = request.lines[0]
    if auth.approved_code:
        line.status = "Denied"
        line.decision_reason = (f"{auth.code} is not medically necessary as requested; {auth.approved_code} is "
                                "approved in its place (line 2).")
        request.lines.append(PaServiceLine(
            line_no=2, code=auth.approved_code, units=auth.granted_units, diagnosis_codes=list(line.diagnosis_codes),
            from_date=auth.start, to_date=auth.end, place_of_service=place_of_service, status="Approved",
            decision_reason="Approved by the reviewer in place of the requested code.",
            approved_units=auth.granted_units, approved_start=auth.start, approved_end=auth.end))
        request.decision_reason = f"Approved as {auth.approved_code} in place of the requested {auth.code}."
    else:
        line.status, line.approved_units = "Approved", auth.granted_units
        line.approved_start, line.approved_end = auth.start, auth.end
        line.decision_reason = f"Approved for {auth.granted_units} of the {auth.units} unit(s) requested."
        request.decision_reason = line.decision_reason


def _seed_requests(session: Session, world, payer_ids: set[str], policy) -> None:
    anchor = WORLD_ANCHOR.date()
    coverage_by_member = {c.member_id: c for c in world.coverages}
    facilities = {f.id: f for f in world.facilities}
    for auth in world.authorizations:
        if auth.payer_id not in payer_ids:
            continue
        order = world.order(auth.order_id)
        coverage = coverage_by_member[auth.member_id]
        patient = world.patient(auth.mrn)
        requester = world.provider(order.ordering_npi)
        site = facilities[order.facility_id]
        service = policy.service(auth.code)
        facts: dict[str, str] = {}
        for document in world.documents_for(auth.mrn):
            if document.order_id == order.id:
                facts.update(dict(document.facts))
        submitted = datetime.combine(order.ordered_on, time(10, 30))
        decided = submitted + timedelta(days=1, hours=4)
        # A pend is sent within hours; a decision the next day. The status event and letter carry that time.
        determined = submitted + timedelta(hours=2) if auth.status == "Pended" else decided
        request = PaRequest(
            case_number=auth.case_number, status=auth.status, payer_id=auth.payer_id, coverage_id=coverage.id,
            member_id=auth.member_id, member_name=patient.full_name, member_dob=patient.dob,
            plan_id=coverage.plan_id, requesting_npi=requester.npi, requesting_name=requester.display_name,
            servicing_npi=site.npi, servicing_name=site.name,
            questionnaire=service.questionnaire if service else None,
            answers=answers_from_facts(service.questionnaire, facts) if service else None, attested=True,
            submitted_at=submitted, decided_at=None if auth.status == "Pended" else decided,
            source=auth.channel, created_at=submitted, created_by="payer",
            lines=[PaServiceLine(line_no=1, code=auth.code, units=auth.units, diagnosis_codes=list(order.diagnosis_codes),
                                 from_date=auth.start, to_date=auth.end, place_of_service=order.place_of_service)])
        if auth.status == "Approved" and auth.modified:
            _modified_approval(request, auth, order.place_of_service)
        elif auth.status == "Approved":
            request.auth_number, request.approved_units = auth.auth_number, auth.units
            request.approved_start, request.approved_end = auth.start, auth.end
            request.decision_reason = "Criteria met. The request is approved as shown."
        elif auth.status == "Pended":
            request.missing_items = list(service.required_documents[:1]) if service else ["Clinical notes"]
            request.decision_reason = ("Pended for additional information: " + "; ".join(request.missing_items)
                                       + ". Upload the missing documentation to this case.")
        elif auth.status == "Denied":
            request.decision_reason = _denial_reason(auth, service)
        else:
            request.decision_reason = "Request cancelled by the provider's office."
        request.history = [
            PaStatusEvent(at=submitted, status="Submitted", note="Request received.", username="payer"),
            PaStatusEvent(at=determined, status=request.status, note=request.decision_reason, username="payer")]
        session.add(request)
        session.flush()
        if auth.status == "Pended" or order.ordered_on >= anchor - timedelta(days=RECENT_LETTER_DAYS):
            determination_letter(session, request, determined)


GENERIC_DENIAL = "The documentation submitted does not support medical necessity."


def _denial_reason(auth, service) -> str:
    """The reason the payer wrote on a denial on file: the world's own (it names the
    criterion that failed), else that criterion's wording in this portal's policy."""
    if auth.decision_reason:
        return auth.decision_reason
    failed = next((c for c in (service.criteria if service else ()) if c.id == auth.failed_criterion), None)
    return failed.deny_reason if failed else GENERIC_DENIAL
