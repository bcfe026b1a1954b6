"""Helpers the views share: the payer, uploads and attachments."""
from __future__ import annotations

from flask import Response, abort, request
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage

from admindesk.envs.common import clock
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import PdfUpload, UploadError, read_pdf_upload
from admindesk.envs.common.web import current_username, db
from admindesk.envs.payer_portal_b.models import Attachment, PayerProfile

DOCUMENT_TYPES = ("Clinical notes", "Imaging report", "Sleep study report", "Lab results",
                  "Letter of medical necessity", "Detailed written order", "PAP adherence report",
                  "Oximetry or blood gas report", "Loss, theft or damage report", "Other")


def payer() -> PayerProfile:
    """The payer this portal belongs to (seeded as a single row)."""
    return db().scalars(select(PayerProfile)).one()


def read_upload(storage: FileStorage | None, errors: list[str]) -> PdfUpload | None:
    """A checked PDF, or None with the reason appended to `errors` (blank input: None, no error)."""
    if storage is None or not storage.filename:
        return None
    try:
        return read_pdf_upload(storage)
    except UploadError as exc:
        errors.append(str(exc))
        return None


def store_attachment(owner_type: str, owner_id: str, document_type: str, upload: PdfUpload) -> Attachment:
    """Add one checked PDF to the session, owned by a precert, appeal or DME request."""
    attachment = Attachment(owner_type=owner_type, owner_id=owner_id, document_type=document_type,
                            **stored_file_values(upload), uploaded_by=current_username(), uploaded_at=clock.now())
    db().add(attachment)
    return attachment


def attachments_of(owner_type: str, owner_id: str) -> list[Attachment]:
    return list(db().scalars(select(Attachment).where(Attachment.owner_type == owner_type,
                                                      Attachment.owner_id == owner_id)
                             .order_by(Attachment.id)))


def attachment_response(owner_type: str, owner_id: str, attachment_id: int) -> Response:
    """Download one attachment of the given owner (404 if it belongs to another record)."""
    attachment = db().get(Attachment, attachment_id)
    if attachment is None or attachment.owner_type != owner_type or attachment.owner_id != owner_id:
        abort(404)
    return pdf_response(attachment.content, attachment.file_name)


def pdf_response(content: bytes, file_name: str) -> Response:
    return Response(content, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{file_name}"'})


def check_uploads(slots: list[tuple[str, FileStorage, object]]) -> list[tuple[str, PdfUpload]]:
    """Read each (document type, file, form field) slot; errors go on the file's field."""
    uploads = []
    for document_type, storage, field in slots:
        errors: list[str] = []
        upload = read_upload(storage, errors)
        field.errors = list(field.errors) + errors
        if upload is not None:
            uploads.append((document_type, upload))
    return uploads


def has_errors(form) -> bool:
    return any(field.errors for field in form)


PAGE_SIZES = (10, 15, 25, 50)
DEFAULT_PAGE_SIZE = 15


def requested_page_size() -> int:
    """The `per_page` query argument when it is one of the offered sizes, else 15."""
    value = request.args.get("per_page", "")
    return int(value) if value.isdigit() and int(value) in PAGE_SIZES else DEFAULT_PAGE_SIZE


def status_counts(column, preferred: tuple[str, ...]) -> list[tuple[str, int]]:
    """(status, rows on file) for every status present in `column`'s table, `preferred` ones first."""
    counts = dict(db().execute(select(column, func.count()).group_by(column)).all())
    ordered = [status for status in preferred if status in counts]
    ordered += sorted(status for status in counts if status not in preferred)
    return [(status, counts[status]) for status in ordered]
