"""Documents and faxes viewed as scanned pages: the EHR's media viewer and the fax inbox's
page viewer show page images that draw every fact of the document, page for page with its PDF."""
from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.ehr_web import create_app as create_ehr
from admindesk.envs.ehr_web.document_pages import document_scan
from admindesk.envs.ehr_web.models import Document, Patient
from admindesk.envs.fax import create_app as create_fax
from admindesk.envs.fax.fax_pages import fax_scan
from admindesk.envs.fax.models import InboundFax
from admindesk.envs.world import build_world

from .conftest import FormClient, build_app, login_in_browser

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CONTROLS = ("First page", "Previous page", "Next page", "Last page", "Go to the page number entered",
            "Zoom in", "Zoom out", "Rotate left", "Rotate right")


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def ehr(app_data_dir):
    return build_app(create_ehr, app_data_dir)


@pytest.fixture(scope="module")
def fax(app_data_dir):
    return build_app(create_fax, app_data_dir)


def signed_in(app) -> FormClient:
    client = FormClient(app)
    client.reset()
    client.login()
    return client


@pytest.fixture
def ehr_client(ehr):
    return signed_in(ehr)


def html(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def test_every_fact_of_every_document_is_drawn_on_its_pages_as_in_its_pdf(ehr):
    facts = {d.id: d.facts for d in build_world().documents if d.facts}
    with ehr.app_context(), ehr.extensions["admindesk"].db.new_session() as session:
        documents = session.scalars(select(Document).where(Document.id.in_(list(facts)[::4]))).all()
        assert len(documents) > 30
        for document in documents:
            scan = document_scan(document, session.get(Patient, document.mrn))
            drawn = squeeze("".join(scan.page_text(n) for n in range(1, scan.page_count + 1)))
            for key, value in facts[document.id]:
                assert squeeze(value) in drawn, (document.id, key, value)
            assert squeeze(document.text) in drawn


def test_document_view_is_a_page_viewer_with_labelled_controls(ehr_client):
    document_id = ehr_client.snapshot()["documents"][0]["id"]
    page = html(ehr_client.get(f"/documents/{document_id}"))
    assert "data-page-viewer" in page and "pv-ehr" in page
    for name in CONTROLS:
        assert f'aria-label="{name}"' in page, name
    assert re.search(r'<label class="pv-jump" for="doc-viewer-jump">Page', page)
    assert '<label class="pv-sr" for="doc-viewer-zoom">Zoom</label>' in page
    assert f'src="/documents/{document_id}/pages/1.png"' in page and 'aria-label="Show page 1 of 1"' in page
    assert "Download PDF" in page and "Document properties" in page


def test_page_images_are_pngs_the_same_twice_and_only_for_pages_that_exist(ehr_client):
    document_id = ehr_client.snapshot()["documents"][0]["id"]
    first = ehr_client.get(f"/documents/{document_id}/pages/1.png")
    assert first.mimetype == "image/png" and first.data.startswith(PNG_MAGIC)
    assert ehr_client.get(f"/documents/{document_id}/pages/1.png").data == first.data
    assert ehr_client.get(f"/documents/{document_id}/pages/2.png").status_code == 404
    assert ehr_client.get(f"/documents/{document_id}/pages/0.png").status_code == 404
    assert ehr_client.get("/documents/DOC-NOPE/pages/1.png").status_code == 404


def test_an_uploaded_pdf_is_viewed_page_by_page(ehr, ehr_client):
    content = render_pdf("Outside records", [("From", "Harrisburg Sleep Center")],
                         "\n".join(f"Record line {n}: polysomnography AHI 23.4, ref HSC-{n:04d}" for n in range(150)))
    pdf_pages = PdfReader(io.BytesIO(content)).pages
    assert len(pdf_pages) >= 3
    response = ehr_client.post("/patients/E1000449/documents/upload",
                               {"kind": "Outside Records", "title": "Sleep center records", "document_date": "10/01/2026",
                                "file": (io.BytesIO(content), "records.pdf")}, content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)
    document_id = response.headers["Location"].rsplit("/", 1)[-1]
    page = html(ehr_client.get(f"/documents/{document_id}?page=3"))
    assert page.count('class="pv-page"') == len(pdf_pages) and 'data-start-page="3"' in page
    assert ehr_client.get(f"/documents/{document_id}/pages/{len(pdf_pages)}.png").data.startswith(PNG_MAGIC)
    with ehr.app_context(), ehr.extensions["admindesk"].db.new_session() as session:
        document = session.get(Document, document_id)
        scan = document_scan(document, session.get(Patient, document.mrn))
    assert squeeze(pdf_pages[2].extract_text()) in squeeze(scan.page_text(3))
    assert 'data-start-page="1"' in html(ehr_client.get(f"/documents/{document_id}?page=99"))


def test_fax_pages_draw_their_page_texts_under_the_transmit_header(fax):
    with fax.app_context(), fax.extensions["admindesk"].db.new_session() as session:
        faxes = session.scalars(select(InboundFax)).all()
        for inbound in faxes:
            scan = fax_scan(inbound)
            assert scan.page_count == inbound.pages == len(inbound.page_texts)
            for page in inbound.page_texts:
                drawn = scan.page_text(page.page_no)
                station = f"FROM: {inbound.csid}  " if inbound.csid else ""  # the sender's CSID, when it sends one
                assert drawn.startswith(f"{inbound.received_at:%m/%d/%Y %H:%M}  {station}+1 ")
                assert f"P.{page.page_no:03d}/{inbound.pages:03d}" in drawn
                assert squeeze(page.text) in squeeze(drawn)


def test_the_fax_inbox_shows_a_fax_in_the_page_viewer(fax):
    client = signed_in(fax)
    inbound = next(f for f in client.snapshot()["inbound_faxes"] if f["pages"] >= 2)
    page = html(client.get(f"/inbox/{inbound['id']}"))
    assert "data-page-viewer" in page and "pv-fax" in page and "Save as PDF" in page
    for number in range(1, inbound["pages"] + 1):
        assert f'src="/inbox/{inbound["id"]}/pages/{number}.png"' in page
    for name in CONTROLS:
        assert f'aria-label="{name}"' in page, name


@pytest.mark.browser
@pytest.mark.slow
def test_viewer_turns_zooms_rotates_and_jumps_by_mouse_and_keyboard(fax, serve_live, page):
    server = serve_live(fax)
    server.reset()
    inbound = next(f for f in signed_in(fax).snapshot()["inbound_faxes"] if f["pages"] >= 2)
    total = inbound["pages"]
    page.set_viewport_size({"width": 1280, "height": 720})
    login_in_browser(page, server.url)
    page.goto(f"{server.url}/inbox/{inbound['id']}")
    status = page.locator(".pv-status")
    expect(status).to_contain_text(f"Page 1 of {total}")
    shown = page.locator(".pv-page:not([hidden]) img")
    expect(shown).to_have_count(1)
    assert shown.evaluate("img => img.complete && img.naturalWidth") == 850

    page.get_by_role("button", name="Next page").click()
    expect(status).to_contain_text(f"Page 2 of {total}")
    expect(page.get_by_role("link", name=f"Show page 2 of {total}")).to_have_attribute("aria-current", "page")
    page.get_by_label("Page", exact=True).fill("1")
    page.get_by_label("Page", exact=True).press("Enter")
    expect(status).to_contain_text(f"Page 1 of {total}")
    page.get_by_role("link", name=f"Show page {total} of {total}").click()
    expect(status).to_contain_text(f"Page {total} of {total}")

    page.get_by_label("Zoom", exact=True).select_option("100")
    expect(status).to_contain_text("100%")
    assert shown.evaluate("img => img.getBoundingClientRect().width") == pytest.approx(850, abs=1)
    page.get_by_role("button", name="Zoom in").click()
    expect(status).to_contain_text("125%")
    page.get_by_role("button", name="Rotate right").click()
    expect(status).to_contain_text("rotated 90")
    frame = page.locator(".pv-page:not([hidden]) .pv-frame").bounding_box()
    assert frame["width"] > frame["height"]  # a page on its side is wider than tall

    page.locator(".pv-stage").focus()
    page.keyboard.press("Home")
    expect(status).to_contain_text(f"Page 1 of {total}")
    page.keyboard.press("PageDown")
    expect(status).to_contain_text(f"Page 2 of {total}")
    page.keyboard.press("Shift+R")
    expect(status).not_to_contain_text("rotated")
    expect(page.get_by_role("button", name="First page")).to_be_enabled()


def test_payer_letters_and_records_requests_arrive_behind_a_cover_sheet(fax):
    with fax.app_context(), fax.extensions["admindesk"].db.new_session() as session:
        faxes = session.scalars(select(InboundFax)).all()
        covered = [f for f in faxes if "FAX COVER SHEET" in f.page_texts[0].text]
        assert len(covered) >= 20
        for inbound in covered:
            cover = fax_scan(inbound).page_text(1)
            assert f"Pages: {inbound.pages} (including cover)" in cover and inbound.pages >= 2
            assert "\nRe: " in cover  # what it is about is on the cover sheet, not on the server
        # A supplier's one-page confirmation comes without one, as it does from most suppliers.
        assert any(f.pages == 1 for f in faxes)
