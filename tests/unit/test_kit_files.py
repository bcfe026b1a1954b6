"""Kit file handling: upload checks, deterministic PDFs, paging arithmetic."""
from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from werkzeug.datastructures import FileStorage

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.pagination import Page


def upload(content: bytes, name: str = "letter.pdf") -> FileStorage:
    return FileStorage(stream=io.BytesIO(content), filename=name, content_type="application/pdf")


def test_pdf_is_byte_stable_and_holds_its_text():
    args = ("Imaging Report", [("Patient", "Ana Ruiz"), ("MRN", "E1000001")], "AHI 23.4 events/hour.\nSecond line")
    first, second = render_pdf(*args), render_pdf(*args)
    assert first == second
    text = PdfReader(io.BytesIO(first)).pages[0].extract_text()
    assert "Ana Ruiz" in text and "AHI 23.4 events/hour." in text


def test_a_real_pdf_upload_is_accepted_with_a_safe_name():
    content = render_pdf("Letter", [], "Body")
    checked = read_pdf_upload(upload(content, "../../etc/passwd.pdf"))
    assert checked.filename == "etc_passwd.pdf" and checked.pages == 1 and checked.size == len(content)


@pytest.mark.parametrize("content,name,message", [
    (b"", "empty.pdf", "is empty"),
    (b"MZ\x90\x00 not a pdf at all", "fake.pdf", "is not a PDF"),
    (b"%PDF-1.4 truncated garbage", "broken.pdf", "could not be read"),
])
def test_bad_uploads_are_refused_with_a_reason(content, name, message):
    with pytest.raises(UploadError, match=message):
        read_pdf_upload(upload(content, name))


def test_an_upload_over_the_limit_is_refused():
    with pytest.raises(UploadError, match="larger than the 1 MB limit"):
        read_pdf_upload(upload(b"%PDF-" + b"0" * (1024 * 1024)), max_bytes=1024 * 1024)


def test_no_file_chosen_is_refused():
    with pytest.raises(UploadError, match="Choose a file"):
        read_pdf_upload(FileStorage(stream=io.BytesIO(b""), filename=""))


@pytest.mark.parametrize("total,number,pages,first,last", [(0, 1, 1, 0, 0), (25, 1, 1, 1, 25),
                                                           (26, 2, 2, 26, 26), (60, 2, 3, 26, 50)])
def test_page_arithmetic(total, number, pages, first, last):
    page = Page(items=[], number=number, per_page=25, total=total)
    assert (page.pages, page.first_index, page.last_index) == (pages, first, last)


def test_the_kit_defaults_are_the_worlds_seed_and_anchor():
    # The kit repeats them so that apps start without importing the world.
    from admindesk.envs.common.clock import DEFAULT_NOW
    from admindesk.envs.common.factory import AppConfig
    from admindesk.envs.world import DEFAULT_SEED, WORLD_ANCHOR

    assert (AppConfig.world_seed, DEFAULT_NOW) == (DEFAULT_SEED, WORLD_ANCHOR)


@pytest.mark.parametrize("npi,valid", [("1234567893", True), ("1234567890", False),
                                       ("123456789", False), ("12345678a3", False)])
def test_npi_check_digit(npi, valid):
    from admindesk.envs.common.npi import is_valid_npi

    assert is_valid_npi(npi) is valid
