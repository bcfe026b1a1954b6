"""The stored file of a received fax: its PDF rendered once, on arrival, with the kit's
stored-file columns (file_name, content, sha256, pages, size_bytes)."""
from __future__ import annotations

import hashlib
import io
from datetime import datetime
from typing import Protocol

from pypdf import PdfReader

from admindesk.envs.fax.documents import received_fax_name, received_fax_pdf


class ArrivingFax(Protocol):
    """What a received fax's file is made from (the world's InboundFax has these fields)."""

    id: str
    from_name: str
    from_number: str
    received_at: datetime
    subject: str
    pages_text: tuple[str, ...]


def received_fax_file(fax: ArrivingFax) -> dict:
    """The stored-file column values of a fax, as keyword arguments for `InboundFax`."""
    content = received_fax_pdf(fax.id, fax.from_name, fax.from_number, fax.received_at, fax.subject,
                               fax.pages_text)
    return {"file_name": received_fax_name(fax.id), "content": content,
            "sha256": hashlib.sha256(content).hexdigest(),
            "pages": len(PdfReader(io.BytesIO(content)).pages), "size_bytes": len(content)}
