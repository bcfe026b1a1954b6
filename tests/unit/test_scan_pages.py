"""Scan-like page images: they draw what the PDF says, page for page, and are deterministic."""
from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
from PIL import Image
from pypdf import PdfReader

from admindesk.envs.common.documents import scan_pages
from admindesk.envs.common.documents.pdf import PageLine, layout_pdf, render_pdf
from admindesk.envs.common.documents.scan_pages import PAGE_SIZE, ScanSource, render_page, text_pages
from admindesk.envs.world import build_world
from admindesk.envs.world.documents import us_date

ORGANIZATION = "Susquehanna Valley Health"


def squeeze(text: str) -> str:
    """Text without whitespace: wrapping and PDF text extraction space words differently."""
    return re.sub(r"\s+", "", text)


def world_scan(document, patient) -> tuple[bytes, ScanSource]:
    """A world document laid out as the EHR lays it out (same fields as its download)."""
    fields = (("Patient", f"{patient.last_name}, {patient.first_name}"), ("MRN", patient.mrn),
              ("DOB", us_date(patient.dob)), ("Document", document.id), ("Date", us_date(document.date)))
    layout = layout_pdf(document.title, fields, document.text, letterhead=f"{ORGANIZATION}\nHIM",
                        footer=document.id)
    return layout.content, ScanSource(document.id, layout.pages, organization=ORGANIZATION, footer=document.id)


@pytest.fixture(scope="module")
def world():
    return build_world()


@pytest.fixture(scope="module")
def sampled(world):
    """Every 12th world document (all kinds appear), with its PDF and scan source."""
    patients = {p.mrn: p for p in world.patients}
    return [(document, *world_scan(document, patients[document.mrn])) for document in world.documents[::12]]


def drawn_lines(source: ScanSource) -> str:
    """The document's own lines across all pages (no page numbers), as one text."""
    return " ".join(f"{line.label} {line.text}" for page in source.pages for line in page)


def test_every_fact_of_a_document_is_drawn_on_its_pages(sampled):
    checked = 0
    for document, _, source in sampled:
        drawn = squeeze(" ".join(source.page_text(n) for n in range(1, source.page_count + 1)))
        for key, value in document.facts:
            assert squeeze(value) in drawn, (document.id, key, value)
            checked += 1
        assert squeeze(document.text) in squeeze(drawn_lines(source))
    assert checked > 50  # the sample holds documents that state facts, not only routine notes


def test_each_page_image_draws_the_text_of_the_same_pdf_page(sampled):
    for document, content, source in sampled:
        pdf_pages = PdfReader(io.BytesIO(content)).pages
        assert source.page_count == len(pdf_pages), document.id
        for number, pdf_page in enumerate(pdf_pages, start=1):
            lines = "".join(f"{line.label}{line.text}" for line in source.pages[number - 1])
            assert squeeze(lines) == squeeze(pdf_page.extract_text()), (document.id, number)


def test_recording_the_layout_leaves_the_pdf_bytes_as_they_were():
    args = ("Sleep study", [("Patient", "Doe, Jane"), ("MRN", "E1000001")], "AHI 23.4 events per hour.\n" * 90)
    assert layout_pdf(*args, letterhead="Org\nHIM").content == render_pdf(*args, letterhead="Org\nHIM")


def test_the_same_document_gives_the_same_image_bytes_twice(world):
    # World chart notes fit one page; a record with its outside history runs to several.
    patient, document = world.patients[0], world.documents[0]
    longer = replace(document, text="\n\n".join(d.text for d in world.documents[:6]))
    _, source = world_scan(longer, patient)
    assert source.page_count >= 3
    first = [render_page(source, n) for n in range(1, source.page_count + 1)]
    render_page.cache_clear()
    assert [render_page(world_scan(longer, patient)[1], n) for n in range(1, source.page_count + 1)] == first
    assert len(set(first)) == len(first)  # each page is its own image
    other = ScanSource("DOC-OTHER", source.pages, organization=ORGANIZATION, footer=document.id)
    assert render_page(other, 1) != first[0]  # the key seeds skew and noise


def test_a_page_is_a_letter_size_greyscale_png_with_light_noise(sampled):
    _, _, source = sampled[0]
    image = Image.open(io.BytesIO(render_page(source, 1)))
    assert (image.format, image.mode, image.size) == ("PNG", "L", PAGE_SIZE)
    blank = Image.open(io.BytesIO(render_page(ScanSource("DOC-BLANK", ((),)), 1)))
    dark_share = sum(blank.histogram()[:200]) / (PAGE_SIZE[0] * PAGE_SIZE[1])
    assert 0 < dark_share < 0.005  # specks are there, but do not cover a page


def test_page_text_lists_fax_header_lines_and_page_number():
    source = ScanSource("FAX-000001", text_pages(["Keystone Health Plan\nUtilization Management\nApproved",
                                                  "Second page"], sender="Keystone Health Plan Utilization Management"),
                        organization="Keystone Health Plan", fax_headers=("HEADER 1", "HEADER 2"), monospace=True)
    assert source.page_text(2) == "HEADER 2\nSecond page\nPage 2 of 2"
    kinds = [line.kind for line in source.pages[0]]
    assert kinds == ["letterhead", "letterhead", "body"]  # the sender's name heads the page, the subject does not


def test_a_long_text_page_keeps_every_line_inside_the_page():
    text = "\n".join(f"Line {n}: member KHP{n:06d}" for n in range(80))
    (page,) = text_pages([text])
    assert len(page) == 80 and page[-1].top <= scan_pages.FAX_BOTTOM_MM
    assert all(f"KHP{n:06d}" in line.text for n, line in enumerate(page))


@pytest.mark.parametrize("make, message", [
    (lambda: ScanSource("", ((),)), "key"),
    (lambda: ScanSource("DOC-1", ()), "no pages"),
    (lambda: ScanSource("FAX-1", ((), ()), fax_headers=("one",)), "1 fax headers for 2 pages"),
])
def test_bad_sources_are_refused_with_a_clear_message(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("page_no", [0, 3, -1])
def test_pages_out_of_range_are_refused(page_no):
    source = ScanSource("DOC-1", ((PageLine("body", "one", 20.0),), (PageLine("body", "two", 20.0),)))
    with pytest.raises(ValueError, match="has pages 1-2"):
        render_page(source, page_no)
