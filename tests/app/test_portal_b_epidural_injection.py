"""Payer portal B: the lumbar epidural steroid injection policy (KM-PAIN-702) on the precertification
form (its injection answers), the request's determination and the policy pages."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_precert import portal_requests, request_form, requesters

REPEAT_MET = {"esi_repeat": "Yes", "esi_prior_relief_percent": "75", "esi_relief_weeks": "8",
              "esi_sessions_12_months": "1"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    return requesters(app)


def submit(client, people, **changes):
    """A repeat L5-S1 interlaminar ESI (62323) for lumbar disc radiculopathy, every answer met."""
    response = client.post("/precertification/new", request_form(people, **{
        "service_code": "62323", "diagnosis_codes": "M51.16", "place_of_service": "24",
        "conservative_therapy_weeks": "", "red_flag_symptoms": "", **REPEAT_MET,
        "clinical_summary": "Repeat L5-S1 ESI: 75% relief for 8 weeks after the 07/30/2026 injection.", **changes}),
        content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = portal_requests(client)
    return item


def test_a_repeat_after_lasting_relief_is_approved_under_km_pain_702(client, people):
    item = submit(client, people)
    assert item["status"] == "Approved" and item["policy_number"] == "KM-PAIN-702"
    assert item["clinical"]["esi_prior_relief_percent"] == 75 and item["clinical"]["esi_sessions_12_months"] == 1
    page = client.get(f"/precertification/{item['reference_number']}").get_data(as_text=True)
    assert "Epidural Injection" in page and "75%" in page


@pytest.mark.parametrize("answer", [{"esi_prior_relief_percent": "30"}, {"esi_relief_weeks": "3"},
                                    {"esi_sessions_12_months": "4"}],
                         ids=["relief-30-percent", "relief-3-weeks", "fifth-session"])
def test_a_repeat_short_of_the_criteria_is_denied(client, people, answer):
    item = submit(client, people, **answer)
    assert item["status"] == "Denied" and "KM-PAIN-702" in item["decision_reason"]
    assert "50% or more relief" in item["decision_reason"]


def test_a_repeat_without_its_relief_is_pended(client, people):
    item = submit(client, people, esi_prior_relief_percent="")
    assert item["status"] == "Pended" and "50% or more relief" in item["decision_reason"]


def test_an_initial_injection_needs_conservative_therapy_and_imaging(client, people):
    item = submit(client, people, esi_repeat="No", esi_prior_relief_percent="", esi_relief_weeks="",
                  esi_sessions_12_months="0", conservative_therapy_weeks="6", prior_imaging="Yes")
    assert item["status"] == "Approved"


def test_a_relief_over_100_percent_is_refused(client, people):
    response = client.post("/precertification/new", request_form(people, **{
        "service_code": "62323", "diagnosis_codes": "M51.16", **REPEAT_MET, "esi_prior_relief_percent": "120"}),
        content_type="multipart/form-data")
    assert response.status_code == 422 and "Enter a relief between 0 and 100 percent." in response.get_data(as_text=True)
    assert not portal_requests(client)


def test_policy_pages_show_the_epidural_injection_policy(client):
    page = client.get("/policies/KM-PAIN-702").get_data(as_text=True)
    for text in ("Lumbar Epidural Steroid Injections", "62323", "64484", "at least 50% pain relief",
                 "at least 6 weeks", "4 sessions", "follow-up note"):
        assert text in page
    assert "KM-PAIN-702" in client.get("/precertification/requirements?code=64483").get_data(as_text=True)
    facet = client.get("/policies/KM-PAIN-701").get_data(as_text=True)
    assert "62323" not in facet and "64493" in facet
