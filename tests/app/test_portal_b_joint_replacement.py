"""Payer portal B: the joint replacement policy (KM-SUR-601) states its arthroplasty criteria on
the policy pages (radiographs of the operated joint within 12 months, weeks of therapy counted in
the therapy record), and a total knee arthroplasty is decided on the request's answers."""
from __future__ import annotations

import io

import pytest

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_precert import request_form, requesters

NOTE_PDF = render_pdf("Orthopedic note", [("Patient", "Test")], "Right knee osteoarthritis; plan arthroplasty.")
XRAY_PDF = render_pdf("XR knee right", [("Patient", "Test")], "Kellgren-Lawrence grade 4.")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    return requesters(app)


def submit(client, people, weeks: str, red_flags: str = "") -> dict:
    form = request_form(people, **{
        "service_code": "27447", "diagnosis_codes": "M17.11", "place_of_service": "24", "start_date": "08-Dec-2026",
        "end_date": "05-Feb-2027", "conservative_therapy_weeks": weeks, "red_flag_symptoms": red_flags,
        "prior_imaging": "Yes", "clinical_summary": "Right knee osteoarthritis, failed physical therapy.",
        "attachment_1": (io.BytesIO(NOTE_PDF), "note.pdf"),
        "document_type_2": "Imaging report", "attachment_2": (io.BytesIO(XRAY_PDF), "xray.pdf")})
    response = client.post("/precertification/new", form, content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    return item


def test_policy_page_states_the_arthroplasty_criteria(client):
    page = client.get("/policies/KM-SUR-601").get_data(as_text=True)
    for text in ("Total knee arthroplasty (27447)", "within the 12 months before the request",
                 "Kellgren-Lawrence grade 3 or 4", "Imaging of the other side",
                 "counted in the physical therapy record, from its first visit", "M17.12 left knee"):
        assert text in page
    assert "KM-SUR-601" in client.get("/policies?q=27447").get_data(as_text=True)


def test_twelve_weeks_or_more_with_imaging_is_approved(client, people):
    item = submit(client, people, "14")
    assert item["status"] == "Approved" and item["policy_number"] == "KM-SUR-601"
    assert item["clinical"]["conservative_therapy_weeks"] == 14 and item["approved_units"] == 1


def test_six_weeks_of_therapy_is_denied_quoting_the_twelve(client, people):
    item = submit(client, people, "6", red_flags="No")  # no locked joint: the weeks decide
    assert item["status"] == "Denied" and "12 or more weeks of conservative therapy" in item["decision_reason"]
