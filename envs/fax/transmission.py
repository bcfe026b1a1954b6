"""The simulated carrier: decides, deterministically, whether a queued fax goes through.

Rules, checked in order (the first that matches decides):
1. An area code or exchange starting with 0 or 1 is not a valid North American
   number: Failed, "Invalid number".
2. Premium-rate numbers (area code 900, or exchange 976) are blocked by policy.
3. A number the directory marks Disconnected: Failed, the carrier reports it out of service.
4. The synthetic world draws every real line from the fictional 555-0100..0199 range.
   A number in that range that no one owns (not an active directory entry, not one of
   our own lines, not a number that has faxed us) does not answer: Failed, "No fax tone".
5. Anything else is delivered: Sent.
Timestamps are offsets from the frozen clock, so the same actions give the same log.
Queued jobs go out when the outbox, a job or the inbox is opened; a job delivered to a
DME supplier brings the supplier's reply into the inbox (see supplier_replies).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import (ACTIVE, DISCONNECTED, FAILED, QUEUED, SENT, DirectoryContact, FaxLine,
                     InboundFax, OutboundFax, TransmissionEvent)
from .numbers import format_fax_number
from .supplier_replies import reply_to_order

DIAL_DELAY = timedelta(seconds=12)
SECONDS_PER_PAGE = 35
RETRIES = 3


@dataclass(frozen=True)
class Outcome:
    """What the carrier did with a call: the final status and, if it failed, why."""

    status: str
    reason: str | None = None


def _is_live(session: Session, number: str) -> bool:
    """Someone answers on `number`: an active directory line, one of our lines, or a sender."""
    owners = (select(DirectoryContact.id).where(DirectoryContact.fax_number == number,
                                                DirectoryContact.line_status == ACTIVE),
              select(FaxLine.number).where(FaxLine.number == number),
              select(InboundFax.id).where(InboundFax.from_number == number))
    return any(session.scalar(owner.limit(1)) is not None for owner in owners)


def decide(session: Session, number: str) -> Outcome:
    """The outcome of dialing `number` (10 digits), by the rules in the module docstring."""
    area, exchange, line = number[:3], number[3:6], number[6:]
    if area[0] in "01" or exchange[0] in "01":
        return Outcome(FAILED, "Invalid number: a US area code and exchange cannot start with 0 or 1.")
    if area == "900" or exchange == "976":
        return Outcome(FAILED, "Call blocked: premium-rate (900/976) numbers cannot be dialed from this fax server.")
    disconnected = session.scalar(select(DirectoryContact.name).where(
        DirectoryContact.fax_number == number, DirectoryContact.line_status == DISCONNECTED))
    live = _is_live(session, number)
    if disconnected and not live:
        return Outcome(FAILED, "Line disconnected: the carrier reports this number is no longer in service.")
    if exchange == "555" and 100 <= int(line) <= 199 and not live:
        return Outcome(FAILED, f"No fax tone: the number did not answer as a fax machine after {RETRIES} attempts "
                               "(number not in service).")
    return Outcome(SENT)


def transmit(session: Session, fax: OutboundFax) -> None:
    """Run a queued job through the carrier: log dialing and the result, set the status."""
    if fax.status != QUEUED:
        return
    outcome = decide(session, fax.to_number)
    dialing_at = fax.queued_at + DIAL_DELAY
    session.add(TransmissionEvent(outbound_fax_id=fax.id, at=dialing_at, event="Dialing",
                                  detail=f"Dialing {format_fax_number(fax.to_number)} from line "
                                         f"{format_fax_number(fax.from_number)}"))
    if outcome.status == SENT:
        done_at = dialing_at + timedelta(seconds=SECONDS_PER_PAGE * fax.total_pages)
        detail = f"{fax.total_pages} page(s) transmitted, remote CSID {format_fax_number(fax.to_number)}"
    else:
        done_at = dialing_at + timedelta(seconds=45 * RETRIES)
        detail = outcome.reason or ""
    session.add(TransmissionEvent(outbound_fax_id=fax.id, at=done_at, event=outcome.status, detail=detail))
    fax.status, fax.failure_reason, fax.completed_at = outcome.status, outcome.reason, done_at
    if outcome.status == SENT:
        reply_to_order(session, fax)


def transmit_queued(session: Session) -> int:
    """Process every queued job (the outbox or inbox was opened); returns how many were processed."""
    queued = list(session.scalars(select(OutboundFax).where(OutboundFax.status == QUEUED)
                                  .order_by(OutboundFax.id)))
    for fax in queued:
        transmit(session, fax)
    return len(queued)


def queue_event(fax: OutboundFax, at: datetime) -> TransmissionEvent:
    """The first log row of a job."""
    return TransmissionEvent(outbound_fax_id=fax.id, at=at, event=QUEUED,
                             detail=f"Queued by {fax.sent_by}: {fax.total_pages} page(s) to "
                                    f"{format_fax_number(fax.to_number)}")
