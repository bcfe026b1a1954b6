"""Payer portal B in real Chromium: a fax-only service found and its fax form downloaded,
blank or filled in online."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect
from pypdf import PdfReader

from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.session_timeout import WARNING_AFTER_PAGE_VIEWS

from .conftest import build_app, login_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def live(app_data_dir, serve_live):
    return serve_live(build_app(create_app, app_data_dir))


@pytest.fixture
def portal(live, page):
    live.reset()
    login_in_browser(page, live.url)
    return page


def pdf_text(path: Path) -> str:
    data = path.read_bytes()
    assert data.startswith(b"%PDF-")
    return "".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)


def test_fax_only_service_found_in_policy_library_and_form_downloaded(portal, tmp_path):
    page = portal
    page.get_by_role("navigation", name="Portal menu").get_by_role("link", name="Medical Policy Library").click()
    page.get_by_label("Keyword, policy number or CPT/HCPCS code").fill("95810")
    page.get_by_role("button", name="Search Policies").click()
    page.get_by_role("link", name="KM-SLP-301").click()
    expect(page.get_by_role("heading", name="Fax submission required")).to_be_visible()
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download Blank Precertification Request Fax Form (PDF)").click()
    download = download_info.value
    assert download.suggested_filename == "Keystone_Mutual_Precertification_Fax_Form_KM-SLP-301.pdf"
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    text = pdf_text(target)
    assert "Diagnostic Sleep Studies" in text and "95810" in text


def test_fax_form_filled_in_online_downloads_filled(portal, tmp_path):
    page = portal
    page.get_by_role("navigation", name="Portal menu").get_by_role("link", name="Medical Policy Library").click()
    page.get_by_label("Keyword, policy number or CPT/HCPCS code").fill("95810")
    page.get_by_role("button", name="Search Policies").click()
    page.get_by_role("link", name="KM-SLP-301").click()
    page.get_by_role("link", name="Fill In Precertification Request Fax Form Online").click()
    for label, value in (("Subscriber Name", "Ambrose Kowalczyk"), ("Subscriber ID", "KMH1234567"),
                         ("Subscriber Date of Birth (DD-MMM-YYYY)", "04-Mar-1961"),
                         ("Rendering Provider Name", "Outpatient Sleep Center"),
                         ("Rendering Provider NPI", "1234567893"), ("Contact Name", "PA Coordinator"),
                         ("Contact Phone", "570-555-0142"), ("Diagnosis Codes (ICD-10-CM, comma separated)", "G47.33"),
                         ("Date of Service From (DD-MMM-YYYY)", "01-Dec-2026"),
                         ("Date of Service To (DD-MMM-YYYY)", "29-Jan-2027"),
                         ("Clinical Summary", "Loud snoring, witnessed apneas, Epworth 14.")):
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_label("Service Code (CPT/HCPCS)").select_option("95810")
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download Completed Form").click()
    assert download_info.value.suggested_filename == "Keystone_Mutual_Precertification_Fax_Form_KM-SLP-301.pdf"
    target = tmp_path / "filled.pdf"
    download_info.value.save_as(target)
    assert "Subscriber ID: KMH1234567" in pdf_text(target)


def test_fax_only_service_refused_by_request_form(portal, tmp_path):
    page = portal
    page.get_by_role("link", name="New Precertification Request").click()
    page.get_by_label("Service Code (CPT/HCPCS)").fill("E0784")
    page.get_by_role("button", name="Submit Request").click()
    page.get_by_role("link", name="New DME Request").click()
    page.get_by_label("HCPCS Code").fill("E0784")
    page.get_by_role("button", name="Submit DME Request").click()
    notice = page.get_by_role("region", name="Fax submission required")
    assert "External Insulin Infusion Pumps" in notice.inner_text()
    with page.expect_download() as download_info:
        notice.get_by_role("link", name="Download Blank Precertification Request Fax Form (PDF)").click()
    target = tmp_path / "form.pdf"
    download_info.value.save_as(target)
    assert "External Insulin Infusion Pumps" in pdf_text(target)


def test_timeout_dialog_blocks_until_stay_signed_in(portal):
    page = portal
    menu = page.get_by_role("navigation", name="Portal menu")
    for _ in range(WARNING_AFTER_PAGE_VIEWS - 1):  # the home page after sign-in was the first view
        with page.expect_navigation():
            menu.get_by_role("link", name="Claim Status").click()
    dialog = page.get_by_role("dialog", name="Session timeout warning")
    expect(dialog).to_be_visible()
    with pytest.raises(PlaywrightTimeout, match="intercepts pointer events"):  # the modal blocks the page
        menu.get_by_role("link", name="Home").click(timeout=1500)
    page.keyboard.press("Escape")
    expect(dialog).to_be_visible()
    with page.expect_navigation():
        dialog.get_by_role("button", name="Stay signed in").click()
    expect(page.get_by_role("heading", name="Claim Status")).to_be_visible()
    expect(page.get_by_role("dialog", name="Session timeout warning")).to_have_count(0)
