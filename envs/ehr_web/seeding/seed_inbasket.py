"""The in-basket a revenue-cycle desk opens every morning, drawn from the chart's records:
payer letters on authorizations (approved, denied, pended with what the payer asked for),
remittance notices of denied claims, and staff messages about the work items due soon.

Messages older than two weeks were worked back then and are Done; recent ones are
unread, every third already read. Dates are anchored like the work queues (seed_queues).
"""
from __future__ import annotations

from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.clock import DEFAULT_NOW
from admindesk.envs.ehr_web import models as m, models_work as w
from admindesk.envs.ehr_web.models_desk import PAYER_CORRESPONDENCE, STAFF_MESSAGE, InBasketMessage
from admindesk.envs.ehr_web.seeding.seed_queues import DENIAL_STAFF, PA_STAFF
from admindesk.envs.ehr_web.vocab import NO_RESPONSE

WORKED_AFTER_DAYS = 14
# Payer correspondence older than this is not kept in the in-basket (it is in the chart).
KEPT_DAYS = 120
SUPERVISOR = "Leena Patel"
DUE_SOON_DAYS = 10
LETTER_WORDING = {
    "Approved": ("Authorization approved", "The request below has been approved. Authorization number {auth} "
                 "covers {units} unit(s) of {code} from {start} through {end}. Services outside these dates or "
                 "above these units need a new request. This letter is not a guarantee of payment; benefits are "
                 "subject to eligibility on the date of service."),
    "Partially Approved": ("Authorization partially approved", "The request below has been approved in part. "
                           "Authorization number {auth} covers {units} unit(s) of {code} from {start} through {end} "
                           "(requested: {requested_units} unit(s) of {requested_code}). The ordering provider may "
                           "request a peer-to-peer review or appeal the part not approved. Reference case {case}."),
    # The peer-to-peer window is the payer's own rule (its portal says it); the appeal window is
    # the payer's timely-appeal days.
    "Denied": ("Adverse determination", "The request below has been denied. Reason: {reason} You may request a "
               "peer-to-peer review, or file an appeal within {appeal_days} days of this notice. Reference case "
               "{case} in all correspondence."),
    "Pended": ("Additional information requested", "The request below is pended for clinical review. Please send: "
               "{items}. If the information is not received within 14 days the request will be reviewed as "
               "submitted. Reference case {case}."),
}


def _status(received: datetime, index: int) -> str:
    if received < DEFAULT_NOW - timedelta(days=WORKED_AFTER_DAYS):
        return "Done"
    return "Read" if index % 3 == 2 else "Unread"


def _message(index: int, **fields) -> InBasketMessage:
    message = InBasketMessage(**fields)
    message.status = _status(message.received_at, index)
    if message.status == "Done":
        message.done_at, message.done_by = message.received_at + timedelta(hours=3), message.recipient or "mreyes"
    return message


def _authorization_letters(session: Session, world, mrns: set[str]) -> list[InBasketMessage]:
    letters = []
    oldest = DEFAULT_NOW.date() - timedelta(days=KEPT_DAYS)
    auths = sorted((a for a in world.authorizations if a.mrn in mrns and a.status in LETTER_WORDING),
                   key=lambda a: (a.start, a.case_number))
    for index, auth in enumerate(a for a in auths if oldest <= min(a.start, DEFAULT_NOW.date())):
        subject, body = LETTER_WORDING["Partially Approved" if auth.modified else auth.status]
        payer = session.get(m.Payer, auth.payer_id)
        received = datetime.combine(min(auth.start, DEFAULT_NOW.date() - timedelta(days=1)), time(7, 40 + index % 20))
        text = body.format(auth=auth.auth_number, units=auth.granted_units, code=auth.granted_code,
                           requested_units=auth.units, requested_code=auth.code, start=auth.start.strftime("%m/%d/%Y"),
                           end=auth.end.strftime("%m/%d/%Y"), case=auth.case_number,
                           reason=auth.decision_reason or "Criteria not met.", appeal_days=payer.timely_appeal_days,
                           items="; ".join(auth.requested_items) or "current clinical notes")
        letters.append(_message(
            index, folder=PAYER_CORRESPONDENCE, recipient=PA_STAFF[index % len(PA_STAFF)], sender=payer.name,
            received_at=received, subject=f"{subject}: {auth.code} (case {auth.case_number})",
            body=f"Member ID {auth.member_id}. {text}", mrn=auth.mrn, order_id=auth.order_id))
    return letters


