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
A job is dialed as soon as it is queued (sent or resent), in that same request; a job
still pending (Retrying after a busy signal) dials again on the next look at the inbox,
the outbox or the job. A job delivered to a DME supplier brings the supplier's reply into
the inbox (see supplier_replies); one delivered to a payer's intake line reaches that
payer (see line_delivery).

The `line_busy` interruption (on only when a task turns it on): the episode's first
dial meets a busy signal. The job is then Retrying, with its attempt count and the
time of the next retry (RETRY_INTERVAL after the busy signal) in its log; the next
view that lets jobs go out dials again, and the rules above decide. "First dial of the
episode" means no busy signal has been logged at or after the job was queued: seeded
history is older than the episode's frozen clock, and every job of an episode is queued
at that clock.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.fax.models import (
    ACTIVE,
    DIALING,
    DISCONNECTED,
    FAILED,
    LINE_BUSY,
    QUEUED,
    RETRYING,
    SENT,
    DirectoryContact,
    FaxLine,
    InboundFax,
    OutboundFax,
    TransmissionEvent,
)
from admindesk.envs.fax.numbers import format_fax_number
from admindesk.envs.fax.supplier_replies import reply_to_order

DIAL_DELAY = timedelta(seconds=12)
SECONDS_PER_PAGE = 35
RETRIES = 3
BUSY_SIGNAL = timedelta(seconds=20)
RETRY_INTERVAL = timedelta(minutes=2)
PENDING = (QUEUED, RETRYING)


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


def _busy_signal_given(session: Session, since: datetime) -> bool:
    return session.scalar(select(TransmissionEvent.id).where(
        TransmissionEvent.event == LINE_BUSY, TransmissionEvent.at >= since).limit(1)) is not None


def retry_note(attempt: int, retry_at: datetime) -> str:
    """What a busy signal's log row (and the job screen) says about the retry."""
    return (f"Line busy \u2014 retrying. Attempt {attempt} of {RETRIES} got a busy signal; "
            f"next retry at {retry_at:%m/%d/%Y %H:%M:%S}.")


def transmit(session: Session, fax: OutboundFax, line_busy: bool = False,
             on_sent: Callable[[OutboundFax], None] | None = None) -> None:
    """Dial a pending job once: log the attempt and its result, set the status.

    `line_busy`: the task turned the busy-line interruption on (see the module docstring);
    `on_sent`: called with a job the carrier delivered (it reaches the dialed machine)."""
    if fax.status not in PENDING:
        return
    dialing_at = fax.next_attempt_at if fax.status == RETRYING and fax.next_attempt_at else fax.queued_at + DIAL_DELAY
    fax.attempts = (fax.attempts or 0) + 1
    session.add(TransmissionEvent(outbound_fax_id=fax.id, at=dialing_at, event=DIALING,
                                  detail=f"Attempt {fax.attempts} of {RETRIES}: dialing "
                                         f"{format_fax_number(fax.to_number)} from line "
                                         f"{format_fax_number(fax.from_number)}"))
    if line_busy and fax.attempts == 1 and not _busy_signal_given(session, fax.queued_at):
        busy_at = dialing_at + BUSY_SIGNAL
        fax.status, fax.next_attempt_at = RETRYING, busy_at + RETRY_INTERVAL
        session.add(TransmissionEvent(outbound_fax_id=fax.id, at=busy_at, event=LINE_BUSY,
                                      detail=retry_note(fax.attempts, fax.next_attempt_at)))
        return
    outcome = decide(session, fax.to_number)
    if outcome.status == SENT:
        done_at = dialing_at + timedelta(seconds=SECONDS_PER_PAGE * fax.total_pages)
        detail = f"{fax.total_pages} page(s) transmitted, remote CSID {format_fax_number(fax.to_number)}"
    else:
        done_at = dialing_at + timedelta(seconds=45 * RETRIES)
        detail = outcome.reason or ""
    session.add(TransmissionEvent(outbound_fax_id=fax.id, at=done_at, event=outcome.status, detail=detail))
    fax.status, fax.failure_reason, fax.completed_at = outcome.status, outcome.reason, done_at
    fax.next_attempt_at = None
    if outcome.status == SENT:
        reply_to_order(session, fax)
        if on_sent is not None:
            on_sent(fax)


def transmit_queued(session: Session, line_busy: bool = False,
                    on_sent: Callable[[OutboundFax], None] | None = None) -> int:
    """Dial every pending job once (the outbox or inbox was opened); returns how many were dialed."""
    pending = list(session.scalars(select(OutboundFax).where(OutboundFax.status.in_(PENDING))
                                   .order_by(OutboundFax.id)))
    for fax in pending:
        transmit(session, fax, line_busy, on_sent)
    return len(pending)


def queue_event(fax: OutboundFax, at: datetime) -> TransmissionEvent:
    """The first log row of a job."""
    return TransmissionEvent(outbound_fax_id=fax.id, at=at, event=QUEUED,
                             detail=f"Queued by {fax.sent_by}: {fax.total_pages} page(s) to "
                                    f"{format_fax_number(fax.to_number)}")
