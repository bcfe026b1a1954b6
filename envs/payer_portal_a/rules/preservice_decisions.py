"""Deciding a pre-service appeal: the payer's appeal reviewer applies again, to the
answers on file, the criterion each denied line was denied for.

A line whose denial quoted a criterion of the medical policy, and whose answers meet
every criterion of that service, is overturned (approved as the policy grants, with an
auth number); any other denied line stays denied. Payers whose rules say
`immediate_preservice_appeal` decide at filing; the others decide when the appeal's
decision is due, which the portal settles the first time a page is served at or after
that moment (the clock is frozen per task, so a case sets it by its `now`).
"""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.letters import add_letter
from admindesk.envs.payer_portal_a.lifecycle_models import AuthAppeal
from admindesk.envs.payer_portal_a.models import PaRequest, PaServiceLine, PaStatusEvent
from admindesk.envs.payer_portal_a.policy import condition_holds, load_policy
from admindesk.envs.payer_portal_a.rules.determination import APPROVED, PARTIALLY_APPROVED

OVERTURNED, UPHELD = "Overturned", "Upheld"
DECISION_CATEGORY = "Appeal Decision"


def _overturnable(pa: PaRequest, line: PaServiceLine) -> bool:
    """The line was denied on a criterion of its policy and the answers meet every criterion."""
    service = load_policy().service(line.code)
    if line.decision != "Denied" or service is None or not service.criteria:
        return False
    quoted = line.decision_reason or pa.decision_reason or ""
    denied_on_criterion = any(c.deny_reason in quoted for c in service.criteria)
    return denied_on_criterion and all(condition_holds(c.require, pa.answers or {}) for c in service.criteria)


def _approve(pa: PaRequest, line: PaServiceLine, reference: str) -> None:
    service = load_policy().service(line.code)
    line.status, line.decision_reason = APPROVED, f"Approved on pre-service appeal {reference}."
    line.approved_units = line.units if service.approval_units is None else min(line.units, service.approval_units)
    line.approved_start = line.from_date
    line.approved_end = min(line.to_date, line.from_date + timedelta(days=service.approval_days - 1))


def decide_preservice_appeal(session: Session, appeal: AuthAppeal) -> None:
    """Decide `appeal` now: overturn the lines the criteria support, uphold the rest;
    the appeal, the request, its history and a decision letter record it."""
    pa = appeal.request
    denied = [line for line in pa.lines if line.decision == "Denied"]
    overturned = [line for line in denied if _overturnable(pa, line)]
    for line in overturned:
        _approve(pa, line, appeal.reference_number)
    if overturned:
        pa.status = APPROVED if all(line.decision == APPROVED for line in pa.lines if line.decision != "Not Required") \
            else PARTIALLY_APPROVED
        pa.auth_number = pa.auth_number or numbering.auth_number(session, pa.payer.payer_code)
        first = overturned[0]
        pa.approved_units, pa.approved_start, pa.approved_end = first.approved_units, first.approved_start, first.approved_end
        pa.decision_reason = f"Denial overturned on pre-service appeal {appeal.reference_number}."
        reason = (f"On review, the clinical information on file meets the medical policy criteria for "
                  f"{', '.join(line.code for line in overturned)}. Authorization {pa.auth_number} is issued "
                  f"for {first.approved_units} unit(s), {first.approved_start:%m/%d/%Y} to {first.approved_end:%m/%d/%Y}.")
    else:
        reason = f"The denial is upheld. {pa.decision_reason or ''}".strip()
    appeal.status, appeal.decision, appeal.decision_reason = "Decided", OVERTURNED if overturned else UPHELD, reason
    appeal.decided_at = clock.now()
    pa.history.append(PaStatusEvent(at=clock.now(), status=f"Appeal {appeal.decision.lower()}",
                                    note=f"{appeal.reference_number}: {reason}", username="payer"))
    add_letter(session, pa.payer, pa.member_id, pa.member_name, DECISION_CATEGORY,
               f"Pre-service appeal decision - {appeal.reference_number} - {appeal.decision}",
               f"Decision on the pre-service appeal {appeal.reference_number} of case {pa.case_number}: "
               f"{appeal.decision.upper()}.\n\nReason: {reason}", clock.now(), case_number=pa.case_number)


def settle_due_preservice_appeals(session: Session) -> int:
    """Decide every pre-service appeal still in review whose decision is due; commits.
    Returns how many were decided."""
    due = list(session.scalars(select(AuthAppeal).where(AuthAppeal.status == "In Review",
                                                        AuthAppeal.decision_due_at <= clock.now())
                               .order_by(AuthAppeal.id)))
    for appeal in due:
        decide_preservice_appeal(session, appeal)
    if due:
        session.commit()
    return len(due)
