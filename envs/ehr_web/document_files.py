"""The PDF a document download gives, and its stable file name.

World documents are stored as text and rendered on download (deterministic bytes);
uploaded documents are served as the bytes that were uploaded.
"""
from __future__ import annotations

import re

from admindesk.envs.common.documents.pdf import RenderedPdf, layout_pdf
from admindesk.envs.ehr_web.models import Document, Patient

ORGANIZATION = "Susquehanna Valley Health"
LETTERHEAD = f"{ORGANIZATION}\nHealth Information Management"


def download_name(document: Document) -> str:
    """`DOC-2000123_Progress_Note_2026-10-02.pdf`: id, type and date, no spaces."""
    kind = re.sub(r"[^A-Za-z0-9-]+", "_", document.kind).strip("_")
    return f"{document.id}_{kind}_{document.document_date.isoformat()}.pdf"


def document_pdf(document: Document, patient: Patient) -> bytes:
    """The PDF bytes of a document (the same document always gives the same bytes)."""
    if document.content is not None:
        return document.content
    return document_layout(document, patient).content


def document_layout(document: Document, patient: Patient) -> RenderedPdf:
    """A world document's PDF with the lines each of its pages holds (page images draw them)."""
    fields = (("Patient", f"{patient.last_name}, {patient.first_name}"), ("MRN", patient.mrn),
              ("DOB", patient.dob.strftime("%m/%d/%Y")), ("Document", document.id),
              ("Type", document.kind), ("Date", document.document_date.strftime("%m/%d/%Y")),
              ("Author", document.author_name))
    return layout_pdf(document.title, fields, document.text, letterhead=LETTERHEAD,
                      footer=f"{ORGANIZATION} - {document.id}")
