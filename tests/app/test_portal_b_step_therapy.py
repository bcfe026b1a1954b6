"""Payer portal B: the step-therapy policy for golimumab IV (KM-RX-505) on the precertification
form (its Step Therapy section and validation messages), the request's determination and the
policy pages."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_precert import portal_requests, request_form, requesters

# Methotrexate 20 weeks and adalimumab 22 weeks, each with an inadequate response: both steps met.
STEPS_MET = {"step1_drug": "Methotrexate", "step1_start": "04-Aug-2025", "step1_end": "22-Dec-2025",
             "step1_outcome": "Inadequate response", "step2_drug": "Adalimumab", "step2_start": "12-Jan-2026",
             "step2_end": "15-Jun-2026", "step2_outcome": "Inadequate response"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    return requesters(app)


def post(client, people, **changes):
    """Golimumab IV 2 mg/kg at 78 kg (156 mg = 156 units of J1602) for rheumatoid arthritis."""
    return client.post("/precertification/new", request_form(people, **{
        "service_code": "J1602", "units": "156", "diagnosis_codes": "M05.79", "place_of_service": "11",
        "conservative_therapy_weeks": "", "red_flag_symptoms": "", **STEPS_MET,
        "clinical_summary": "Golimumab IV after methotrexate and adalimumab failed.", **changes}),
        content_type="multipart/form-data")


def submit(client, people, **changes):
    response = post(client, people, **changes)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = portal_requests(client)
    return item


def test_both_steps_failed_for_12_weeks_is_approved_with_the_weeks_counted_from_the_dates(client, people):
    item = submit(client, people)
    assert item["status"] == "Approved" and item["policy_number"] == "KM-RX-505" and item["approved_units"] == 156
    assert item["clinical"]["step1_start"] == "2025-08-04" and item["clinical"]["step1_weeks"] == 20
    assert item["clinical"]["step2_drug"] == "Adalimumab" and item["clinical"]["step2_weeks"] == 22
    page = client.get(f"/precertification/{item['reference_number']}").get_data(as_text=True)
    assert "Step Therapy 1" in page and "04-Aug-2025 to 22-Dec-2025 (20 weeks)" in page


def test_an_intolerance_meets_a_step_whatever_its_length(client, people):
    item = submit(client, people, step1_end="29-Sep-2025", step1_outcome="Intolerance")
    assert item["status"] == "Approved" and item["clinical"]["step1_weeks"] == 8


@pytest.mark.parametrize("answer", [
    {"step1_end": "29-Sep-2025"},  # 8 weeks of an inadequate response
    {"step2_drug": "Etanercept", "step2_start": "08-Dec-2025", "step2_end": "29-Dec-2025",
     "step2_outcome": "Stopped for another reason"},
    {"step2_drug": "Apremilast"},  # not a preferred biologic
], ids=["8-weeks", "stopped-for-cost", "not-a-preferred-biologic"])
def test_a_step_the_policy_does_not_count_is_denied(client, people, answer):
    item = submit(client, people, **answer)
    assert item["status"] == "Denied" and "KM-RX-505" in item["decision_reason"]


def test_an_unanswered_step_is_pended(client, people):
    item = submit(client, people, step2_drug="", step2_start="", step2_end="", step2_outcome="")
    assert item["status"] == "Pended" and "a preferred biologic (step 2)" in item["decision_reason"]


def test_a_request_for_another_service_keeps_its_answers_free_of_steps(client, people):
    item = submit(client, people, service_code="72148", units="1", diagnosis_codes="M54.16",
                  conservative_therapy_weeks="8", red_flag_symptoms="No", **{f"step{n}_{part}": ""
                  for n in (1, 2) for part in ("drug", "start", "end", "outcome")})
    assert item["status"] == "Approved" and not any(key.startswith("step") for key in item["clinical"])


@pytest.mark.parametrize(("answer", "message"), [
    ({"step1_outcome": ""}, "Select the outcome of the step 1 drug."),
    ({"step2_drug": ""}, "Select the step 2 drug."),
    ({"step2_end": ""}, "Enter the step 2 drug&#39;s start and stop dates"),
    ({"step1_end": "01-Jul-2025"}, "The step 1 stop date cannot be before its start date."),
    ({"step1_start": "2025-08-04"}, "Enter the date as DD-MMM-YYYY"),
], ids=["drug-without-outcome", "outcome-without-drug", "missing-dates", "stop-before-start", "date-format"])
def test_the_step_therapy_section_refuses_an_incomplete_step(client, people, answer, message):
    response = post(client, people, **answer)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert not portal_requests(client)


def test_a_contraindication_needs_no_dates(client, people):
    item = submit(client, people, step1_start="", step1_end="", step1_outcome="Contraindication")
    assert item["status"] == "Approved" and item["clinical"]["step1_outcome"] == "Contraindication"


def test_policy_pages_show_the_step_therapy_policy(client):
    page = client.get("/policies/KM-RX-505").get_data(as_text=True)
    for text in ("Golimumab Intravenous", "J1602", "at least 12 weeks", "adalimumab, etanercept or infliximab",
                 "is not a failed trial", "Step Therapy section"):
        assert text in page
    assert "KM-RX-505" in client.get("/precertification/requirements?code=J1602").get_data(as_text=True)
    form = client.get("/precertification/new").get_data(as_text=True)
    assert "Step Therapy (prior agents tried)" in form and "Step 2 (preferred biologic): drug" in form
