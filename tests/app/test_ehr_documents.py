"""EHR documents: list, in-page view, PDF download (stable name, text inside), PDF upload."""
from __future__ import annotations

import hashlib
import html
import io
import re
from datetime import datetime

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Document

from .conftest import build_app

MRN = "E1000449"


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def note(app) -> Document:
    with app.extensions["admindesk"].db.new_session() as session:
        return session.scalars(select(Document).where(Document.kind == "Progress Note").order_by(Document.id)).first()


def pdf_text(content: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def upload(client, **overrides):
    data = {"kind": "Payer Letter", "title": "Approval letter", "document_date": "11/12/2026",
            "file": (io.BytesIO(render_pdf("Approval", [("Auth", "NWH26-1")], "Approved.")), "letter.pdf")}
    data.update(overrides)
    return client.post(f"/patients/{MRN}/documents/upload", data, content_type="multipart/form-data")


def test_documents_tab_lists_and_filters(client, note):
    page = client.get(f"/patients/{note.mrn}/documents").get_data(as_text=True)
    assert note.title in page and "Upload PDF" in page and note.author_name in page
    filtered = client.get(f"/patients/{note.mrn}/documents?type=Lab+Result").get_data(as_text=True)
    assert "Progress Note</td>" not in filtered
    dates = [datetime.strptime(d, "%m/%d/%Y") for d in re.findall(r"<tr><td>(\d\d/\d\d/\d{4})</td>", page)]
    assert len(dates) > 1 and dates == sorted(dates, reverse=True)  # newest first by default
    sorted_page = client.get(f"/patients/{note.mrn}/documents?sort=title&dir=asc").get_data(as_text=True)
    titles = [html.unescape(t) for t in re.findall(r'href="/documents/[^"/]+">([^<]*)</a>', sorted_page)]
    assert note.title in titles and titles == sorted(titles)


def test_document_view_shows_its_pages(client, note):
    page = client.get(f"/documents/{note.id}").get_data(as_text=True)
    assert "Download PDF" in page and note.file_name in page
    assert f"/documents/{note.id}/pages/1.png" in page  # scanned pages, not the text (test_document_viewer)
    event = client.snapshot()["audit_events"][-1]
    assert (event["record_type"], event["record_id"], event["tab"]) == ("document", note.id, "documents")


def test_download_is_a_stable_pdf_holding_the_text(client, note):
    response = client.get(f"/documents/{note.id}/download")
    assert response.mimetype == "application/pdf"
    expected_name = f"{note.id}_Progress_Note_{note.document_date.isoformat()}.pdf"
    assert note.file_name == expected_name
    assert f'filename="{expected_name}"' in response.headers["Content-Disposition"]
    text = pdf_text(response.data)
    assert note.id in text and note.mrn in text and "Assessment:" in text
    assert client.get(f"/documents/{note.id}/download").data == response.data
    event = client.snapshot()["audit_events"][-1]
    assert event["action"] == "download_document" and event["record_id"] == note.id
    assert event["detail"]["sha256"] == hashlib.sha256(response.data).hexdigest()
    (row,) = [d for d in client.snapshot()["documents"] if d["id"] == note.id]
    assert row["sha256"] == hashlib.sha256(response.data).hexdigest()


def test_upload_pdf_adds_document(client):
    response = upload(client)
    assert response.status_code == 302
    row = next(d for d in client.snapshot()["documents"] if d["source"] == "Uploaded")
    content = render_pdf("Approval", [("Auth", "NWH26-1")], "Approved.")
    assert row["id"] == "DOC-U000001" and row["mrn"] == MRN and row["kind"] == "Payer Letter"
    assert row["content"] == "sha256:" + hashlib.sha256(content).hexdigest()
    assert row["sha256"] == hashlib.sha256(content).hexdigest()
    assert row["file_name"] == "DOC-U000001_Payer_Letter_2026-11-12.pdf" and row["uploaded_by"] == "coordinator"
    assert client.get("/documents/DOC-U000001/download").data == content
    assert "Approval letter" in client.get(f"/patients/{MRN}/documents").get_data(as_text=True)


@pytest.mark.parametrize("overrides, message", [
    ({"file": (io.BytesIO(b"hello, not a pdf"), "notes.txt")}, "is not a PDF document"),
    ({"file": (io.BytesIO(b""), "empty.pdf")}, "is empty"),
    ({"file": (io.BytesIO(b"%PDF-" + b"0" * (10 * 1024 * 1024)), "big.pdf")}, "larger than the 10 MB limit"),
    ({"file": None}, "Choose a file to upload."),
    ({"title": ""}, "Enter a title for the document."),
    ({"title": "t" * 201}, "Titles are limited to 200 characters."),
    ({"document_date": "2026-13-01"}, "is not a valid date"),
    ({"document_date": ""}, "Enter the document date."),
    ({"kind": "Selfie"}, "Not a valid choice"),
])
def test_upload_bad_input_changes_nothing(client, overrides, message):
    data = {k: v for k, v in overrides.items() if v is not None}
    if overrides.get("file", "keep") is None:
        response = client.post(f"/patients/{MRN}/documents/upload",
                               {"kind": "Payer Letter", "title": "x", "document_date": "11/12/2026"},
                               content_type="multipart/form-data")
    else:
        response = upload(client, **data)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert not [d for d in client.snapshot()["documents"] if d["source"] == "Uploaded"]


def test_upload_form_renders(client):
    page = client.get(f"/patients/{MRN}/documents/upload").get_data(as_text=True)
    assert 'type="file"' in page and "Document type" in page and 'enctype="multipart/form-data"' in page
