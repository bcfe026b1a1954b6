"""Helpers the views share: the payer, uploads and attachments."""
from __future__ import annotations

from flask import Response, abort
from sqlalchemy import select
from werkzeug.datastructures import FileStorage

from admindesk.envs.common import clock
from admindesk.envs.common.stored_files import stored_file_values
from admindesk.envs.common.uploads import PdfUpload, UploadError, read_pdf_upload
from admindesk.envs.common.web import current_username, db

from .models import Attachment, PayerProfile

DOCUMENT_TYPES = ("Clinical notes", "Imaging report", "Sleep study report", "Lab results",
                  "Letter of medical necessity", "Detailed written order", "Other")


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
