"""Keystone Mutual's rules for a precertification after it is filed, and for when it may be filed.

- Decision time: an "Urgent" review is due 72 hours after receipt, a "Standard" one 15
  calendar days after receipt.
- Retro-authorization (a first date of service before today): emergent admissions only,
  requested within 2 business days of the admission; anything else is refused.
- Withdraw: a pended request any time; an approved one only before its first approved
  date of service.
- Changes of an approved precertification (never of a denied, withdrawn or expired one):
  an extension moves the last date by at most the policy's approval period, once; a
  date change moves the whole approved span to a new first date (today or later); a
  units increase stays within the code's limit in billing units (drugs: the HCPCS unit,
  so a 560 mg dose of J3262, per 1 mg, is 560 units).
- Peer-to-peer: for a denied request, within 14 calendar days of the denial, before an
  appeal is filed, one at a time, in a slot Keystone offers (next 3 business days). Its
  outcome (Upheld, Overturned) is recorded once the slot time has passed; a scheduled
  review may be withdrawn any time. An overturned peer-to-peer approves the request.

Every refusal is a sentence quoting the rule; nothing is written when one is returned.
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import MedicalPolicy, PolicyCode, PrecertRequest
from admindesk.envs.payer_portal_b.workflow_models import PeerToPeer, PrecertEvent

DECISION_TIME = {"Urgent": timedelta(hours=72), "Standard": timedelta(days=15)}
RETRO_BUSINESS_DAYS = 2
P2P_WINDOW_DAYS = 14
P2P_TIMES = (time(10, 0), time(13, 30), time(16, 0))
P2P_REVIEWERS = ("Dr. Helen Marsh, MD (Medical Director)", "Dr. Raj Patel, MD (Physician Reviewer)",
                 "Dr. Carla Benson, DO (Physician Reviewer)")
CHANGE_TYPES = ("Extension", "Date change", "Units increase")
SLOT_FORMAT = "%Y-%m-%dT%H:%M"
P2P_OUTCOMES = ("Upheld", "Overturned", "Withdrawn")


def decision_due(urgency: str, received: datetime) -> datetime:
    return received + DECISION_TIME[urgency]


def add_business_days(day: date, count: int) -> date:
    while count:
        day += timedelta(days=1)
        if day.weekday() < 5:
            count -= 1
    return day


def retro_problem(start: date, admission_type: str, today: date) -> str | None:
    """Why a request with a first date of service before today is refused (None: accepted or not retro)."""
    if start >= today:
        return None
    if admission_type != "Emergent":
        return ("Keystone Mutual accepts retro-authorization only for emergent admissions; the first date of "
                f"service {start.strftime(DATE_FORMAT)} is in the past.")
    last_day = add_business_days(start, RETRO_BUSINESS_DAYS)
    if today > last_day:
        return (f"Retro-authorization of an emergent admission must be requested within {RETRO_BUSINESS_DAYS} "
                f"business days of the admission on {start.strftime(DATE_FORMAT)} (by "
                f"{last_day.strftime(DATE_FORMAT)}).")
    return None


def unit_limit(session: Session, code: str) -> tuple[int, str]:
    """The most units one request may hold for `code`, and the unit they count (billing unit or service)."""
    link = session.get(PolicyCode, code)
    if link is not None and link.max_billing_units:
        return link.max_billing_units, link.billing_unit or "unit"
    policy = session.get(MedicalPolicy, link.policy_number) if link else None
    return (policy.max_units if policy else 999), "unit"


def withdraw_problem(item: PrecertRequest, today: date) -> str | None:
    if item.status == "Pended":
        return None
    if item.status == "Approved":
        if item.approved_start <= today:
            return (f"An approved precertification can be withdrawn only before its first date of service "
                    f"({item.approved_start.strftime(DATE_FORMAT)}).")
        return None
    return f"Precertification {item.reference_number} is {item.status}; only a pended or approved request can be withdrawn."


def change_problem(session: Session, item: PrecertRequest, change_type: str, today: date, *,
                   new_start: date | None, new_end: date | None, new_units: int | None) -> str | None:
    """Why this change of an approved precertification is refused, or None."""
    if item.status != "Approved":
        return f"Precertification {item.reference_number} is {item.status}; only an approved request can be changed."
    if item.approved_end < today:
        return (f"Authorization {item.authorization_number} expired on {item.approved_end.strftime(DATE_FORMAT)}. "
                "Submit a new precertification request.")
    if change_type == "Extension":
        if new_end is None or new_end <= item.approved_end:
            return f"An extension needs a new last date after {item.approved_end.strftime(DATE_FORMAT)}."
        if _has_event(session, item, "Extension approved"):
            return "Keystone Mutual allows one extension per precertification. Submit a new request."
        policy = session.get(MedicalPolicy, item.policy_number) if item.policy_number else None
        longest = item.approved_end + timedelta(days=policy.approval_days if policy else 60)
        if new_end > longest:
            return f"An extension may run to {longest.strftime(DATE_FORMAT)} at most (one approval period)."
    elif change_type == "Date change":
        if new_start is None or new_start < today:
            return "Enter a new first date of service of today or later."
        if new_start == item.approved_start:
            return "The new first date of service is the one already approved."
    elif change_type == "Units increase":
        limit, unit = unit_limit(session, item.service_code)
        if new_units is None or new_units <= item.approved_units:
            return f"A units increase needs more than the {item.approved_units} units approved."
        if new_units > limit:
            return (f"{new_units} units is over Keystone Mutual's limit of {limit} billing units ({unit}) "
                    f"for {item.service_code}.")
    else:
        return f"Choose one of: {', '.join(CHANGE_TYPES)}."
    return None


def apply_change(item: PrecertRequest, change_type: str, *, new_start, new_end, new_units) -> dict:
    """Change the approval (checked by change_problem first); returns {field: [old, new]}."""
    if change_type == "Extension":
        changes = {"approved_end": [item.approved_end, new_end]}
        item.approved_end = item.end_date = new_end
    elif change_type == "Date change":
        span = item.approved_end - item.approved_start
        changes = {"approved_start": [item.approved_start, new_start], "approved_end": [item.approved_end,
                                                                                       new_start + span]}
        item.approved_start = item.start_date = new_start
        item.approved_end = item.end_date = new_start + span
    else:
        changes = {"approved_units": [item.approved_units, new_units]}
        item.approved_units = item.units = new_units
    return {key: [str(old), str(new)] for key, (old, new) in changes.items()}


def offered_slots(today: date) -> list[tuple[datetime, str]]:
    """Keystone's peer-to-peer slots: three a day over the next 3 business days, each with its reviewer."""
    slots, day = [], today
    for _ in range(3):
        day = add_business_days(day, 1)
        for at in P2P_TIMES:
            slots.append((datetime.combine(day, at), P2P_REVIEWERS[len(slots) % len(P2P_REVIEWERS)]))
    return slots


