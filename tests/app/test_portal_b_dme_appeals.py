"""Payer portal B: DME requests (requirements, evaluation) and provider appeals (form, checks)."""
from __future__ import annotations

import io
import re

import pytest
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import Appeal, Claim, ExplanationOfBenefits, Provider, Subscriber, Supplier

from .conftest import build_app

ORDER_PDF = render_pdf("Standard written order", [("Item", "CPAP E0601")], "Signed by the treating practitioner.")
LETTER_PDF = render_pdf("Appeal letter", [("Claim", "denied")], "Please reconsider the denial.")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def data(app):
    """Subscribers, an NPI and a supplier, and claims in each appeal situation."""
    with app.extensions["admindesk"].db.new_session() as session:
        subscribers = list(session.scalars(select(Subscriber).where(Subscriber.termination.is_(None))
                                           .order_by(Subscriber.subscriber_id)))
        npi = session.scalars(select(Provider.npi).where(Provider.kind == "Individual").order_by(Provider.npi)).first()
        supplier = session.scalars(select(Supplier.npi).order_by(Supplier.npi)).first()
        appealed = set(session.scalars(select(Appeal.claim_number)))
        eobs = [e for e in session.scalars(select(ExplanationOfBenefits).order_by(ExplanationOfBenefits.claim_number))
                if e.claim_number not in appealed]
        open_claim = next(session.get(Claim, e.claim_number) for e in eobs if e.appeal_deadline.isoformat() >= "2026-11-16")
        late_claim = next(session.get(Claim, e.claim_number) for e in eobs if e.appeal_deadline.isoformat() < "2026-11-16")
        eob_numbers = {e.claim_number for e in eobs}
        pending = session.scalars(select(Claim).where(Claim.status == "Pending").order_by(Claim.claim_number)).first()
        assert pending.claim_number not in eob_numbers
        session.expunge_all()
    return {"subscriber": subscribers[0], "other": subscribers[1], "npi": npi, "supplier": supplier,
            "open_claim": open_claim, "late_claim": late_claim, "pending_claim": pending}


def dme_filed(client) -> list[dict]:
    """DME requests made in this episode (authorizations on file are listed too)."""
    return [r for r in client.snapshot()["dme_requests"] if r["source"] == "Portal"]


def appeals_filed(client) -> list[dict]:
    """Appeals filed in this episode (the seeded history is filed by billing.office)."""
    return [a for a in client.snapshot()["appeals"] if a["submitted_by"] == "coordinator"]


def pdf(content: bytes, name: str):
    return (io.BytesIO(content), name)


# A home-oxygen request: an outpatient test by a testing facility a week before the 05-Nov order, its report attached.
OXYGEN_TEST = {"hcpcs_code": "E1390", "diagnosis_codes": "J44.9", "ahi": "", "sleep_test_date": "",
               "oxygen_test_date": "29-Oct-2026", "oxygen_test_by": "Hospital or independent testing facility",
               "oxygen_test_state": "Chronic stable state, outpatient", "document_type_2": "Oximetry or blood gas report"}


# ---- DME ----------------------------------------------------------------------------------
def dme_form(data, **changes) -> dict:
    subscriber = data["subscriber"]
    form = {"subscriber_id": subscriber.subscriber_id, "subscriber_dob": subscriber.dob.strftime("%d-%b-%Y"),
            "hcpcs_code": "E0601", "quantity": "1", "diagnosis_codes": "G47.33", "ordering_npi": data["npi"],
            "supplier_npi": data["supplier"], "face_to_face_date": "01-Nov-2026", "order_date": "05-Nov-2026",
            "ahi": "22.4", "spo2_rest": "", "spo2_exertion": "", "sleep_test_date": "03-Nov-2026",
            "written_order": pdf(ORDER_PDF, "written order.pdf"),
            "document_type_2": "Sleep study report", "attachment_2": pdf(LETTER_PDF, "psg.pdf")}
    form.update(changes)
    return form


def submit_dme(client, data, **changes):
    return client.post("/dme/new", dme_form(data, **changes), content_type="multipart/form-data")


def test_dme_form_shows_requirements(client):
    page = client.get("/dme/new").get_data(as_text=True)
    assert "Face-to-Face Evaluation Date (DD-MMM-YYYY)" in page and "Detailed Written Order (PDF, required)" in page
    assert "Apnea-Hypopnea Index (AHI) &gt;= 15" in page and "Resting SpO2 (%) &lt;= 88" in page
    assert "BreatheRight Home Medical" in page


def test_dme_cpap_approved(client, data):
    response = submit_dme(client, data)
    assert response.status_code == 302, response.get_data(as_text=True)
    [item] = dme_filed(client)
    assert item["request_id"] == "KM-D-26-000001" and item["status"] == "Approved"
    assert item["authorization_number"] == "KMH26900001" and item["approved_months"] == 3 and item["ahi"] == 22.4
    attachments = client.snapshot()["attachments"]
    assert [(a["owner_id"], a["document_type"], a["file_name"]) for a in attachments] == [
        ("KM-D-26-000001", "Detailed written order", "written_order.pdf"),
        ("KM-D-26-000001", "Sleep study report", "psg.pdf")]
    page = client.get(response.location).get_data(as_text=True)
    assert "KMH26900001" in page and "3-month rental" in page
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "dme.detail"][-1]
    assert audit["record_id"] == "KM-D-26-000001"
    assert client.get(f"/dme/KM-D-26-000001/attachments/{attachments[0]['id']}").data == ORDER_PDF
    assert "KM-D-26-000001" in client.get("/dme?q=E0601").get_data(as_text=True)


