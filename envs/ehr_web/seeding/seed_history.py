"""Seed the history the chart already holds: each order's authorization rows, units used
against approved authorizations, and the coverage verifications done at check-in.

Rules (deterministic, from the rows seeded before):
- Units used: the units of claim lines billed with the authorization's number for the
  order's code, capped at the approved units.
- Authorization history: a request on file at the payer was submitted on the day it was
  recorded ("Initial", Submitted - Pending, with its case number); an approval then adds
  an "Update" row with the auth number, units and dates as recorded on the order.
- Verification: the front desk verifies coverage when the patient checks in, so a
  coverage in force on the patient's latest visit (on or before the world's anchor day)
  is "Verified - Active" as of that visit; others are "Not Verified". A coverage that
  ended after that visit keeps its old verification: re-verifying is the desk's job. A patient
  who brought a new insurance card to that visit (scanned that day) left check-in with the card
  for Patient Access to register: nothing is verified that day.
"""
from __future__ import annotations

from datetime import datetime, time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from admindesk.envs.common.clock import DEFAULT_NOW
from admindesk.envs.ehr_web import models as m, models_work as w
from admindesk.envs.ehr_web.models_history import AuthorizationEvent, CoverageEvent
from admindesk.envs.ehr_web.vocab import DOCUMENT_KINDS, VERIFICATION_RESULTS

CHECK_IN_STAFF = "frontdesk"
CHECK_IN_TIME = time(7, 45)


def seed_history(session: Session, world) -> None:
    """Fill units used, authorization history and coverage verification of `world`'s
    records (the background world's, or a case's), after their auths and claims."""
    order_ids = [o.id for o in world.orders]
    _units_used(session, order_ids)
    _authorization_history(session, world, order_ids)
    _verifications(session, [c.id for c in world.coverages])


def _auth_rows(session: Session, order_ids: list[str], *conditions) -> list[m.OrderAuthorization]:
    return list(session.scalars(select(m.OrderAuthorization)
                                .where(m.OrderAuthorization.order_id.in_(order_ids), *conditions)
                                .order_by(m.OrderAuthorization.order_id)))


def _units_used(session: Session, order_ids: list[str]) -> None:
    billed = dict(session.execute(
        select(w.Claim.auth_number, func.sum(w.ClaimLine.units))
        .join(w.ClaimLine, w.ClaimLine.claim_number == w.Claim.claim_number)
        .join(m.Order, m.Order.id == w.Claim.order_id)
        .where(w.Claim.auth_number.is_not(None), w.ClaimLine.code == m.Order.code)
        .group_by(w.Claim.auth_number)).all())
    for auth in _auth_rows(session, order_ids, m.OrderAuthorization.auth_number.is_not(None)):
        auth.units_used = min(billed.get(auth.auth_number, 0), auth.approved_units or 0)


def _authorization_history(session: Session, world, order_ids: list[str]) -> None:
    case_numbers = {a.order_id: a.case_number for a in world.authorizations if a.order_id}
    orders = {o.id: o for o in world.orders}
    for auth in _auth_rows(session, order_ids, m.OrderAuthorization.updated_at.is_not(None)):
        order = orders[auth.order_id]
        submitted_at = datetime.combine(order.ordered_on, time(14, 30))
        session.add(AuthorizationEvent(
            order_id=auth.order_id, event="Initial", status="Submitted - Pending", payer_id=auth.payer_id,
            reference_number=case_numbers.get(auth.order_id, auth.reference_number), units_used=0,
            recorded_at=min(submitted_at, auth.updated_at), recorded_by=auth.updated_by,
            note="Request submitted to the payer."))
        if auth.status != "Submitted - Pending":
            session.add(AuthorizationEvent(
                order_id=auth.order_id, event="Update", status=auth.status, payer_id=auth.payer_id,
                auth_number=auth.auth_number, reference_number=auth.reference_number,
                approved_units=auth.approved_units, units_used=auth.units_used, start_date=auth.start_date,
                end_date=auth.end_date, recorded_at=auth.updated_at, recorded_by=auth.updated_by,
                note=f"Payer determination: {auth.status}."))


def _verifications(session: Session, coverage_ids: list[str]) -> None:
    anchor = DEFAULT_NOW.date()
    last_visit = dict(session.execute(select(m.Encounter.mrn, func.max(m.Encounter.encounter_date))
                                      .where(m.Encounter.encounter_date <= anchor).group_by(m.Encounter.mrn)).all())
    new_card = set(session.execute(select(m.Document.mrn, m.Document.document_date)
                                   .where(m.Document.kind == DOCUMENT_KINDS["insurance_card"])).all())
    for coverage in session.scalars(select(m.Coverage).where(m.Coverage.id.in_(coverage_ids))
                                    .order_by(m.Coverage.id)):
        visit = last_visit.get(coverage.mrn)
        if visit is None or not coverage.active_on(visit) or (coverage.mrn, visit) in new_card:
            continue
        coverage.verification_status = VERIFICATION_RESULTS["Active"]
        coverage.verified_on, coverage.verified_by = visit, CHECK_IN_STAFF
        session.add(CoverageEvent(coverage_id=coverage.id, mrn=coverage.mrn, event="Verification",
                                  old_value="Not Verified", new_value=coverage.verification_status,
                                  note="Verified at check-in.", at=datetime.combine(visit, CHECK_IN_TIME),
                                  username=CHECK_IN_STAFF))
