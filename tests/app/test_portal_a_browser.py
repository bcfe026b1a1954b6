"""Portal A in real Chromium: the prior-auth wizard from the home page to a case number,
with a PDF uploaded through the file input; plus the draft-delete <dialog>."""
from __future__ import annotations

import hashlib

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.models import Member, PaRequest, Provider
from admindesk.envs.payer_portal_a.organizations import tax_id

from .conftest import FormClient, build_app, login_in_browser
from .test_portal_a_support import us

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    """An active PPO member with no request on file, an ordering clinician and a facility."""
    with app.extensions["admindesk"].db.new_session() as session:
        busy = select(PaRequest.member_id)
        member = session.scalar(select(Member).where(Member.termination.is_(None), Member.plan_id.like("%-PPO"),
                                                     Member.member_id.not_in(busy)).order_by(Member.coverage_id))
        clinician = session.scalar(select(Provider).where(Provider.entity_type == "Individual").order_by(Provider.npi))
        facility = session.scalar(select(Provider).where(Provider.entity_type == "Organization").order_by(Provider.npi))
        return member, clinician, facility


def fill_request_header(page, member: Member, organization: Provider) -> None:
    """Step 1: the organization and its TIN, the payer, an outpatient imaging request, the patient."""
    page.get_by_label("Organization").select_option(organization.npi)
    page.get_by_label("Tax ID (TIN)").select_option(tax_id(organization.npi))
    page.get_by_label("Payer").select_option(member.payer_id)
    page.get_by_label("Request type").select_option("Outpatient")
    page.get_by_label("Service type").select_option("Diagnostic imaging")
    page.get_by_label("Place of service").select_option("22")
    page.get_by_label("Member ID").fill(member.member_id)
    page.get_by_label("Patient date of birth").fill(us(member.dob))
    page.get_by_role("button", name="Next: Providers").click()


def test_wizard_submission_with_upload(page, live, people, tmp_path):
    member, clinician, facility = people
    note = tmp_path / "progress-note.pdf"
    note.write_bytes(render_pdf("Office visit - low back pain", [("Patient", member.full_name)],
                                "Eight weeks of physical therapy and naproxen without improvement."))
    login_in_browser(page, live.url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Authorizations").click()
    page.get_by_role("navigation", name="Authorizations").get_by_role("link", name="New Request").click()

    fill_request_header(page, member, facility)

    page.get_by_label("Requesting (ordering) provider").select_option(clinician.npi)
    page.get_by_label("Rendering provider or facility").select_option(facility.npi)
    page.get_by_role("button", name="Next: Services").click()

    page.get_by_label("Procedure code (CPT/HCPCS)").fill("72148")
    page.get_by_label("Units").fill("1")
    page.get_by_label("Diagnosis codes (ICD-10-CM, comma separated)").fill("M54.16, M51.26")
    page.get_by_label("From date").fill("12/01/2026")
    page.get_by_label("To date").fill("12/31/2026")
    assert page.get_by_label("Place of service").input_value() == "22"  # from the request header
    page.get_by_role("button", name="Add line").click()
    page.get_by_role("button", name="Next: Clinical questions").click()

    page.get_by_label("Weeks of conservative therapy", exact=False).fill("8")
    page.get_by_label("Red-flag symptoms").select_option("None")
    page.get_by_label("Prior imaging of the lumbar spine").select_option("X-ray")
    page.get_by_role("link", name="Back").click()  # Back keeps the saved line
    expect(page.get_by_role("cell", name="72148", exact=True)).to_be_visible()
    page.get_by_role("button", name="Next: Clinical questions").click()
    page.get_by_label("Weeks of conservative therapy", exact=False).fill("8")
    page.get_by_label("Red-flag symptoms").select_option("None")
    page.get_by_label("Prior imaging of the lumbar spine").select_option("X-ray")
    page.get_by_role("button", name="Next: Attachments").click()

    page.get_by_label("Document type").select_option("Clinical notes")
    page.get_by_label("PDF file").set_input_files(str(note))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("link", name="progress-note.pdf")).to_be_visible()
    page.get_by_role("button", name="Next: Review").click()

    page.get_by_label("I attest that the information", exact=False).check()
    page.get_by_role("button", name="Submit request").click()

    heading = page.get_by_role("heading", level=1).inner_text()
    assert heading.startswith("Case PL-2026-") and "Approved" in heading
    case_number = heading.split()[1]
    snapshot = FormClient(live.app).snapshot()
    case = next(r for r in snapshot["pa_requests"] if r["case_number"] == case_number)
    assert case["status"] == "Approved" and case["member_id"] == member.member_id
    attachment = next(a for a in snapshot["pa_attachments"] if a["request_id"] == case["id"])
    assert attachment["content"] == "sha256:" + hashlib.sha256(note.read_bytes()).hexdigest()


def test_draft_delete_dialog(page, live, people):
    member, _, facility = people
    login_in_browser(page, live.url)
    page.get_by_role("link", name="Start a prior authorization request").click()
    fill_request_header(page, member, facility)
    draft = page.url.split("/requests/")[1].split("/")[0]
    page.get_by_role("navigation", name="Authorizations").get_by_role("link", name="Drafts").click()
    delete = page.get_by_role("button", name=f"Delete draft {draft}", exact=True)
    delete.click()
    dialog = page.get_by_role("dialog", name=f"Delete draft #{draft}?")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Keep draft").click()
    expect(dialog).to_be_hidden()
    delete.click()
    dialog.get_by_role("button", name="Delete draft").click()
    expect(page.get_by_text(f"Draft #{draft} was deleted.")).to_be_visible()
    assert [r for r in FormClient(live.app).snapshot()["pa_requests"] if r["status"] == "Draft"] == []
