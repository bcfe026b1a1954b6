"""Work-queue items seeded from the chart: open orders needing auth and services performed
without it (Prior Auth), claims with a denied line or flagged for a low payment (Denials), open
DME orders (DME).

Due dates follow how these desks run: a PA must be done a few days before the
service, an appeal well before the payer's deadline, a DME referral within two weeks.
About a third of the items are already assigned, spread over the desk's staff.
"""
from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.clock import DEFAULT_NOW
from admindesk.envs.ehr_web import models as m, models_work as w
from admindesk.envs.ehr_web.vocab import (
    LOW_PAYMENT,
    NO_RESPONSE,
    NO_RESPONSE_DAYS,
    NON_DENIAL_CARCS,
    OPEN_ORDER_STATUSES,
    OVERPAYMENT_RECOVERY,
)

PA_STAFF = ("coordinator", "mreyes")
DENIAL_STAFF = ("tnguyen", "rwhitman")
# The first item of a queue (a task's own item: its case is seeded alone) goes to whoever works
# the desk, the signed-in coordinator, never to a colleague.
DME_STAFF = ("coordinator", "kbrooks")
RESOLVED_AFTER_DAYS = 240
FOLLOW_UP_DAYS = 5
# The desk checks on an appeal it filed a month later (a case's appeals on file; the world has none).
APPEAL_FOLLOW_UP_DAYS = 30
# Charge review finds a service performed without the authorization it needed this many days
# after the date of service, and holds the charge until the desk has worked it.
CHARGE_REVIEW_DAYS = 2


