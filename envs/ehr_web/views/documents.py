"""Documents: the chart's list, a document's scanned pages, PDF download, PDF upload."""
from __future__ import annotations

import hashlib

from flask import Blueprint, Response, abort, flash, g, redirect, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.scan_pages import render_page
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.pagination import apply_sort
from admindesk.envs.common.state.sequences import next_value
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.ehr_web.document_files import document_pdf, download_name
from admindesk.envs.ehr_web.document_pages import document_scan
from admindesk.envs.ehr_web.forms import DocumentUploadForm
from admindesk.envs.ehr_web.models import Document
from admindesk.envs.ehr_web.views.chart_base import render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404

documents = Blueprint("documents", __name__)
SORT_COLUMNS = {"date": Document.document_date, "type": Document.kind, "title": Document.title,
                "author": Document.author_name}


@documents.get("/patients/<mrn>/documents")
def documents_tab(mrn: str):
    """Every document of the patient, newest first by default, filterable by type."""
    patient = patient_or_404(mrn)
    kinds = list(db().scalars(select(Document.kind).where(Document.mrn == mrn).distinct().order_by(Document.kind)))
    kind = request.args.get("type", "")
    stmt = select(Document).where(Document.mrn == mrn)
    if kind in kinds:
        stmt = stmt.where(Document.kind == kind)
    stmt = apply_sort(stmt, SORT_COLUMNS, "date", default_dir="desc")
    rows = list(db().scalars(stmt.order_by(Document.id.desc())))
    return render_chart(patient, "documents", "chart_documents.html", documents=rows, kinds=kinds, kind=kind)


@documents.get("/documents/<doc_id>")
def view_document(doc_id: str):
    """The document in the media viewer: its pages as scanned images, with its details."""
    document = get_or_404(Document, doc_id)
    patient = patient_or_404(document.mrn)
    scan = document_scan(document, patient)
    start_page = request.args.get("page", 1, type=int)
    describe(record_type="document", record_id=document.id, page=start_page if start_page > 1 else None)
    page_urls = [url_for("documents.page_image", doc_id=document.id, page_no=number)
                 for number in range(1, scan.page_count + 1)]
    return render_chart(patient, "documents", "document_view.html", document=document,
                        page_count=scan.page_count, page_urls=page_urls, start_page=start_page)


@documents.get("/documents/<doc_id>/pages/<int:page_no>.png")
def page_image(doc_id: str, page_no: int):
    """One page of the document as a scan-like PNG (the same page always gives the same bytes)."""
    document = get_or_404(Document, doc_id)
    scan = document_scan(document, patient_or_404(document.mrn))
    if not 1 <= page_no <= scan.page_count:
        abort(404)
    return Response(render_page(scan, page_no), mimetype="image/png")


@documents.get("/documents/<doc_id>/download")
def download_document(doc_id: str):
    """The document as a PDF attachment with a stable file name."""
    document = get_or_404(Document, doc_id)
    content = document_pdf(document, patient_or_404(document.mrn))
    # File checks match faxed or uploaded copies against this hash.
    describe(action="download_document", record_type="document", record_id=document.id,
             mrn=document.mrn, file_name=document.file_name, sha256=hashlib.sha256(content).hexdigest())
    response = Response(content, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'attachment; filename="{document.file_name}"'
    return response


def _render_upload(patient, form: DocumentUploadForm, file_error: str | None = None, status: int = 200):
    return render_chart(patient, "documents", "document_upload.html", status=status, form=form,
                        file_error=file_error)


@documents.route("/patients/<mrn>/documents/upload", methods=["GET", "POST"])
def upload_document(mrn: str):
    """Attach a PDF (a payer letter, outside records) to the patient's documents."""
    patient = patient_or_404(mrn)
    form = DocumentUploadForm()
    if request.method == "GET":
        describe(record_type="patient", record_id=patient.mrn, tab="documents", action="view_upload_form")
        return _render_upload(patient, form)
    describe(action="upload_document", record_type="patient", record_id=patient.mrn, tab="documents")
    valid = form.validate()
    file_error = None
    try:
        upload = read_pdf_upload(request.files.get(form.file.name))
    except UploadError as exc:
        upload, file_error = None, str(exc)
    if not valid or upload is None:
        return _render_upload(patient, form, file_error, status=422)
    number = next_value(db(), "uploaded_document")
    document = Document(id=f"DOC-U{number:06d}", mrn=patient.mrn, kind=form.kind.data, title=form.title.data.strip(),
                        author_name=g.user.display_name, document_date=form.document_date.data, source="Uploaded",
                        text=f"Uploaded PDF '{upload.filename}' ({upload.pages} page(s)).", file_name="",
                        content=upload.content, sha256=upload.sha256, pages=upload.pages, uploaded_by=current_username(),
                        uploaded_at=clock.now())
    document.file_name = download_name(document)
    db().add(document)
    db().commit()
    describe(record_type="document", record_id=document.id, sha256=upload.sha256,
             original_name=upload.filename)
    flash(f"{document.kind} '{document.title}' was added as {document.id}.", "success")
    return redirect(url_for("documents.view_document", doc_id=document.id))

