"""Keystone's correspondence: each letter is a row in `correspondence` with its PDF."""
from __future__ import annotations

import hashlib
import io
from datetime import date
from typing import Sequence

from pypdf import PdfReader
from sqlalchemy.orm import Session

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import PdfUpload
from admindesk.envs.payer_portal_b.fields import format_phone
from admindesk.envs.payer_portal_b.models import PayerProfile
from admindesk.envs.payer_portal_b.numbering import next_letter_id
from admindesk.envs.payer_portal_b.workflow_models import Correspondence


def issue_letter(session: Session, *, letter_type: str, subscriber_id: str, claim_number: str | None,
                 related_type: str, related_id: str, subject: str, fields: Sequence[tuple[str, str]],
                 body: str, issued_on: date) -> Correspondence:
    """Render the letter on Keystone's letterhead and add its row (caller commits)."""
    payer = session.query(PayerProfile).one()
    letter_id = next_letter_id(session, issued_on)
    content = render_pdf(title=subject, fields=[("Letter ID", letter_id), *fields], body=body,
                         letterhead=f"{payer.name}\nProvider Appeals and Utilization Management\n"
                                    f"Fax {format_phone(payer.appeals_fax)} - Phone {format_phone(payer.phone)}",
                         footer=f"{payer.name} {letter_type}")
    letter = Correspondence(letter_id=letter_id, letter_type=letter_type, subscriber_id=subscriber_id,
                            claim_number=claim_number, related_type=related_type, related_id=related_id,
                            subject=subject, issued_on=issued_on,
                            **stored_file_values(_as_stored(f"{letter_id}_{letter_type.replace(' ', '_')}.pdf",
                                                            content)))
    session.add(letter)
    return letter


def _as_stored(file_name: str, content: bytes) -> PdfUpload:
    return PdfUpload(filename=file_name, content=content, sha256=hashlib.sha256(content).hexdigest(),
                     pages=len(PdfReader(io.BytesIO(content)).pages))