def _remittance_notices(session: Session, mrns: set[str]) -> list[InBasketMessage]:
    notices = []
    oldest = DEFAULT_NOW.date() - timedelta(days=KEPT_DAYS)
    items = session.scalars(select(w.WorkItem).where(w.WorkItem.queue == "Denials", w.WorkItem.created_on >= oldest,
                                                     w.WorkItem.mrn.in_(mrns), w.WorkItem.review_reason.is_distinct_from(NO_RESPONSE))
                            .order_by(w.WorkItem.created_on, w.WorkItem.id))
    for index, item in enumerate(items):
        claim, remit = item.claim, item.claim.remittance
        received = datetime.combine(remit.paid_on, time(6, 15))
        # A low-payment item's claim was paid in full on every line: its advice reports the payment.
        outcome, detail = (("paid", "Every line was paid; see the remittance for the adjustments.") if item.review_reason
                           else ("denied", "One or more lines were denied; see the remittance for the adjustment codes."))
        notices.append(_message(
            index, folder=PAYER_CORRESPONDENCE, recipient=DENIAL_STAFF[index % len(DENIAL_STAFF)],
            sender=claim.payer.name, received_at=received,
            subject=f"Remittance advice: claim {claim.claim_number} {outcome}",
            body=(f"Check/EFT {remit.check_number} dated {remit.paid_on:%m/%d/%Y} paid {remit.paid_amount:,.2f} on "
                  f"claim {claim.claim_number} (billed {claim.total_charge:,.2f}, date of service "
                  f"{claim.service_date:%m/%d/%Y}). {detail} Appeals must be received by "
                  f"{remit.appeal_deadline:%m/%d/%Y}."),
            mrn=claim.mrn, claim_number=claim.claim_number))
    return notices


def _overpayment_notices(session: Session, world, mrns: set[str]) -> list[InBasketMessage]:
    """Payers' overpayment notices, as the mailroom logs them for the whole desk (no recipient)."""
    notices = []
    for index, claim in enumerate(c for c in world.claims if c.recoupment is not None and c.mrn in mrns):
        notice, payer = claim.recoupment, session.get(m.Payer, claim.payer_id)
        notices.append(_message(
            index, folder=PAYER_CORRESPONDENCE, recipient=None, sender=payer.name,
            received_at=datetime.combine(notice.notice_on, time(9, 5)),
            subject=f"Overpayment notice: claim {claim.claim_number}",
            body=(f"{payer.name} will recover {notice.amount:,.2f} paid on claim {claim.claim_number} (date of "
                  f"service {claim.service_date:%m/%d/%Y}) as a duplicate of claim {notice.duplicate_of}, by offset "
                  f"against payments on or after {notice.dispute_by:%m/%d/%Y} unless the office disputes it by "
                  f"then. The full notice is in the payer's portal correspondence."),
            mrn=claim.mrn, claim_number=claim.claim_number))
    return notices


def _staff_messages(session: Session, mrns: set[str]) -> list[InBasketMessage]:
    """The supervisor's nudges about assigned items due within DUE_SOON_DAYS of today."""
    soon = DEFAULT_NOW.date() + timedelta(days=DUE_SOON_DAYS)
    items = session.scalars(select(w.WorkItem).where(w.WorkItem.mrn.in_(mrns), w.WorkItem.assignee.is_not(None), w.WorkItem.due_date <= soon,
                                                     w.WorkItem.due_date >= DEFAULT_NOW.date() - timedelta(days=3),
                                                     w.WorkItem.status.not_in(("Resolved", "Supplier Confirmed")))
                            .order_by(w.WorkItem.due_date, w.WorkItem.id))
    messages = []
    for index, item in enumerate(items):
        about = f"order {item.order_id}" if item.order_id else f"claim {item.claim_number}"
        received = DEFAULT_NOW - timedelta(hours=2 + 5 * index)
        messages.append(_message(
            index, folder=STAFF_MESSAGE, recipient=item.assignee, sender=SUPERVISOR, received_at=received,
            subject=f"{item.queue} item {item.id} due {item.due_date:%m/%d}",
            body=(f"Hi, {item.queue} item {item.id} for {item.patient.full_name} ({about}) is due "
                  f"{item.due_date:%m/%d/%Y} and is still {item.status}. Please work it today or set a follow-up "
                  f"date with a note on where it stands. Thanks, Leena"),
            mrn=item.mrn, order_id=item.order_id, claim_number=item.claim_number))
    return messages


def seed_inbasket(session: Session, world) -> None:
    """Add the in-basket messages of the world's patients (after the work queues are seeded)."""
    mrns = {p.mrn for p in world.patients}
    # Queue items of another world (the background world under a case) are not this world's.
    session.add_all(_authorization_letters(session, world, mrns) + _remittance_notices(session, mrns)
                    + _overpayment_notices(session, world, mrns) + _staff_messages(session, mrns))
