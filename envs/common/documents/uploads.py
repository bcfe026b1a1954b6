"""Upload checks shared by the apps: size limit, PDF sniffing, safe names, page count."""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import PdfReadError
from werkzeug.datastructures import FileStorage
from werkzeug.utils import secure_filename

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
PDF_MAGIC = b"%PDF-"


class UploadError(ValueError):
    """An upload that was refused; the message is shown to the user as is."""


@dataclass(frozen=True)
class PdfUpload:
    """A checked PDF: its safe name, bytes, hash and page count."""

    filename: str
    content: bytes
    sha256: str
    pages: int

    @property
    def size(self) -> int:
        return len(self.content)


def read_pdf_upload(upload: FileStorage | None, max_bytes: int = MAX_UPLOAD_BYTES) -> PdfUpload:
    """Validate one uploaded file as a real PDF; raise UploadError with a clear reason."""
    if upload is None or not upload.filename:
        raise UploadError("Choose a file to upload.")
    content = upload.stream.read(max_bytes + 1)
    if len(content) > max_bytes:
        raise UploadError(f"{upload.filename} is larger than the {max_bytes // (1024 * 1024)} MB limit.")
    if not content:
        raise UploadError(f"{upload.filename} is empty.")
    # Trust the bytes, not the extension or the browser's content type.
    if not content.lstrip()[:1024].startswith(PDF_MAGIC) and PDF_MAGIC not in content[:1024]:
        raise UploadError(f"{upload.filename} is not a PDF document. Only PDF files can be attached.")
    try:
        pages = len(PdfReader(io.BytesIO(content)).pages)
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise UploadError(f"{upload.filename} could not be read as a PDF ({exc.__class__.__name__}).") from exc
    if pages == 0:
        raise UploadError(f"{upload.filename} has no pages.")
    filename = secure_filename(upload.filename) or "document.pdf"
    if not filename.lower().endswith(".pdf"):
        filename += ".pdf"
    return PdfUpload(filename=filename, content=content, sha256=hashlib.sha256(content).hexdigest(),
                     pages=pages)