def _assignee(index: int, staff: tuple[str, ...]) -> str | None:
    """Every third item is assigned, alternating over the desk's staff."""
    return staff[(index // 3) % len(staff)] if index % 3 == 0 else None


def seed_work_queues(session: Session, world) -> None:
    """Add the queue items in a stable order: PA, then Denials, then DME."""
    auth_status = {a.order_id: a.status for a in session.scalars(select(m.OrderAuthorization))}
    payer_of = {c.id: c.payer_id for c in world.coverages}
    open_orders = [o for o in world.orders if o.status in OPEN_ORDER_STATUSES]

    anchor = DEFAULT_NOW.date()
    for index, order in enumerate(o for o in open_orders if o.needs_auth):
        assignee = _assignee(index, PA_STAFF)
        submitted = auth_status.get(order.id) == "Submitted - Pending"
        status = "Submitted - Pending" if submitted else ("In Progress" if assignee and index % 2 else "New")
        # A DME rental's recorded trial approval is done PA work (the DME desk works the continued
        # coverage); another recorded approval stays open, since changing it is the PA desk's work.
        if order.category == "dme" and auth_status.get(order.id) == "Approved":
            status = "Auth Obtained"
        lead = 2 if order.priority == "Urgent" else 5
        # A coordinator waiting on the payer sets a date to check back: the item is deferred till then.
        follow_up = anchor + timedelta(days=FOLLOW_UP_DAYS) if submitted and index % 2 == 0 else None
        session.add(w.WorkItem(queue="Prior Auth", mrn=order.mrn, order_id=order.id,
                               payer_id=payer_of.get(order.coverage_id), status=status, priority=order.priority,
                               assignee=assignee, due_date=max(order.ordered_on + timedelta(days=1),
                                                               order.planned_date - timedelta(days=lead)),
                               created_on=order.ordered_on, follow_up_date=follow_up))
    _seed_worked_items(session, world, auth_status, payer_of)
    _seed_retro_items(session, world, auth_status, payer_of)

    remittances = {r.claim_number: r for r in world.remittances}
    denied = [c for c in world.claims if c.claim_number in remittances and (c.payment_review or c.recoupment or any(
        line.paid == 0 and any(a.carc not in NON_DENIAL_CARCS for a in line.adjustments) for line in c.lines))]
    # The latest appeal the desk filed on each claim (oldest filing first in world.appeals).
    filed = {appeal.claim_number: appeal for appeal in world.appeals}
    for index, claim in enumerate(denied):
        remit = remittances[claim.claim_number]
        # A recovery is worked from its notice, before the payer offsets it.
        created = claim.recoupment.notice_on if claim.recoupment else remit.paid_on
        due = (claim.recoupment.dispute_by if claim.recoupment else remit.appeal_deadline) - timedelta(days=14)
        # Denials remitted long ago were worked back then; the queue keeps them as closed history.
        worked = created < anchor - timedelta(days=RESOLVED_AFTER_DAYS)
        appeal = filed.get(claim.claim_number)
        session.add(w.WorkItem(queue="Denials", mrn=claim.mrn, order_id=claim.order_id,
                               claim_number=claim.claim_number, payer_id=claim.payer_id,
                               status="Appeal Filed" if appeal else ("Resolved" if worked else "New"),
                               priority="Urgent" if due <= anchor + timedelta(days=30) else "Routine",
                               assignee=_assignee(index, DENIAL_STAFF), due_date=max(due, created),
                               created_on=created, review_reason=_review_reason(claim),
                               **(_appeal_fields(appeal) if appeal else {})))

    # Accounts-receivable follow-up: claims the payer has not answered (a case's; the world's
    # pending claims are recent enough to wait).
    for claim in (c for c in world.claims if c.no_response):
        created = claim.submitted_on + timedelta(days=NO_RESPONSE_DAYS)
        session.add(w.WorkItem(queue="Denials", mrn=claim.mrn, order_id=claim.order_id,
                               claim_number=claim.claim_number, payer_id=claim.payer_id, status="New",
                               priority="Routine", assignee=None,
                               due_date=created + timedelta(days=14), created_on=created, review_reason=NO_RESPONSE))

    for index, order in enumerate(o for o in open_orders if o.category == "dme"):
        assignee = _assignee(index, DME_STAFF)
        session.add(w.WorkItem(queue="DME", mrn=order.mrn, order_id=order.id,
                               payer_id=payer_of.get(order.coverage_id),
                               status="In Progress" if assignee and index % 2 else "New",
                               priority=order.priority, assignee=assignee,
                               due_date=order.ordered_on + timedelta(days=14), created_on=order.ordered_on))


def _review_reason(claim) -> str | None:
    """Why a Denials item holds a paid claim (None for a denial)."""
    if claim.recoupment:
        return OVERPAYMENT_RECOVERY
    return LOW_PAYMENT if claim.payment_review else None


def _appeal_fields(appeal) -> dict:
    """What the desk recorded on a denial item when it filed the appeal: the payer's reference,
    the filing date and when to look again."""
    return {"appeal_reference": appeal.reference, "appeal_submitted_on": appeal.filed_on,
            "follow_up_date": appeal.filed_on + timedelta(days=APPEAL_FOLLOW_UP_DAYS),
            "updated_at": datetime.combine(appeal.filed_on, time(11, 0)), "updated_by": DENIAL_STAFF[0]}


def _seed_worked_items(session: Session, world, auth_status: dict, payer_of: dict) -> None:
    """The desk's history: items for orders already performed, closed when their work was done
    (auth obtained, or the supplier confirmed the DME order)."""
    done = [o for o in world.orders if o.status == "Completed"]
    for order in done:
        if order.needs_auth and auth_status.get(order.id) == "Approved":
            queue, status = "Prior Auth", "Auth Obtained"
        elif order.category == "dme":
            queue, status = "DME", "Supplier Confirmed"
        else:
            continue
        session.add(w.WorkItem(queue=queue, mrn=order.mrn, order_id=order.id,
                               payer_id=payer_of.get(order.coverage_id), status=status, priority=order.priority,
                               assignee=(PA_STAFF if queue == "Prior Auth" else DME_STAFF)[1],
                               due_date=order.ordered_on + timedelta(days=5), created_on=order.ordered_on))


def _seed_retro_items(session: Session, world, auth_status: dict, payer_of: dict) -> None:
    """Services performed without the authorization they needed and not billed yet: charge
    review sends each back to the Prior Auth desk, where the payer's retro-authorization rule
    decides what can still be done. (The world's performed services were all billed, so only
    a case brings one.)"""
    billed = {claim.order_id for claim in world.claims}
    for order in world.orders:
        if not (order.status == "Completed" and order.needs_auth and order.id not in billed
                and auth_status.get(order.id) == "Not Started"):
            continue
        flagged = order.planned_date + timedelta(days=CHARGE_REVIEW_DAYS)
        session.add(w.WorkItem(queue="Prior Auth", mrn=order.mrn, order_id=order.id,
                               payer_id=payer_of.get(order.coverage_id), status="New", priority="Urgent",
                               assignee=PA_STAFF[0], due_date=flagged + timedelta(days=1), created_on=flagged))