@pytest.mark.parametrize("changes, status, reason", [
    ({"ahi": "12.0"}, "Denied", "AHI 12 does not meet the criterion AHI >= 15, or AHI 5-14 with a documented comorbidity"),
    ({"ahi": ""}, "Pended", "Qualifying test result required"),
    ({"face_to_face_date": "01-Apr-2026"}, "Denied", "more than 6 months before the order date"),
    ({"diagnosis_codes": "I10"}, "Denied", "not covered indications"),
    ({"attachment_2": (io.BytesIO(b""), "")}, "Pended", "Upload: Sleep study report"),
    ({**OXYGEN_TEST, "spo2_rest": "90"}, "Denied", "does not meet the criterion: SpO2 <= 88% on room air at rest"),
    ({**OXYGEN_TEST, "spo2_rest": "87"}, "Approved", "12-month rental"),
    ({"hcpcs_code": "E0143", "diagnosis_codes": "R26.2", "ahi": ""}, "Approved", "purchase"),
])
def test_dme_evaluation(client, data, changes, status, reason):
    submit_dme(client, data, **changes)
    [item] = dme_filed(client)
    assert item["status"] == status and reason in item["decision_reason"]
    assert (item["authorization_number"] is not None) == (status == "Approved")


def test_dme_duplicate(client, data):
    submit_dme(client, data)
    submit_dme(client, data, ahi="23.0")  # a different post: an identical one is a double submit
    first, second = dme_filed(client)
    assert second["status"] == "Duplicate" and first["request_id"] in second["decision_reason"]


def test_dme_fax_only_item_refused(client, data):
    response = submit_dme(client, data, hcpcs_code="K0823", diagnosis_codes="G82.20", ahi="")
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "Fax submission required" in page
    assert "/policies/KM-DME-403/fax-form.pdf" in page
    assert dme_filed(client) == []


@pytest.mark.parametrize("changes, message", [
    ({"subscriber_dob": "01-Jan-1901"}, "No subscriber matches"),
    ({"hcpcs_code": "72148"}, "is not a DME item requested here"),
    ({"face_to_face_date": "10-Nov-2026"}, "must be on or before the order date"),
    ({"face_to_face_date": "2026-11-01"}, "Enter the date as DD-MMM-YYYY"),
    ({"order_date": "20-Nov-2026", "face_to_face_date": "01-Nov-2026"}, "cannot be in the future"),
    ({"order_date": ""}, "Enter the date of the written order."),
    ({"ordering_npi": "1111111111"}, "Enter a valid 10-digit NPI."),
    ({"supplier_npi": ""}, "Select the DME supplier."),
    ({"supplier_npi": "1999999999"}, "Not a valid choice"),
    ({"ahi": "200"}, "Enter an AHI between 0 and 150."),
    ({"spo2_rest": "abc"}, "Not a valid integer value."),
    ({"quantity": "0"}, "Quantity must be between 1 and 99."),
    ({"written_order": (io.BytesIO(b""), "")}, "Attach the detailed written order (PDF)."),
    ({"written_order": (io.BytesIO(b"plain text"), "order.txt")}, "is not a PDF document"),
])
def test_dme_bad_input_changes_nothing(client, data, changes, message):
    before = client.snapshot()
    response = submit_dme(client, data, **changes)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    after = client.snapshot()
    for table in ("dme_requests", "attachments", "number_sequences"):
        assert after[table] == before[table], table


def test_dme_unknown_request_is_404(client):
    assert client.get("/dme/KM-D-26-009999").status_code == 404


# ---- appeals ------------------------------------------------------------------------------
def appeal_form(claim, **changes) -> dict:
    form = {"level": "1", "kind": "Formal appeal", "appellant_name": "Jordan Ellis", "appellant_relationship": "Billing office staff",
            "claim_number": claim.claim_number, "service_date": claim.service_date.strftime("%d-%b-%Y"),
            "billed_amount": f"{claim.billed_amount:.2f}", "reason_category": "Medical necessity",
            "explanation": "The service met every criterion of policy KM-RAD-101; the notes document eight weeks of therapy.",
            "requested_outcome": "Overturn the denial and pay the claim", "attestation": "y",
            "document_type_1": "Letter of medical necessity", "attachment_1": pdf(LETTER_PDF, "appeal letter.pdf"),
            "document_type_2": "Clinical notes"}
    form.update(changes)
    return form


def file_appeal(client, claim, **changes):
    return client.post("/appeals/new", appeal_form(claim, **changes), content_type="multipart/form-data")


