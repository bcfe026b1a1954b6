"""Compose drafts and sending: the server-side state behind the compose screen."""
from __future__ import annotations

import hashlib

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import PdfUpload
from admindesk.envs.fax.cover_templates import DEFAULT_TEMPLATE
from admindesk.envs.fax.documents import cover_sheet_pdf
from admindesk.envs.fax.models import (
    OPEN,
    QUEUED,
    SUBMITTED,
    ComposeDraft,
    DirectoryContact,
    DraftAttachment,
    FaxAttachment,
    FaxLine,
    OutboundFax,
)
from admindesk.envs.fax.transmission import queue_event

MAX_ATTACHMENTS = 10


def default_line(session: Session) -> FaxLine:
    """The line new faxes are sent from unless the user picks another."""
    return session.scalars(select(FaxLine).order_by(FaxLine.is_default.desc(), FaxLine.label)).first()


def new_draft(session: Session, owner: str, display_name: str,
              contact: DirectoryContact | None = None) -> ComposeDraft:
    """An empty draft (optionally addressed to a directory contact), added to the session."""
    now = clock.now()
    draft = ComposeDraft(owner=owner, status=OPEN, from_number=default_line(session).number,
                         cover_from=display_name, created_at=now, updated_at=now,
                         to_number="", recipient_name="", cover_to="", cover_re="", urgent=False, comments="",
                         cover_template=DEFAULT_TEMPLATE)
    session.add(draft)
    if contact is not None:
        address_to(draft, contact)
    return draft


def address_to(draft: ComposeDraft, contact: DirectoryContact) -> None:
    """Fill the recipient from a directory entry."""
    draft.to_number, draft.recipient_name, draft.contact_id = contact.fax_number, contact.name, contact.id


def attach(draft: ComposeDraft, upload: PdfUpload) -> DraftAttachment:
    """Add a checked PDF to the draft."""
    attachment = DraftAttachment(**stored_file_values(upload), uploaded_at=clock.now())
    draft.attachments.append(attachment)
    return attachment


def attach_bytes(draft: ComposeDraft, file_name: str, content: bytes, pages: int) -> DraftAttachment:
    """Add a generated PDF (e.g. a received fax being forwarded) to the draft."""
    return attach(draft, PdfUpload(filename=file_name, content=content,
                                   sha256=hashlib.sha256(content).hexdigest(), pages=pages))


def _set_cover(session: Session, fax: OutboundFax) -> None:
    cover = cover_sheet_pdf(fax, session.get(FaxLine, fax.from_number), f"{fax.queued_at:%m/%d/%Y %H:%M}")
    fax.cover_sheet, fax.cover_sha256 = cover, hashlib.sha256(cover).hexdigest()


def send_problems(draft: ComposeDraft) -> dict[str, str]:
    """What still stops the draft from being sent, by form field name."""
    problems = {}
    if not draft.to_number:
        problems["to_number"] = "Enter the fax number to send to."
    if not draft.recipient_name.strip():
        problems["recipient_name"] = "Enter the recipient's name."
    if not draft.cover_from.strip():
        problems["cover_from"] = "Enter who the fax is from."
    if not draft.attachments and not draft.comments.strip():
        problems["attachment"] = "Attach at least one PDF or write comments on the cover sheet."
    return problems


def send(session: Session, draft: ComposeDraft, sent_by: str) -> OutboundFax:
    """Turn a complete draft into a queued send job with a generated cover sheet."""
    now = clock.now()
    fax = OutboundFax(sent_by=sent_by, from_number=draft.from_number, to_number=draft.to_number,
                      recipient_name=draft.recipient_name.strip(), contact_id=draft.contact_id,
                      cover_to=draft.cover_to.strip(), cover_from=draft.cover_from.strip(),
                      cover_re=draft.cover_re.strip(), urgent=draft.urgent, comments=draft.comments.strip(),
                      cover_template=draft.cover_template, total_pages=draft.total_pages, status=QUEUED,
                      queued_at=now, attempts=0)
    _set_cover(session, fax)
    session.add(fax)
    session.flush()
    for position, item in enumerate(draft.attachments, start=1):
        session.add(FaxAttachment(outbound_fax_id=fax.id, position=position, **item.stored_file()))
    session.add(queue_event(fax, now))
    draft.status, draft.outbound_fax_id, draft.updated_at = SUBMITTED, fax.id, now
    return fax


def resend(session: Session, original: OutboundFax, to_number: str, sent_by: str) -> OutboundFax:
    """A new job with the original's cover fields and attachments, to `to_number`."""
    now = clock.now()
    fax = OutboundFax(sent_by=sent_by, from_number=original.from_number, to_number=to_number,
                      recipient_name=original.recipient_name,
                      contact_id=original.contact_id if to_number == original.to_number else None,
                      cover_to=original.cover_to, cover_from=original.cover_from, cover_re=original.cover_re,
                      urgent=original.urgent, comments=original.comments, cover_template=original.cover_template,
                      total_pages=original.total_pages, status=QUEUED, queued_at=now, attempts=0,
                      resend_of=original.id)
    _set_cover(session, fax)
    session.add(fax)
    session.flush()
    for item in original.attachments:
        session.add(FaxAttachment(outbound_fax_id=fax.id, position=item.position, **item.stored_file()))
    session.add(queue_event(fax, now))
    return fax
