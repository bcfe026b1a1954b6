"""The outbox's past: the faxes this office sent before the episode, drawn from the inbox.

A payer's determination or request for information answers a prior authorization
request someone faxed to the payer's intake line the morning the order was signed (unless
the request was filed on the payer's portal: then nothing was faxed); a supplier's order
confirmation answers an order packet faxed the day before (when and whether it was resent:
the world's `faxed_request`, after the order and before the answer). So every such received
fax gets the send job it answers, sent from the line the answer came back to, with its cover
sheet, one attachment and a transmission log. Like a real outbox, some first attempts
failed (no answer, busy on every retry, a dropped call, or the payer's retired line) and
were resent: the failed job stays in the Failed folder and its resend, 40 minutes later,
went through. Everything is derived from the faxes' ids and times, so the same world (or
case) always gives the same history.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.documents.pdf import layout_pdf
from admindesk.envs.common.state.kit_models import StaffUser
from admindesk.envs.fax.documents import cover_sheet_pdf
from admindesk.envs.fax.models import (
    ACTIVE,
    DIALING,
    DISCONNECTED,
    FAILED,
    LINE_BUSY,
    QUEUED,
    SENT,
    DirectoryContact,
    FaxAttachment,
    FaxLine,
    OutboundFax,
    TransmissionEvent,
)
from admindesk.envs.fax.numbers import format_fax_number
from admindesk.envs.fax.transmission import DIAL_DELAY, RETRIES, RETRY_INTERVAL, SECONDS_PER_PAGE, retry_note
from admindesk.envs.world.faxes import faxed_request
from admindesk.envs.world.world import World

# Why a first attempt failed, chosen by the fax's number (every third job fails once).
FAILURES = (
    ("No answer: the remote fax did not pick up after 3 attempts.", False),
    ("Line busy: the number was busy on all 3 attempts.", True),
    ("Communication error: the remote fax stopped responding during page 2 (call dropped).", False),
)


@dataclass(frozen=True)
class _Job:
    """One past send: what was sent to whom, when, and whether its first attempt failed
    (and when it was resent)."""

    queued_at: datetime
    resent_at: datetime | None
    line: str
    contact: DirectoryContact
    to_number: str
    template: str
    cover_re: str
    comments: str
    document_title: str
    failure: int | None


def _fax_number(fax_id: str) -> int:
    return int(fax_id.rsplit("-", 1)[1])


def _contact(session: Session, kind: str, sender: str, status: str = ACTIVE) -> DirectoryContact | None:
    """The directory entry of the organization that sent `sender`'s fax."""
    contacts = session.scalars(select(DirectoryContact).where(
        DirectoryContact.contact_type == kind, DirectoryContact.line_status == status)
        .order_by(DirectoryContact.id))
    return next((c for c in contacts if sender.startswith(c.organization)), None)


