"""A chart document's pages as scan-like images (the media viewer shows them).

A world document's page images draw the lines of its PDF (`document_layout`), so the
viewer and the download say the same on the same pages. An uploaded PDF is shown as the
text of each of its pages, as a scanned copy of it would read.
"""
from __future__ import annotations

import io

from pypdf import PdfReader

from admindesk.envs.common.documents.scan_pages import ScanSource, text_pages
from admindesk.envs.ehr_web.document_files import ORGANIZATION, document_layout
from admindesk.envs.ehr_web.models import Document, Patient

_CACHE_SIZE = 256
# Keyed by document id and the sha256 of its PDF: a document whose content changed is a new entry.
_scans: dict[tuple[str, str], ScanSource] = {}


def _build(document: Document, patient: Patient) -> ScanSource:
    if document.content is None:
        layout = document_layout(document, patient)
        return ScanSource(document.id, layout.pages, organization=ORGANIZATION,
                          footer=f"{ORGANIZATION} - {document.id}")
    reader = PdfReader(io.BytesIO(document.content))
    texts = [page.extract_text() or "" for page in reader.pages] or [""]
    return ScanSource(document.id, text_pages(texts), footer=f"Scanned to chart - {document.id}")


def document_scan(document: Document, patient: Patient) -> ScanSource:
    """What the page images of `document` are drawn from (built once per document content)."""
    key = (document.id, document.sha256)
    scan = _scans.get(key)
    if scan is None:
        scan = _build(document, patient)
        if len(_scans) >= _CACHE_SIZE:
            _scans.pop(next(iter(_scans)))
        _scans[key] = scan
    return scan