def test_appeal_form_prefills_claim(client, data):
    claim = data["open_claim"]
    page = client.get(f"/appeals/new?claim={claim.claim_number}").get_data(as_text=True)
    assert f'value="{claim.claim_number}"' in page and "Appellant Relationship to Subscriber" in page
    assert "I attest that the information in this appeal is true and complete." in page


def test_appeal_filed(client, data):
    claim = data["open_claim"]
    response = file_appeal(client, claim)
    assert response.status_code == 302, response.get_data(as_text=True)
    [appeal] = appeals_filed(client)
    appeal_id = appeal["appeal_id"]
    assert re.fullmatch(r"KM-A-26-\d{6}", appeal_id) and appeal["status"] == "In Review"
    assert appeal["claim_number"] == claim.claim_number and appeal["subscriber_id"] == claim.subscriber_id
    assert appeal["attested"] is True and appeal["decision_due"] == "2027-01-15"
    assert appeal["reason_category"] == "Medical necessity" and appeal["billed_amount"] == claim.billed_amount
    [attachment] = client.snapshot()["attachments"]
    assert attachment["owner_type"] == "appeal" and attachment["file_name"] == "appeal_letter.pdf"
    page = client.get(response.location).get_data(as_text=True)
    assert appeal_id in page and "15-Jan-2027" in page and "appeal_letter.pdf" in page
    assert appeal_id in client.get(f"/claims/{claim.claim_number}?tab=appeals").get_data(as_text=True)
    assert appeal_id in client.get("/appeals").get_data(as_text=True)
    assert appeal_id in client.get(f"/appeals?q={claim.claim_number}").get_data(as_text=True)
    audit = [r for r in client.snapshot()["audit_events"] if r["endpoint"] == "appeals.new"][-1]
    assert audit["action"] == "file_appeal" and audit["record_id"] == appeal_id
    assert client.get(f"/appeals/{appeal_id}/attachments/{attachment['id']}").data == LETTER_PDF
    assert client.get(f"/appeals/KM-A-26-999999/attachments/{attachment['id']}").status_code == 404
    second = file_appeal(client, claim, appellant_name="Jordan Ellis, again")
    assert second.status_code == 422 and f"Appeal {appeal_id} (level 1) is still in review" in second.get_data(as_text=True)


@pytest.mark.parametrize("changes, message", [
    ({"appellant_name": ""}, "Enter the appellant&#39;s name."),
    ({"appellant_relationship": ""}, "Select the appellant&#39;s relationship."),
    ({"service_date": "01-Jan-2020"}, "The date of service does not match our records"),
    ({"service_date": "Jan 1 2020"}, "Enter the date as DD-MMM-YYYY"),
    ({"billed_amount": "1.00"}, "The billed amount does not match our records"),
    ({"billed_amount": "abc"}, "Not a valid decimal value."),
    ({"reason_category": "Other"}, "Not a valid choice"),
    ({"explanation": "Too short."}, "50 to 8000 characters"),
    ({"requested_outcome": ""}, "Select the outcome you request."),
    ({"attestation": ""}, "You must attest before the appeal can be filed."),
    ({"attachment_1": (io.BytesIO(b""), "")}, "Attach the appeal letter or supporting document (PDF)."),
    ({"attachment_1": (io.BytesIO(b"\x89PNG not a pdf"), "letter.pdf")}, "is not a PDF document"),
    ({"claim_number": "CLM00-0000000"}, "No claim CLM00-0000000 is on file"),
])
def test_appeal_bad_input_changes_nothing(client, data, changes, message):
    before = client.snapshot()
    response = file_appeal(client, data["open_claim"], **changes)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    after = client.snapshot()
    for table in ("appeals", "attachments", "number_sequences"):
        assert after[table] == before[table], table


def test_appeal_amount_may_carry_dollar_sign_and_commas(client, data):
    claim = data["open_claim"]
    assert file_appeal(client, claim, billed_amount=f"${claim.billed_amount:,.2f}").status_code == 302
    assert appeals_filed(client)[0]["billed_amount"] == claim.billed_amount


def test_appeal_refused_after_filing_limit(client, data):
    response = file_appeal(client, data["late_claim"])
    assert response.status_code == 422 and "Late appeals are not accepted" in response.get_data(as_text=True)
    assert appeals_filed(client) == []


def test_appeal_refused_while_claim_in_process(client, data):
    response = file_appeal(client, data["pending_claim"])
    assert response.status_code == 422 and "is still in process" in response.get_data(as_text=True)


def test_appeal_accepted_on_deadline_day(client, data):
    late = data["late_claim"]
    with client.app.extensions["admindesk"].db.new_session() as session:
        deadline = session.scalars(select(ExplanationOfBenefits.appeal_deadline)
                                   .where(ExplanationOfBenefits.claim_number == late.claim_number)).one()
    client.reset(f"{deadline.isoformat()}T16:00:00")
    client.login()
    assert file_appeal(client, late).status_code == 302
    assert appeals_filed(client)[0]["submitted_at"] == f"{deadline.isoformat()}T16:00:00"


def test_appeal_unknown_is_404(client):
    assert client.get("/appeals/KM-A-26-999999").status_code == 404
