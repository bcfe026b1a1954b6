"""Keystone Mutual's fax-only precertification: the request form is filled in online (with
validation) and downloaded as a filled PDF; faxed to the precertification line (over the
apps' fax line, real HTTP), a complete form is received for review, while a blank or
incomplete one is returned without review by a reply fax listing the blank fields, as the
form says it will be."""
from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from admindesk.envs.common.clock import parse_now
from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.common.factory import AppConfig
from admindesk.envs.fax import create_app as create_fax
from admindesk.envs.payer_portal_b import create_app as create_portal_b
from admindesk.envs.payer_portal_b.fax_form import FORM_FIELDS, missing_fields, read_form, render_fax_form
from admindesk.envs.payer_portal_b.models import MedicalPolicy, PayerProfile

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient, build_app, endpoint_audit_rows as audit_rows
from .test_fax_support import new_draft, post_draft, upload

NOW, POLICY = "2026-11-16T09:00:00", "KM-SLP-301"
FORM_URL = f"/policies/{POLICY}/fax-form"
COMPLETE = {"subscriber_name": "Ambrose Kowalczyk", "subscriber_id": "KMH1234567", "subscriber_dob": "04-Mar-1961",
            "rendering_name": "Outpatient Sleep Center", "rendering_npi": "1234567893", "referring_name": "",
            "referring_npi": "", "contact_name": "Prior Authorization Coordinator", "contact_phone": "570-555-0142",
            "contact_fax": "", "service_code": "95810", "units": "1", "diagnosis_codes": "g47.33, I10",
            "start_date": "01-Dec-2026", "end_date": "29-Jan-2027", "urgency": "Standard",
            "clinical_summary": "Loud snoring and witnessed apneas; Epworth 14; hypertension on two agents."}


@pytest.fixture(scope="module")
def portal(app_data_dir, serve_live):
    return serve_live(build_app(create_portal_b, app_data_dir / "payer_portal_b"))


@pytest.fixture
def desk(portal, tmp_path_factory):
    """(fax client signed in, portal B client signed in), both freshly reset."""
    portal.app.extensions["admindesk"].reset(parse_now(NOW), None)
    fax_app = create_fax(AppConfig(data_dir=tmp_path_factory.mktemp("fax-to-keystone"), token=TOKEN, testing=True,
                                   cache_dir=TEMPLATE_CACHE, peers={"payer_portal_b": portal.url}))
    fax = FormClient(fax_app)
    fax.reset(NOW)
    fax.login()
    keystone = FormClient(portal.app)
    keystone.login()
    return fax, keystone


def pdf_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def filled_form(keystone: FormClient, **overrides) -> bytes:
    response = keystone.post(FORM_URL, {**COMPLETE, **overrides})
    assert response.status_code == 200 and response.mimetype == "application/pdf", response.get_data(as_text=True)
    assert f"Keystone_Mutual_Precertification_Fax_Form_{POLICY}.pdf" in response.headers["Content-Disposition"]
    return response.data


def fax_to_precert_line(fax: FormClient, keystone: FormClient, form: bytes) -> dict:
    """Fax the form to Keystone's precertification line; the job row."""
    line = keystone.snapshot()["payer_profiles"][0]["precert_fax"]
    response = post_draft(fax, new_draft(fax), "send", to_number=line, recipient_name="Precertification",
                          cover_re="Precertification request", comments="Request form attached.",
                          attachment=upload(form, "form.pdf"))
    assert response.status_code == 302, response.get_data(as_text=True)
    fax.get("/outbox")
    return fax.snapshot()["outbound_faxes"][-1]


def test_the_policy_offers_the_form_filled_in_online_or_blank(desk):
    _fax, keystone = desk
    page = keystone.get(f"/policies/{POLICY}").get_data(as_text=True)
    assert "Fill In Precertification Request Fax Form Online" in page and "Download Blank" in page
    form = keystone.get(FORM_URL).get_data(as_text=True)
    assert "95810" in form and "Incomplete forms are returned without review" in form
    assert keystone.get("/policies/KM-RAD-101/fax-form").status_code == 404


def test_a_completed_form_downloads_as_the_filled_pdf(desk):
    _fax, keystone = desk
    content = filled_form(keystone)
    entries = read_form(pdf_text(content))
    assert missing_fields(entries) == []
    assert (entries["subscriber_id"], entries["service_code"], entries["diagnosis_codes"]) == (
        "KMH1234567", "95810", "G47.33, I10")
    assert entries["rendering_provider"] == "Outpatient Sleep Center, NPI 1234567893"
    assert entries["service_dates"] == "01-Dec-2026 / 29-Jan-2027"
    assert content == filled_form(keystone)  # the same entries give the same bytes
    row = audit_rows(keystone, "policies.fill_fax_form")[-1]
    assert (row["action"], row["record_id"]) == ("download_fax_form", POLICY)