def slot_choices(today: date) -> list[tuple[str, str]]:
    """The offered slots as (value, label) select options."""
    return [(at.strftime(SLOT_FORMAT), f"{at.strftime(DATE_FORMAT)} {at:%H:%M} with {reviewer}")
            for at, reviewer in offered_slots(today)]


def p2p_problem(session: Session, item: PrecertRequest, today: date, has_appeal: bool) -> str | None:
    if item.status != "Denied":
        return f"Precertification {item.reference_number} is {item.status}; peer-to-peer is offered only for a denial."
    denied_on = item.denied_on or item.updated_at.date()
    if today > denied_on + timedelta(days=P2P_WINDOW_DAYS):
        return (f"Peer-to-peer is available within {P2P_WINDOW_DAYS} calendar days of the denial "
                f"({denied_on.strftime(DATE_FORMAT)}). File a pre-service appeal instead.")
    if has_appeal:
        return "An appeal is already on file for this precertification; the appeal decides it."
    scheduled = session.scalars(select(PeerToPeer).where(PeerToPeer.precert_reference == item.reference_number,
                                                         PeerToPeer.status == "Scheduled")).first()
    if scheduled is not None:
        return f"Peer-to-peer {scheduled.p2p_id} is already scheduled for {scheduled.slot.strftime(DATE_FORMAT + ' %H:%M')}."
    return None


def add_event(session: Session, item: PrecertRequest, event: str, detail: str, actor: str, at: datetime,
              changes: dict | None = None) -> None:
    session.add(PrecertEvent(reference_number=item.reference_number, event=event, detail=detail,
                             changes=changes or {}, actor=actor, at=at))


def _has_event(session: Session, item: PrecertRequest, event: str) -> bool:
    return session.scalars(select(PrecertEvent.id).where(PrecertEvent.reference_number == item.reference_number,
                                                         PrecertEvent.event == event)).first() is not None


def p2p_outcome_problem(review: PeerToPeer, outcome: str, now: datetime) -> str | None:
    """Why this outcome cannot be recorded for the review, or None."""
    if review.status != "Scheduled":
        return f"Peer-to-peer {review.p2p_id} is {review.status}; its outcome is already on file."
    if outcome != "Withdrawn" and now < review.slot:
        return (f"Peer-to-peer {review.p2p_id} is scheduled for {review.slot.strftime(DATE_FORMAT + ' %H:%M')}; "
                "record its outcome after the call.")
    return None
