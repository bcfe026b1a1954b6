"""The columns of a stored file (an uploaded or faxed PDF), declared once for every app.

Task checks compare files across apps by hash with JMESPath, e.g. "the fax attachment's
`sha256` equals the EHR document's `sha256`". Such a check only reads naturally if every
table that holds a file names its columns alike, so the apps take them from this mixin
instead of each choosing its own (`filename` here, `file_name` there, `pdf_sha256`...):

=============  =============================================================
`file_name`    the safe name the file is shown and downloaded under
`content`      the bytes (a snapshot shows them as ``"sha256:<hex>"``)
`sha256`       hex sha256 of `content`
`pages`        page count
`size_bytes`   length of `content`
=============  =============================================================

An app's file table mixes the columns in and keeps its own (owner ids, document type,
position, upload time...)::

    class PaAttachment(StoredFileColumns, Base):
        __tablename__ = "pa_attachments"
        id: Mapped[int] = mapped_column(Integer, primary_key=True)
        ...

and fills them from a checked upload with `stored_file_values`::

    PaAttachment(request_id=pa.id, **stored_file_values(upload), ...)

A table whose rows do not all hold bytes (the EHR's `documents`, where world documents
are rendered on download) declares the same names itself rather than taking the mixin.
"""
from __future__ import annotations

from sqlalchemy import Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.common.documents.uploads import PdfUpload

STORED_FILE_COLUMNS = ("file_name", "content", "sha256", "pages", "size_bytes")


class StoredFileColumns:
    """Declarative mixin: `file_name`, `content`, `sha256`, `pages`, `size_bytes` of a stored PDF.

    SQLAlchemy places mixin columns after the table's own (id, owner...).
    """

    file_name: Mapped[str] = mapped_column(String(255))
    content: Mapped[bytes] = mapped_column(LargeBinary)
    sha256: Mapped[str] = mapped_column(String(64))
    pages: Mapped[int] = mapped_column(Integer)
    size_bytes: Mapped[int] = mapped_column(Integer)

    def stored_file(self) -> dict:
        """This row's file columns, ready to copy into another file table (`Model(**row.stored_file())`)."""
        return {name: getattr(self, name) for name in STORED_FILE_COLUMNS}


def stored_file_values(upload: PdfUpload) -> dict:
    """The `StoredFileColumns` values of a checked upload, as keyword arguments for a model."""
    return {"file_name": upload.filename, "content": upload.content, "sha256": upload.sha256,
            "pages": upload.pages, "size_bytes": upload.size}
