"""Deterministic PDF rendering (fpdf2): the same document always gives the same bytes.

File checks compare a faxed or uploaded file's hash with the EHR document's, so the
creation date is pinned and nothing time- or random-dependent enters the file.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from fpdf import FPDF

PINNED_CREATION_DATE = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _latin1(text: str) -> str:
    # The core PDF fonts are Latin-1; synthetic text is ASCII but guard against stray marks.
    return text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2019", "'") \
               .encode("latin-1", "replace").decode("latin-1")


def _wrapped_lines(pdf: FPDF, paragraph: str, width: float) -> list[str]:
    """Greedy word wrap by measured width.

    fpdf2's multi_cell re-measures the whole line for every character (quadratic); the
    EHR renders every chart document at template build, so wrapping here is ~10x faster.
    """
    char_widths: dict[str, float] = {}  # core fonts have no kerning: widths add up

    def measure(text: str) -> float:
        for char in text:
            if char not in char_widths:
                char_widths[char] = pdf.get_string_width(char)
        return sum(char_widths[char] for char in text)

    space = measure(" ")
    lines, current, current_width = [], "", 0.0
    for word in paragraph.split(" "):
        word_width = measure(word)
        if current and current_width + space + word_width > width:
            lines.append(current)
            current, current_width = word, word_width
        elif current:
            current, current_width = f"{current} {word}", current_width + space + word_width
        else:
            current, current_width = word, word_width
    lines.append(current)
    return lines


@dataclass(frozen=True)
class PageLine:
    """One line as a rendered PDF draws it: `kind` is letterhead, title, field or body;
    `top` is its distance from the top of its page in millimetres; a field line carries
    its label apart from the value (the first line of a wrapped value only)."""

    kind: str
    text: str
    top: float
    label: str = ""


@dataclass(frozen=True)
class RenderedPdf:
    """A rendered document: its PDF bytes and the lines each PDF page holds."""

    content: bytes
    pages: tuple[tuple[PageLine, ...], ...]


def layout_pdf(title: str, fields: Sequence[tuple[str, str]], body: str,
               letterhead: str = "", footer: str = "") -> RenderedPdf:
    """Render a document and record where every line landed, so that page images of it
    draw the very lines (and page breaks) of its PDF."""
    pdf = FPDF(format="Letter")
    pdf.set_creation_date(PINNED_CREATION_DATE)
    pdf.set_title(_latin1(title))
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_margins(18, 16, 18)
    if footer:
        pdf.set_author(_latin1(footer))
    pdf.add_page()
    pages: list[list[PageLine]] = [[]]

    def record(kind: str, lines: Sequence[str], line_height: float, label: str = "") -> None:
        # Called after drawing: the lines sit just above the cursor, on the current page.
        while len(pages) < pdf.page:
            pages.append([])
        top = pdf.y - line_height * len(lines)
        for index, line in enumerate(lines):
            pages[pdf.page - 1].append(PageLine(kind, line, round(top + index * line_height, 2),
                                                label if index == 0 else ""))

    if letterhead:
        pdf.set_font("helvetica", "B", 10)
        record("letterhead", pdf.multi_cell(0, 5, _latin1(letterhead), new_x="LMARGIN", new_y="NEXT",
                                            output="LINES"), 5)
        pdf.ln(3)
    pdf.set_font("helvetica", "B", 15)
    record("title", pdf.multi_cell(0, 8, _latin1(title), new_x="LMARGIN", new_y="NEXT", output="LINES"), 8)
    pdf.ln(2)
    pdf.set_font("helvetica", "", 10)
    for label, value in fields:
        pdf.set_font("helvetica", "B", 10)
        pdf.cell(48, 6, _latin1(f"{label}:"))
        pdf.set_font("helvetica", "", 10)
        record("field", pdf.multi_cell(0, 6, _latin1(str(value)), new_x="LMARGIN", new_y="NEXT",
                                       output="LINES"), 6, label=_latin1(f"{label}:"))
    pdf.ln(4)
    pdf.set_font("helvetica", "", 11)
    width = pdf.w - pdf.l_margin - pdf.r_margin
    for paragraph in _latin1(body).split("\n"):
        for line in _wrapped_lines(pdf, paragraph, width):
            pdf.cell(0, 5.5, line, new_x="LMARGIN", new_y="NEXT")
            record("body", [line], 5.5)
    return RenderedPdf(bytes(pdf.output()), tuple(tuple(page) for page in pages))


def render_pdf(title: str, fields: Sequence[tuple[str, str]], body: str,
               letterhead: str = "", footer: str = "") -> bytes:
    """A one-or-more page document: letterhead, title, a label/value block, then prose."""
    return layout_pdf(title, fields, body, letterhead, footer).content
