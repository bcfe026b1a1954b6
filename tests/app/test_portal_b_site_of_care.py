"""Payer portal B: the site-of-care policy for infused specialty drugs (KM-RX-510) on the
precertification form, the pended request's answer and the policy pages."""
from __future__ import annotations

import io
from datetime import date

import pytest

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.rules.site_of_care import site_of_care_problem

from .conftest import build_app
from .test_portal_b_precert import request_form, requesters

NOTE_PDF = render_pdf("Rheumatology note", [("Patient", "Test")], "Fourteen weeks of methotrexate failed.")
LAB_PDF = render_pdf("Quantiferon", [("Patient", "Test")], "Negative.")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    """An active subscriber with nothing on file and an individual provider's NPI."""
    return requesters(app)


def infusion_request(people, **changes) -> dict:
    """Infliximab 5 mg/kg at 80 kg (400 mg = 40 units of J1745, per 10 mg) that meets KM-RX-501."""
    return request_form(people, **{
        "service_code": "J1745", "units": "40", "diagnosis_codes": "M05.79", "end_date": "31-Jan-2027",
        "conservative_therapy_weeks": "14", "red_flag_symptoms": "", "hospital_site_reason": "",
        "clinical_summary": "Seropositive rheumatoid arthritis after 14 weeks of methotrexate; TB screen negative.",
        "attachment_1": (io.BytesIO(NOTE_PDF), "note.pdf"),
        "document_type_2": "Lab results", "attachment_2": (io.BytesIO(LAB_PDF), "tb.pdf"), **changes})


def submit(client, people, **changes):
    response = client.post("/precertification/new", infusion_request(people, **changes),
                           content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    return item


@pytest.mark.parametrize("place", ["22", "19"])
@pytest.mark.parametrize("reason", ["", "None documented"])
def test_hospital_outpatient_without_a_reason_is_pended_naming_the_policy(client, people, place, reason):
    item = submit(client, people, place_of_service=place, hospital_site_reason=reason)
    assert item["status"] == "Pended" and item["authorization_number"] is None
    assert "KM-RX-510" in item["decision_reason"] and f"place of service {place}" in item["decision_reason"]
    assert item["place_of_service"] == place and item["policy_number"] == "KM-RX-501"


@pytest.mark.parametrize("place", ["11", "12"])
def test_office_or_home_infusion_is_approved_in_billing_units(client, people, place):
    item = submit(client, people, place_of_service=place)
    assert item["status"] == "Approved" and item["approved_units"] == 40


@pytest.mark.parametrize("reason", ["Severe reaction to a prior infusion", "Unstable cardiac or pulmonary condition",
                                    "First infusion or restart after 6 months"])
def test_hospital_outpatient_with_a_documented_reason_is_approved(client, people, reason):
    item = submit(client, people, hospital_site_reason=reason)
    assert item["status"] == "Approved" and item["clinical"]["hospital_site_reason"] == reason
    page = client.get(f"/precertification/{item['reference_number']}").get_data(as_text=True)
    assert reason in page and "Hospital Setting Reason" in page


def test_pended_site_of_care_answered_with_the_reason_is_approved(client, people):
    item = submit(client, people)
    response = client.post(f"/precertification/{item['reference_number']}/additional-information",
                           {"document_type": "Clinical notes", "attachment": (io.BytesIO(NOTE_PDF), "reaction.pdf"),
                            "conservative_therapy_weeks": "", "red_flag_symptoms": "", "prior_imaging": "",
                            "ahi": "", "spo2_rest": "", "hospital_site_reason": "Severe reaction to a prior infusion"},
                           content_type="multipart/form-data")
    assert response.status_code == 302
    [item] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    assert item["status"] == "Approved" and item["authorization_number"]


def test_policy_reaches_only_its_drugs_and_dates(client, people):
    # Not a site-of-care drug: the hospital setting needs no reason (adalimumab is self-injected).
    assert submit(client, people, service_code="J0135", units="2")["status"] == "Approved"


def test_policy_applies_to_requests_received_from_its_effective_date(client, people):
    with client.app.extensions["admindesk"].db.new_session() as session:
        assert site_of_care_problem(session, "J1745", "22", date(2026, 10, 31), None) is None
        assert site_of_care_problem(session, "J1745", "22", date(2026, 11, 1), None) is not None
        assert site_of_care_problem(session, "J1745", "11", date(2026, 12, 1), None) is None
        assert site_of_care_problem(session, "J2350", "22", date(2026, 12, 1), None) is None


def test_policy_pages_show_the_site_of_care_policy(client):
    page = client.get("/policies/KM-RX-510").get_data(as_text=True)
    assert "Site of Care for Infused Specialty Drugs" in page
    for text in ("J1745", "J3262", "J0129", "J3380", "place of service 19 or 22", "severe reaction to a prior infusion"):
        assert text in page
    assert "KM-RX-510" in client.get("/policies?q=J1745").get_data(as_text=True)
    assert "KM-RX-510" in client.get("/policies/KM-RX-501").get_data(as_text=True)
    lookup = client.get("/precertification/requirements?code=J3262").get_data(as_text=True)
    assert "KM-RX-501" in lookup and "KM-RX-510" in lookup
    assert "KM-RX-510" not in client.get("/precertification/requirements?code=72148").get_data(as_text=True)
