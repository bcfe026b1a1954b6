"""EHR in real Chromium: search a patient, open an order, download a document, edit the
authorization; and the work-item status dialog (a native <dialog>)."""
from __future__ import annotations

import io

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader
from sqlalchemy import select

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Document, Order, OrderAuthorization, Patient

from .conftest import FormClient, build_app, login_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def case(app):
    """A patient with an open order that needs auth and has a document linked to it."""
    with app.extensions["admindesk"].db.new_session() as session:
        order, document = session.execute(
            select(Order, Document).join(Document, Document.order_id == Order.id).join(OrderAuthorization)
            .where(Order.status == "Ordered", OrderAuthorization.status == "Not Started")
            .order_by(Order.id, Document.id)).first()
        patient = session.get(Patient, order.mrn)
        return patient, order, document


def test_search_open_order_download_and_authorize(page, live, app, case):
    patient, order, document = case
    login_in_browser(page, live.url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Patient Search").click()
    page.get_by_label("Name").fill(f"{patient.last_name}, {patient.first_name}")
    page.get_by_label("MRN").fill(patient.mrn)
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name=patient.full_name).click()
    page.get_by_role("navigation", name="Chart sections").get_by_role("link", name="Orders").click()
    page.get_by_role("link", name=order.id, exact=True).click()
    expect(page.get_by_role("heading", name=f"Order {order.id}: {order.description}")).to_be_visible()

    with page.expect_download() as info:
        page.get_by_role("link", name=f"Download {document.title} as PDF").click()
    download = info.value
    assert download.suggested_filename == document.file_name
    with open(download.path(), "rb") as handle:
        content = handle.read()
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(content)).pages)
    assert document.id in text and patient.mrn in text

    page.get_by_label("Authorization status").select_option("Approved")
    page.get_by_label("Payer", exact=True).select_option("PYR-NWH")
    page.get_by_label("Authorization number", exact=True).fill("NWH2612345")
    page.get_by_label("Approved units", exact=True).fill("1")
    page.get_by_label("Start date", exact=True).fill("11/20/2026")
    page.get_by_label("End date", exact=True).fill("10/01/2026")
    page.get_by_role("button", name="Save authorization").click()
    expect(page.get_by_text("End date must be on or after the start date.").first).to_be_visible()
    page.get_by_label("End date", exact=True).fill("02/20/2027")
    page.get_by_role("button", name="Save authorization").click()
    expect(page.get_by_role("status")).to_contain_text(f"Authorization for order {order.id} saved: Approved.")
    expect(page.get_by_role("status")).to_be_in_viewport()

    client = FormClient(app)
    row = next(r for r in client.snapshot()["order_authorizations"] if r["order_id"] == order.id)
    assert (row["status"], row["auth_number"], row["approved_units"], row["start_date"], row["end_date"]) == (
        "Approved", "NWH2612345", 1, "2026-11-20", "2027-02-20")
    downloads = [e for e in client.snapshot()["audit_events"] if e["action"] == "download_document"]
    assert downloads[-1]["record_id"] == document.id


def test_status_dialog_changes_work_item(page, live, app):
    login_in_browser(page, live.url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Prior Auth").click()
    page.get_by_role("columnheader", name="Item #").get_by_role("link").click()
    page.get_by_role("link", name="Open item 1", exact=True).click()
    dialog = page.get_by_role("dialog", name="Change status of item 1")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Change status…").click()
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Change status…").click()
    dialog.get_by_label("Status").select_option("In Progress")
    dialog.get_by_label("Follow-up date").fill("11/10/2026")
    dialog.get_by_role("button", name="Save status").click()
    expect(dialog).to_be_visible()
    expect(dialog.get_by_text("Follow-up date cannot be in the past.")).to_be_visible()
    dialog.get_by_label("Follow-up date").fill("11/23/2026")
    dialog.get_by_role("button", name="Save status").click()
    expect(page.get_by_text("Item 1 updated")).to_be_visible()
    row = next(r for r in FormClient(app).snapshot()["work_items"] if r["id"] == 1)
    assert row["status"] == "In Progress" and row["follow_up_date"] == "2026-11-23"
