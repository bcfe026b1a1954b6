"""Portal A: claim status, remittance, appeals, auth status inquiry and correspondence."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from pypdf import PdfReader

from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for

from .conftest import build_app
from .test_portal_a_support import NOW, case_with_status, claim_with_deadline, pdf_file, us


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _denied_claim_with_codes(snapshot):
    open_claim = claim_with_deadline(snapshot, passed=False)
    denied = [c for c in snapshot["claims"] if c["status"] == "Denied"]
    deadlines = {r["claim_number"]: r["appeal_deadline"] for r in snapshot["remittances"]}
    return next((c for c in denied if deadlines.get(c["claim_number"], "") >= "2026-11-16"), open_claim)


# ---- claim status -----------------------------------------------------------------------
def test_claim_number_search_opens_the_claim(client, snap):
    claim = snap["claims"][0]
    response = client.get(f"/claims?search=1&claim_number={claim['claim_number'].lower()}")
    assert response.status_code == 302 and response.location.endswith(f"/claims/{claim['claim_number']}")


def test_member_search_lists_claims_sorted_and_paginated(client, snap):
    claim = snap["claims"][0]
    url = f"/claims?search=1&payer_id={claim['payer_id']}&member_id={claim['member_id']}&sort=service&dir=desc"
    page = client.get(url).get_data(as_text=True)
    mine = [c for c in snap["claims"] if c["member_id"] == claim["member_id"]]
    assert all(c["claim_number"] in page for c in mine) and f"of {len(mine)}" in page
    rows = [a for a in client.snapshot()["audit_events"] if a["tab"] == "claim_status"]
    assert rows[-1]["record_id"] == claim["member_id"]


@pytest.mark.parametrize("query, message", [
    ("claim_number=CLM00-0000000", "No claim was found with this number."),
    ("claim_number=bad%20number!", "letters, digits and dashes only"),
    ("member_id=ABC123", "Enter a claim number, or select the payer and enter the member ID."),
    ("payer_id=PYR-NWH&member_id=NWH1&from_date=13/01/2026", "Enter a valid date as MM/DD/YYYY."),
    ("payer_id=PYR-NWH&member_id=NWH1&from_date=10/01/2026&to_date=09/01/2026", "must be on or after its start"),
    ("payer_id=PYR-NWH&member_id=NWH1", "No claims found for this member"),
])
def test_claim_search_bad_input_shows_message(client, query, message):
    response = client.get(f"/claims?search=1&{query}")
    assert response.status_code == 200 and message in response.get_data(as_text=True)


def test_claim_detail_tabs_show_remittance_codes_and_deadline(client, snap):
    claim = _denied_claim_with_codes(snap)
    base = f"/claims/{claim['claim_number']}"
    assert claim["patient_name"] in client.get(base).get_data(as_text=True)
    remit = client.get(f"{base}?tab=remittance").get_data(as_text=True)
    adjustment = next(a for a in snap["claim_adjustments"] if a["claim_number"] == claim["claim_number"])
    carc = next(c for c in snap["adjustment_codes"] if c["code_set"] == "CARC" and c["code"] == adjustment["carc"])
    remittance = next(r for r in snap["remittances"] if r["claim_number"] == claim["claim_number"])
    assert f"{adjustment['group_code']}-{adjustment['carc']}" in remit and carc["description"] in remit
    assert us(remittance["appeal_deadline"]) in remit
    assert "No appeals filed" in client.get(f"{base}?tab=appeals").get_data(as_text=True)
    tabs = [a["tab"] for a in client.snapshot()["audit_events"] if a["record_id"] == claim["claim_number"]]
    assert tabs == ["summary", "remittance", "appeals"]
    assert client.get("/claims/NOPE-1").status_code == 404


# ---- appeals ------------------------------------------------------------------------------
def _appeal_data(**change):
    return {"appeal_type": "Formal Appeal", "level": "1", "reason": "Medical necessity", "contact_name": "Jordan Ellis",
            "contact_phone": "717-555-0100", "letter_text": "We appeal the denial of this claim.", **change}


def test_appeal_with_typed_letter_and_attachment(client, snap):
    claim = _denied_claim_with_codes(snap)
    stream, name = pdf_file("lmn.pdf")
    response = client.post(f"/appeals/new?claim_number={claim['claim_number']}",
                           _appeal_data(attachment_type="Letter of medical necessity", attachment_file=(stream, name)),
                           content_type="multipart/form-data")
    assert response.status_code == 302
    after = client.snapshot()
    appeal = after["appeals"][0]
    assert (appeal["reference_number"], appeal["claim_number"], appeal["status"]) == ("APL26000001",
                                                                                      claim["claim_number"], "In Review")
    review_days = rules_for(claim["payer_id"]).appeal_review_days
    assert appeal["contact_phone"] == "7175550100" and appeal["level"] == "1" and appeal["decision"] is None
    assert appeal["decision_due"] == (NOW + timedelta(days=review_days)).isoformat()
    assert [a["document_type"] for a in after["appeal_attachments"]] == ["Letter of medical necessity"]
    assert any(letter["appeal_reference"] == "APL26000001" for letter in after["letters"])
    detail = client.get(response.location).get_data(as_text=True)
    assert "APL26000001" in detail and "We appeal the denial" in detail
    assert "APL26000001" in client.get("/appeals").get_data(as_text=True)
    download = client.get(f"/appeals/APL26000001/attachments/{after['appeal_attachments'][0]['id']}")
    assert download.status_code == 200 and download.data.startswith(b"%PDF")


def test_appeal_with_uploaded_letter_only(client, snap):
    claim = _denied_claim_with_codes(snap)
    stream, name = pdf_file("appeal-letter.pdf")
    response = client.post(f"/appeals/new?claim_number={claim['claim_number']}",
                           _appeal_data(letter_text="", appeal_type="Reconsideration", letter_file=(stream, name)),
                           content_type="multipart/form-data")
    assert response.status_code == 302
    after = client.snapshot()
    assert after["appeals"][0]["letter_text"] is None
    assert [a["document_type"] for a in after["appeal_attachments"]] == ["Appeal letter"]


@pytest.mark.parametrize("change, message", [
    ({"letter_text": ""}, "Type the appeal letter or upload it as a PDF."),
    ({"appeal_type": ""}, "Select a request type."),
    ({"reason": "Because"}, "Not a valid choice"),
    ({"contact_phone": "555-01"}, "Enter a 10-digit phone number."),
    ({"letter_text": "x" * 20001}, "limited to 20,000 characters"),
    ({"letter_file": (io.BytesIO(b"plain text"), "letter.pdf")}, "is not a PDF document"),
    ({"attachment_file": (io.BytesIO(b"%PDF-1.4 broken"), "x.pdf")}, "could not be read as a PDF"),
])
def test_appeal_bad_input_changes_nothing(client, snap, change, message):
    claim = _denied_claim_with_codes(snap)
    response = client.post(f"/appeals/new?claim_number={claim['claim_number']}", _appeal_data(**change),
                           content_type="multipart/form-data")
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    after = client.snapshot()
    assert after["appeals"] == [] and after["appeal_attachments"] == []


def test_appeal_needs_a_type_for_the_supporting_document(client, snap):
    claim = _denied_claim_with_codes(snap)
    stream, name = pdf_file()
    response = client.post(f"/appeals/new?claim_number={claim['claim_number']}",
                           _appeal_data(attachment_file=(stream, name)), content_type="multipart/form-data")
    assert response.status_code == 422 and "Select the type of the supporting document." in response.get_data(as_text=True)


def test_appeal_past_deadline_is_refused(client, snap):
    claim = claim_with_deadline(snap, passed=True)
    page = client.get(f"/appeals/new?claim_number={claim['claim_number']}").get_data(as_text=True)
    assert "does not accept appeals after the filing limit" in page and "Submit appeal" not in page
    response = client.post(f"/appeals/new?claim_number={claim['claim_number']}", _appeal_data())
    assert response.status_code == 422
    assert client.snapshot()["appeals"] == []


def test_appeal_claim_lookup(client):
    assert "Find the claim" in client.get("/appeals/new").get_data(as_text=True)
    response = client.get("/appeals/new?claim_number=NOPE")
    assert response.status_code == 422 and "No claim was found" in response.get_data(as_text=True)
    assert client.get("/appeals/APL00000000").status_code == 404


# ---- auth status inquiry ---------------------------------------------------------------------
def test_status_by_case_number_and_by_member(client, snap):
    case = case_with_status(snap, "Approved")
    response = client.get(f"/authorizations/status?case_number={case['case_number']}")
    assert response.status_code == 302 and response.location.endswith(f"/cases/{case['case_number']}")
    page = client.get(f"/authorizations/status?payer_id={case['payer_id']}&member_id={case['member_id']}").get_data(as_text=True)
    assert case["case_number"] in page
    detail = client.get(f"/authorizations/cases/{case['case_number']}").get_data(as_text=True)
    assert case["auth_number"] in detail and "Authorization number" in detail
    for tab in ("documents", "history", "letters"):
        assert client.get(f"/authorizations/cases/{case['case_number']}?tab={tab}").status_code == 200
    tabs = [a["tab"] for a in client.snapshot()["audit_events"] if a["record_type"] == "pa_case"]
    assert tabs == ["summary", "documents", "history", "letters"]


@pytest.mark.parametrize("query, message", [
    ("case_number=CS00000000", "No case was found with this number."),
    ("case_number=%3Cscript%3E", "letters, digits and dashes only"),
    ("member_id=NWH123&search=1", "select the payer and enter the member ID"),
])
def test_status_inquiry_bad_input(client, query, message):
    page = client.get(f"/authorizations/status?{query}").get_data(as_text=True)
    assert message in page and "<script>" not in page


def test_a_member_without_requests_is_a_result_not_an_input_error(client):
    page = client.get("/authorizations/status?payer_id=PYR-NWH&member_id=NWH0000001").get_data(as_text=True)
    assert "No authorization requests on file for member NWH0000001" in page
    assert "Please correct" not in page and 'aria-invalid="true"' not in page


def test_seeded_pended_case_offers_add_documents(client, snap):
    case = case_with_status(snap, "Pended")
    page = client.get(f"/authorizations/cases/{case['case_number']}?tab=documents").get_data(as_text=True)
    assert "Add documents" in page and case["missing_items"][0] in page
    approved = case_with_status(snap, "Approved")
    stream, name = pdf_file()
    response = client.post(f"/authorizations/cases/{approved['case_number']}/documents",
                           {"document_type": "Clinical notes", "file": (stream, name)}, content_type="multipart/form-data")
    assert response.status_code == 302
    assert client.snapshot()["pa_attachments"] == []


# ---- correspondence ---------------------------------------------------------------------------
def test_inbox_filters_and_letter_read_and_pdf(client, snap):
    letter = snap["letters"][0]
    page = client.get("/correspondence").get_data(as_text=True)
    assert letter["subject"] in page
    pended = client.get("/correspondence?category=Request+for+Additional+Information&state=unread").get_data(as_text=True)
    assert "Authorization approved" not in pended
    view = client.get(f"/correspondence/{letter['letter_number']}").get_data(as_text=True)
    assert letter["letter_number"] in view
    read = next(row for row in client.snapshot()["letters"] if row["id"] == letter["id"])
    assert read["read_at"] == "2026-11-16T09:00:00"
    pdf = client.get(f"/correspondence/{letter['letter_number']}/pdf")
    assert pdf.status_code == 200 and pdf.headers["Content-Disposition"].endswith(f'{letter["letter_number"]}.pdf"')
    text = PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    assert letter["member_id"] in text
    assert pdf.data == client.get(f"/correspondence/{letter['letter_number']}/pdf").data
    audit = [(a["action"], a["record_id"]) for a in client.snapshot()["audit_events"] if a["record_type"] == "letter"]
    assert audit == [("view", letter["letter_number"]), ("download_letter", letter["letter_number"]),
                     ("download_letter", letter["letter_number"])]
    assert client.get("/correspondence/LTR-9999999").status_code == 404
