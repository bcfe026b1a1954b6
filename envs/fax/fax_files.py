"""The stored file of a received fax: its PDF rendered once, on arrival, with the kit's
stored-file columns (file_name, content, sha256, pages, size_bytes); and a reply to one of
our jobs filed as a received fax."""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pypdf import PdfReader
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.fax.documents import received_fax_name, received_fax_pdf
from admindesk.envs.fax.models import UNREAD, InboundFax, InboundFaxPage, OutboundFax


class ArrivingFax(Protocol):
    """What a received fax's file is made from (the world's InboundFax has these fields)."""

    id: str
    csid: str
    from_number: str
    received_at: datetime
    pages_text: tuple[str, ...]


def received_fax_file(fax: ArrivingFax) -> dict:
    """The stored-file column values of a fax, as keyword arguments for `InboundFax`."""
    content = received_fax_pdf(fax.id, fax.csid, fax.from_number, fax.received_at, fax.pages_text)
    return {"file_name": received_fax_name(fax.id), "content": content,
            "sha256": hashlib.sha256(content).hexdigest(),
            "pages": len(PdfReader(io.BytesIO(content)).pages), "size_bytes": len(content)}


@dataclass(frozen=True)
class ReplyFax:
    """A reply's arrival, shaped like the world's inbound faxes for `received_fax_file`."""

    id: str
    csid: str
    from_number: str
    received_at: datetime
    pages_text: tuple[str, ...]


def _next_fax_id(session: Session) -> str:
    last = session.scalar(select(InboundFax.id).order_by(InboundFax.id.desc()).limit(1))
    return f"FAX-{int(last.split('-')[1]) + 1 if last else 1:06d}"


def file_reply(session: Session, job: OutboundFax, csid: str, from_number: str, received_at: datetime,
               pages_text: tuple[str, ...]) -> InboundFax:
    """File the answer to `job` as an unread received fax on the line the job went out on."""
    arrival = ReplyFax(_next_fax_id(session), csid, from_number, received_at, pages_text)
    fax = InboundFax(id=arrival.id, from_number=from_number, csid=csid, to_number=job.from_number,
                     received_at=received_at, status=UNREAD, is_filed=False, **received_fax_file(arrival))
    session.add(fax)
    session.add_all(InboundFaxPage(fax_id=arrival.id, page_no=number, text=text)
                    for number, text in enumerate(pages_text, start=1))
    session.flush()  # rows that refer to the new fax may follow
    return fax
