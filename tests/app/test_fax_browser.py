"""Real Chromium: compose a fax with an uploaded PDF, pick the payer from the directory
dialog, send it, and find it in the Outbox as Sent with the file's hash kept."""
from __future__ import annotations

import hashlib

import pytest
from playwright.sync_api import expect

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.fax import create_app

from .conftest import FormClient, build_app, login_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def test_compose_with_attachment_and_send(app, serve_live, page, tmp_path):
    server = serve_live(app)
    server.reset()
    letter = tmp_path / "appeal-letter.pdf"
    letter.write_bytes(render_pdf("Appeal letter", [("Claim", "CLM-77")], "We request reconsideration. " * 40))
    digest = hashlib.sha256(letter.read_bytes()).hexdigest()

    login_in_browser(page, server.url)
    page.get_by_role("button", name="New fax").click()
    page.get_by_label("PDF to attach").set_input_files(str(letter))
    page.get_by_role("button", name="Upload and attach").click()
    expect(page.get_by_role("link", name="appeal-letter.pdf")).to_be_visible()

    page.get_by_role("button", name="Choose from directory…").click()
    dialog = page.get_by_role("dialog", name="Choose a recipient from the directory")
    dialog.get_by_label("Search the directory").fill("Appeals")
    dialog.get_by_label("Search the directory").press("Enter")
    dialog = page.get_by_role("dialog", name="Choose a recipient from the directory")
    choice = dialog.get_by_role("button", name="Select ").first
    recipient = choice.get_attribute("aria-label").removeprefix("Select ")
    choice.click()

    page.get_by_label("Re (subject)").fill("Appeal for claim CLM-77")
    page.get_by_label("Urgent").check()
    page.get_by_role("button", name="Send fax").click()
    expect(page.get_by_role("status").filter(has_text="queued for transmission")).to_be_visible()

    page.get_by_role("navigation", name="Folders").get_by_role("link", name="Outbox", exact=True).click()
    snapshot = FormClient(app).snapshot()
    job = snapshot["outbound_faxes"][-1]
    row = page.get_by_role("row").filter(has_text=f"Job {job['id']}")
    expect(row.get_by_text("Sent", exact=True)).to_be_visible()
    row.get_by_role("link", name=f"Job {job['id']}").click()
    expect(page.get_by_role("heading", name=f"Fax job {job['id']} to {recipient}")).to_be_visible()
    expect(page.get_by_role("link", name="appeal-letter.pdf")).to_be_visible()
    expect(page.get_by_text(digest)).to_have_count(0)  # hashes are for checks, not for people

    snapshot = FormClient(app).snapshot()
    job = snapshot["outbound_faxes"][-1]
    contact = next(c for c in snapshot["directory_contacts"] if c["name"] == recipient)
    assert (job["status"], job["to_number"], job["urgent"]) == ("Sent", contact["fax_number"], True)
    assert [(a["file_name"], a["sha256"]) for a in snapshot["fax_attachments"]
            if a["outbound_fax_id"] == job["id"]] == [("appeal-letter.pdf", digest)]