@pytest.mark.parametrize("overrides, message", [
    ({"subscriber_id": ""}, "Enter the Subscriber ID"),
    ({"rendering_npi": "1234567890"}, "Enter a valid 10-digit NPI."),
    ({"service_code": "72148"}, "Not a valid choice"),
    ({"end_date": "30-Nov-2026"}, "The last date of service cannot be before the first."),
    ({"subscriber_dob": "1961-03-04"}, "DD-MMM-YYYY"),
    ({"referring_npi": "1234567893"}, "Enter the Referring Provider name with the NPI."),
    ({"clinical_summary": "short"}, "20 to 4000 characters"),
])
def test_a_form_with_errors_is_shown_again_with_what_to_fix(desk, overrides, message):
    _fax, keystone = desk
    response = keystone.post(FORM_URL, {**COMPLETE, **overrides})
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and response.mimetype == "text/html" and message in page
    assert COMPLETE["subscriber_name"] in page  # what was typed is kept


def test_a_complete_form_faxed_to_the_line_is_received_for_review(desk):
    fax, keystone = desk
    inbox_before = len(fax.snapshot()["inbound_faxes"])
    job = fax_to_precert_line(fax, keystone, filled_form(keystone))
    assert job["status"] == "Sent"
    intake = keystone.snapshot()["precert_fax_intake"][-1]
    assert (intake["outcome"], intake["policy_number"], intake["subscriber_id"], intake["service_code"],
            intake["missing_fields"], intake["caller_number"]) == (
        "Received for review", POLICY, "KMH1234567", "95810", "", job["from_number"])
    assert len(fax.snapshot()["inbound_faxes"]) == inbox_before  # no reply


def test_a_blank_form_is_returned_by_a_reply_fax_naming_the_blank_fields(desk):
    fax, keystone = desk
    blank = keystone.get(f"/policies/{POLICY}/fax-form.pdf").data
    job = fax_to_precert_line(fax, keystone, blank)
    intake = keystone.snapshot()["precert_fax_intake"][-1]
    assert intake["outcome"] == "Returned - incomplete form" and intake["subscriber_id"] is None
    assert "Subscriber ID" in intake["missing_fields"] and "Clinical summary" in intake["missing_fields"]
    snapshot = fax.snapshot()
    reply = snapshot["inbound_faxes"][-1]
    assert reply["to_number"] == job["from_number"] and reply["status"] == "Unread"
    # A fax server knows the payer's machine by its CSID and number; what the fax is, is on its page.
    assert reply["csid"] == "KEYSTONE UM" and len(reply["from_number"]) == 10
    assert reply["received_at"] > job["completed_at"]
    text = next(p["text"] for p in snapshot["inbound_fax_pages"] if p["fax_id"] == reply["id"])
    assert "PRECERTIFICATION REQUEST RETURNED - INCOMPLETE FORM" in text and "returned without review" in text and "- Subscriber ID" in text and "- CPT/HCPCS code" in text


def test_an_incomplete_form_lists_only_what_is_blank(desk, portal):
    fax, keystone = desk
    with portal.app.extensions["admindesk"].db.new_session() as session:
        policy = session.get(MedicalPolicy, POLICY)
        profile = session.scalars(select(PayerProfile)).one()
        entries = {key: f"{key} entry" for key, _label in FORM_FIELDS}
        form = render_fax_form(session, policy, profile, {**entries, "rendering_provider": "Sleep Center",
                                                          "subscriber_id": ""})
    fax_to_precert_line(fax, keystone, form)
    intake = keystone.snapshot()["precert_fax_intake"][-1]
    assert (intake["outcome"], intake["missing_fields"]) == (
        "Returned - incomplete form", "Subscriber ID; Rendering provider name and NPI")


def test_a_fax_without_the_form_is_filed_as_correspondence(desk):
    fax, keystone = desk
    inbox_before = len(fax.snapshot()["inbound_faxes"])
    fax_to_precert_line(fax, keystone, render_pdf("Sleep medicine consultation", [("Type", "Progress Note")],
                                                  "Epworth 14; loud snoring."))
    assert keystone.snapshot()["precert_fax_intake"][-1]["outcome"] == "No request form"
    assert len(fax.snapshot()["inbound_faxes"]) == inbox_before
