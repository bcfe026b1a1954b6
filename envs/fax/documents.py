"""Generated files: cover sheets and received faxes as PDFs, fax pages as PNG images.

PDFs are deterministic (pinned creation date: same inputs, same bytes). A received
fax's PDF is rendered once, when the fax arrives, and stored with it. Page images
are drawn with Pillow on request and kept in a small in-process cache; they are never
stored, because the page text in the database is the source of truth.
"""
from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from fpdf import FPDF

from admindesk.envs.common.pdf import PINNED_CREATION_DATE, render_pdf

from .cover_templates import template
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


def _latin1(text: str) -> str:
    """Text the PDF core fonts can draw (they are Latin-1): dashes and quotes made plain."""
    plain = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'")
    return plain.encode("latin-1", "replace").decode("latin-1")


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
    return transmit_header(fax.received_at, fax.from_name, fax.from_number, page_no, len(fax.page_texts))


def transmit_header(received_at: datetime, from_name: str, from_number: str, page_no: int, page_total: int) -> str:
    return (f"{received_at:%m/%d/%Y %H:%M}  FROM: {from_name[:34]}  "
            f"{format_fax_number(from_number)}   P.{page_no:03d}/{page_total:03d}")


def received_fax_pdf(fax_id: str, from_name: str, from_number: str, received_at: datetime, subject: str,
                     page_texts: Sequence[str]) -> bytes:
    """A received fax as the PDF the server stores: one PDF page per fax page, each under the
    sender's transmit header (deterministic: the same fax always gives the same bytes)."""
    pdf = FPDF(format="Letter")
    pdf.set_creation_date(PINNED_CREATION_DATE)
    pdf.set_title(_latin1(subject))
    pdf.set_author(_latin1(f"Fax {fax_id}"))
    pdf.set_margins(18, 14, 18)
    pdf.set_auto_page_break(auto=True, margin=16)
    for page_no, text in enumerate(page_texts, start=1):
        pdf.add_page()
        pdf.set_font("courier", "", 8)
        pdf.cell(0, 4, _latin1(transmit_header(received_at, from_name, from_number, page_no, len(page_texts))),
                 new_x="LMARGIN", new_y="NEXT")
        pdf.ln(6)
        pdf.set_font("courier", "", 10)
        pdf.multi_cell(0, 5, _latin1(text), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def received_fax_name(fax_id: str) -> str:
    """The stored (and downloaded) file name of a received fax."""
    return f"fax-{fax_id}.pdf"


def cover_sheet_pdf(job: OutboundFax, line: FaxLine, sent_on: str) -> bytes:
    """The cover sheet of a send job, from its cover fields and its cover-sheet template."""
    layout = template(job.cover_template)
    title = f"URGENT - {layout.title}" if job.urgent else layout.title
    fields = [("Date", sent_on), ("To", job.cover_to or job.recipient_name),
              ("Recipient", job.recipient_name), ("Fax", format_fax_number(job.to_number)),
              ("From", job.cover_from), ("From fax", format_fax_number(line.number)),
              ("Phone", format_fax_number(line.phone)), ("Re", job.cover_re),
              ("Pages (incl. cover)", str(job.total_pages)),
              ("Urgent", "Yes" if job.urgent else "No")]
    body = "".join(part + "\n\n" for part in (layout.notice, job.comments.strip()) if part) + CONFIDENTIALITY
    return render_pdf(title, fields, body, letterhead=f"{line.label}\n{line.address}",
                      footer=line.label)
