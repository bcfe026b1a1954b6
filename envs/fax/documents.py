"""Generated files: cover sheets and received faxes as PDFs, fax pages as PNG images.

PDFs come from the kit's deterministic renderer (same inputs, same bytes). Page images
are drawn with Pillow on request and kept in a small in-process cache; they are never
stored, because the page text in the database is the source of truth.
"""
from __future__ import annotations

import io
import textwrap
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from admindesk.envs.common.pdf import render_pdf

from .models import FaxLine, InboundFax, OutboundFax
from .numbers import format_fax_number

PAGE_SIZE = (850, 1100)  # US Letter at 100 dpi
MARGIN = 60
CHARS_PER_LINE = 78
_MONO_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
               "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf")
CONFIDENTIALITY = ("CONFIDENTIALITY NOTICE: This facsimile contains protected health information that is "
                   "privileged and confidential under HIPAA. It is intended only for the recipient named "
                   "above. If you received it in error, notify the sender by telephone and destroy all copies.")


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.ImageFont:
    for path in _MONO_FONTS:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def _wrap(text: str) -> list[str]:
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        lines.extend(textwrap.wrap(paragraph, CHARS_PER_LINE, replace_whitespace=False) or [""])
    return lines


@lru_cache(maxsize=128)
def render_page_png(header: str, text: str) -> bytes:
    """One received page as a greyscale PNG: the sender's fax header line, then the text."""
    image = Image.new("L", PAGE_SIZE, 255)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN // 2, 14), header, fill=0, font=_font(13))
    draw.line((MARGIN // 2, 34, PAGE_SIZE[0] - MARGIN // 2, 34), fill=90, width=1)
    body_font, y = _font(15), MARGIN + 10
    for line in _wrap(text):
        if y > PAGE_SIZE[1] - MARGIN:
            break
        draw.text((MARGIN, y), line, fill=20, font=body_font)
        y += 21
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def page_header(fax: InboundFax, page_no: int) -> str:
    """The transmit header a sending machine prints on top of every page."""
    return (f"{fax.received_at:%m/%d/%Y %H:%M}  FROM: {fax.from_name[:34]}  "
            f"{format_fax_number(fax.from_number)}   P.{page_no:03d}/{fax.page_count:03d}")


def inbound_pdf(fax: InboundFax) -> bytes:
    """A received fax as one PDF (its pages in order), for download."""
    fields = [("From", f"{fax.from_name} {format_fax_number(fax.from_number)}"),
              ("To", format_fax_number(fax.to_number)),
              ("Received", f"{fax.received_at:%m/%d/%Y %H:%M}"),
              ("Pages", str(fax.page_count)), ("Fax ID", fax.id)]
    body = "\n\n".join(f"--- Page {p.page_no} of {fax.page_count} ---\n{p.text}" for p in fax.pages)
    return render_pdf(fax.subject, fields, body, letterhead="Received facsimile",
                      footer=f"Fax {fax.id}")


def inbound_pdf_name(fax: InboundFax) -> str:
    return f"fax-{fax.id}.pdf"


def cover_sheet_pdf(job: OutboundFax, line: FaxLine, sent_on: str) -> bytes:
    """The cover sheet of a send job, from its cover fields."""
    title = "URGENT - FAX COVER SHEET" if job.urgent else "FAX COVER SHEET"
    fields = [("Date", sent_on), ("To", job.cover_to or job.recipient_name),
              ("Recipient", job.recipient_name), ("Fax", format_fax_number(job.to_number)),
              ("From", job.cover_from), ("From fax", format_fax_number(line.number)),
              ("Phone", format_fax_number(line.phone)), ("Re", job.cover_re),
              ("Pages (incl. cover)", str(job.total_pages)),
              ("Urgent", "Yes" if job.urgent else "No")]
    body = (job.comments.strip() + "\n\n" if job.comments.strip() else "") + CONFIDENTIALITY
    return render_pdf(title, fields, body, letterhead=f"{line.label}\n{line.address}",
                      footer=line.label)
