"""Deterministic PDF rendering (fpdf2): the same document always gives the same bytes.

File checks compare a faxed or uploaded file's hash with the EHR document's, so the
creation date is pinned and nothing time- or random-dependent enters the file.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from fpdf import FPDF

PINNED_CREATION_DATE = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _latin1(text: str) -> str:
    # The core PDF fonts are Latin-1; synthetic text is ASCII but guard against stray marks.
    return text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'") \
               .encode("latin-1", "replace").decode("latin-1")


def render_pdf(title: str, fields: Sequence[tuple[str, str]], body: str,
               letterhead: str = "", footer: str = "") -> bytes:
    """A one-or-more page document: letterhead, title, a label/value block, then prose."""
    pdf = FPDF(format="Letter")
    pdf.set_creation_date(PINNED_CREATION_DATE)
    pdf.set_title(_latin1(title))
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_margins(18, 16, 18)
    if footer:
        pdf.set_author(_latin1(footer))
    pdf.add_page()
    if letterhead:
        pdf.set_font("helvetica", "B", 10)
        pdf.multi_cell(0, 5, _latin1(letterhead), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    pdf.set_font("helvetica", "B", 15)
    pdf.multi_cell(0, 8, _latin1(title), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("helvetica", "", 10)
    for label, value in fields:
        pdf.set_font("helvetica", "B", 10)
        pdf.cell(48, 6, _latin1(f"{label}:"))
        pdf.set_font("helvetica", "", 10)
        pdf.multi_cell(0, 6, _latin1(str(value)), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("helvetica", "", 11)
    for paragraph in body.split("\n"):
        pdf.multi_cell(0, 5.5, _latin1(paragraph), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