def _jobs(session: Session, world: World) -> list[_Job]:
    lines = set(session.scalars(select(FaxLine.number)))
    jobs = []
    for fax in world.faxes:
        request = faxed_request(world, fax)
        line = fax.to_number if fax.to_number in lines else None
        if request is None or line is None:
            continue
        if request.kind == "prior_auth":
            contact = _contact(session, "Payer - Prior Authorization", fax.from_name)
            re = title = "Prior authorization request"
            comments = ("Request and supporting clinical documentation enclosed. Please fax the "
                        "determination to the number below.")
        else:
            contact = _contact(session, "DME Supplier", fax.from_name)
            re = title = "DME order packet"
            comments = "Written order and supporting records enclosed. Please confirm with your order number."
        if contact is None:
            continue
        number = _fax_number(fax.id)
        failure = (number // 3) % len(FAILURES) if request.resent_at is not None else None
        jobs.append(_Job(request.queued_at, request.resent_at, line, contact, contact.fax_number, request.kind,
                         re, comments, title, failure))
    return sorted(jobs, key=lambda job: (job.queued_at, job.to_number))


def _attachment(job: _Job, sender: str) -> tuple[str, bytes, int]:
    rendered = layout_pdf(job.document_title, [("To", job.contact.organization), ("From", sender),
                                               ("Date", f"{job.queued_at:%m/%d/%Y}")],
                          "Please see the enclosed documentation. Contact the sender's office with any "
                          "questions about this request.")
    name = f"{job.template.replace('_', '-')}-{job.queued_at:%Y%m%d-%H%M}.pdf"
    return name, rendered.content, len(rendered.pages)


def _log(fax: OutboundFax, failure: int | None) -> list[TransmissionEvent]:
    """Queued, one or three dials, and the result, at the carrier's usual intervals."""
    def event(at: datetime, kind: str, detail: str) -> TransmissionEvent:
        return TransmissionEvent(outbound_fax_id=fax.id, at=at, event=kind, detail=detail)

    to, line = format_fax_number(fax.to_number), format_fax_number(fax.from_number)
    rows = [event(fax.queued_at, QUEUED, f"Queued by {fax.sent_by}: {fax.total_pages} page(s) to {to}")]
    at = fax.queued_at + DIAL_DELAY
    attempts = RETRIES if failure is not None and FAILURES[failure][1] else 1
    for attempt in range(1, attempts + 1):
        rows.append(event(at, DIALING, f"Attempt {attempt} of {RETRIES}: dialing {to} from line {line}"))
        if attempt < attempts:
            retry_at = at + timedelta(seconds=20) + RETRY_INTERVAL
            rows.append(event(at + timedelta(seconds=20), LINE_BUSY, retry_note(attempt, retry_at)))
            at = retry_at
    fax.attempts = attempts
    if fax.status == SENT:
        fax.completed_at = at + timedelta(seconds=SECONDS_PER_PAGE * fax.total_pages)
        rows.append(event(fax.completed_at, SENT, f"{fax.total_pages} page(s) transmitted, remote CSID {to}"))
    else:
        fax.completed_at = at + timedelta(seconds=45 * RETRIES)
        rows.append(event(fax.completed_at, FAILED, fax.failure_reason or ""))
    return rows


def _add_job(session: Session, job: _Job, to_number: str, staff: str, sender: str, status: str,
             reason: str | None, resend_of: int | None, queued_at: datetime, failure: int | None) -> OutboundFax:
    name, content, pages = _attachment(job, sender)
    fax = OutboundFax(sent_by=staff, from_number=job.line, to_number=to_number, recipient_name=job.contact.name,
                      contact_id=job.contact.id if to_number == job.contact.fax_number else None,
                      cover_to=job.contact.name.split(" - ")[-1], cover_from=sender, cover_re=job.cover_re,
                      urgent=False, comments=job.comments, cover_template=job.template, total_pages=1 + pages,
                      status=status, failure_reason=reason, queued_at=queued_at, resend_of=resend_of)
    cover = cover_sheet_pdf(fax, session.get(FaxLine, job.line), f"{queued_at:%m/%d/%Y %H:%M}")
    fax.cover_sheet, fax.cover_sha256 = cover, hashlib.sha256(cover).hexdigest()
    session.add(fax)
    session.flush()
    session.add(FaxAttachment(outbound_fax_id=fax.id, position=1, file_name=name, content=content,
                              sha256=hashlib.sha256(content).hexdigest(), pages=pages, size_bytes=len(content)))
    session.add_all(_log(fax, failure))
    return fax


def seed_outbox_history(session: Session, world: World) -> None:
    """The send jobs that the received faxes of `world` answer, with failed first attempts resent."""
    staff = list(session.execute(select(StaffUser.username, StaffUser.display_name)
                                 .order_by(StaffUser.username)))
    if not staff:
        return
    for index, job in enumerate(_jobs(session, world)):
        username, display_name = staff[index % len(staff)]
        if job.failure is None:
            _add_job(session, job, job.to_number, username, display_name, SENT, None, None, job.queued_at, None)
            continue
        # A payer's retired line still sits next to the current one in the directory.
        retired = _contact(session, job.contact.contact_type, job.contact.organization, DISCONNECTED)
        if retired is not None and job.failure == 0:
            to_number, reason = retired.fax_number, ("Line disconnected: the carrier reports this number is "
                                                     "no longer in service.")
        else:
            to_number, reason = job.to_number, FAILURES[job.failure][0]
        failed = _add_job(session, job, to_number, username, display_name, FAILED, reason, None,
                          job.queued_at, job.failure)
        _add_job(session, job, job.to_number, username, display_name, SENT, None, failed.id,
                 job.resent_at, None)
