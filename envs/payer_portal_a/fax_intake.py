"""The payers' prior-authorization fax intake: documents faxed in answer to a pend.

A pend letter asks for the documents "in the provider portal ... or by fax to <the payer's
PA fax>". A fax dialed to a payer's `pa_fax` reaches this intake (see common.fax_line),
which works it the way the payer's intake desk would, by fixed rules:
1. It reads every page: the cover sheet and each attached document.
2. The fax belongs to the payer's pended case whose case number is written on it; failing
   that, to the one pended case of the member whose member ID is written on it. Names and
   file names identify nothing (two members may share a last name). No match: the fax is
   logged as unmatched and no case changes.
3. On a pended case, each attached document is filed to the case as additional information
   (the same bytes that were faxed), its type read from the document itself (its "Type:"
   line, else its title), and the case is reviewed again by the rules an upload meets.
   A fax with no document beyond its cover sheet answers nothing: the case stays pended.
4. A case no longer pended gets nothing filed (the fax is logged against it).
Every fax the intake receives is a `fax_intake` row (caller, pages, case, outcome).
"""
from __future__ import annotations

import io
import re
from datetime import datetime

from pypdf import PdfReader
from pypdf.errors import PdfReadError
from sqlalchemy import DateTime, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from admindesk.envs.common import clock
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.fax_line import FaxDelivery, received_document
from admindesk.envs.payer_portal_a.models import Base, PaAttachment, PaRequest, Payer
from admindesk.envs.payer_portal_a.submission import reevaluate_after_documents

INTAKE_USER = "fax intake"
FILED, NOTHING_ATTACHED, NOT_PENDED, UNMATCHED = ("Filed to case", "No documents attached", "Case not pended",
                                                  "No case identified")
# The document's own type (as a chart prints it) -> the payer's document type; first match wins.
DOCUMENT_TYPE_WORDS = (
    ("physical therapy", "Physical therapy notes"), ("pt note", "Physical therapy notes"),
    ("imaging report", "Imaging report"), ("radiology", "Imaging report"),
    ("sleep study", "Sleep study report"), ("lab result", "Lab results"),
    ("medication history", "Medication history"), ("face-to-face", "Face-to-face evaluation"),
    ("written order", "Standard written order"), ("medical necessity", "Letter of medical necessity"),
    ("progress note", "Clinical notes"), ("addendum", "Clinical notes"), ("clinical note", "Clinical notes"),
)
_TYPE_LINE = re.compile(r"^Type:\s*(.+)$", re.MULTILINE)
_TOKEN = re.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)*")


class FaxIntake(Base):
    """One fax received on a payer's PA line, and what the intake did with it."""

    __tablename__ = "fax_intake"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    payer_id: Mapped[str] = mapped_column(String(32))
    caller_number: Mapped[str] = mapped_column(String(10))
    csid: Mapped[str] = mapped_column(String(40))
    received_at: Mapped[datetime] = mapped_column(DateTime)
    documents: Mapped[int] = mapped_column(Integer)
    case_number: Mapped[str | None] = mapped_column(String(24))
    outcome: Mapped[str] = mapped_column(String(32))
    # The document types the intake read, in fax order ("; "-separated).
    document_types: Mapped[str] = mapped_column(Text, default="")


def _text(content: bytes) -> str:
    try:
        return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(content)).pages)
    except (PdfReadError, ValueError, KeyError, TypeError):
        return ""  # an unreadable page tells the intake desk nothing


def document_type(text: str) -> str:
    """The payer's type of a faxed document, from its "Type:" line or else its first line."""
    match = _TYPE_LINE.search(text)
    heading = (match.group(1) if match else text.strip().split("\n", 1)[0]).lower()
    return next((kind for words, kind in DOCUMENT_TYPE_WORDS if words in heading), "Other")


def find_case(session: Session, payer: Payer, text: str) -> PaRequest | None:
    """The payer's case the fax names: by case number, else the member's one pended case."""
    tokens = set(_TOKEN.findall(text.upper()))
    cases = list(session.scalars(select(PaRequest).where(PaRequest.payer_id == payer.id,
                                                         PaRequest.case_number.is_not(None))
                                 .order_by(PaRequest.id)))
    named = [case for case in cases if case.case_number.upper() in tokens]
    if len(named) == 1:
        return named[0]
    pended = [case for case in cases if case.status == "Pended" and case.member_id
              and case.member_id.upper() in tokens]
    return pended[0] if len(pended) == 1 else None


def receive_fax(session: Session, delivery: FaxDelivery) -> bool:
    """The kit's fax receiver: file a fax dialed to a payer's PA line (rules in the docstring)."""
    payer = session.scalars(select(Payer).where(Payer.pa_fax == delivery.to_number).order_by(Payer.id)).first()
    if payer is None:
        return False
    texts = [_text(content) for content in delivery.documents]
    attached = delivery.documents[1:]  # the first document is the cover sheet
    types = [document_type(text) for text in texts[1:]]
    case = find_case(session, payer, "\n".join(texts))
    if case is None:
        outcome = UNMATCHED
    elif case.status != "Pended":
        outcome = NOT_PENDED
    elif not attached:
        outcome = NOTHING_ATTACHED
    else:
        outcome = FILED
        for position, (content, kind) in enumerate(zip(attached, types), start=1):
            name = f"Fax {delivery.received_at:%Y%m%d-%H%M%S} document {position}.pdf"
            case.attachments.append(PaAttachment(
                document_type=kind, stage="Additional information", uploaded_at=clock.now(),
                uploaded_by=INTAKE_USER,
                **stored_file_values(received_document(content, name))))
        session.flush()
    session.add(FaxIntake(payer_id=payer.id, caller_number=delivery.caller_number, csid=delivery.csid,
                          received_at=delivery.received_at, documents=len(attached),
                          case_number=case.case_number if case else None, outcome=outcome,
                          document_types="; ".join(types)))
    if outcome == FILED:
        reevaluate_after_documents(session, case, len(attached), received_by=INTAKE_USER,
                                   how=f"received by fax from {delivery.caller_number}")
    return True
