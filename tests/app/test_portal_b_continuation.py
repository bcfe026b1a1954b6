"""Payer portal B: the continuation-of-therapy policy for rheumatoid arthritis biologics (KM-RX-520)
on the precertification form (its Continuation of Therapy section and validation messages), the
determination of a renewal against the approvals on file, and the policy pages. The member is
pa-hard-04's: tocilizumab (J3262) first approved from 01-Dec-2025, the current approval ending
25-Nov-2026."""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_precert import portal_requests, request_form

TASK = "pa-hard-04"
# Pre-treatment DAS28 6.1 (before the first dose) and 3.9 measured 14 days before the request.
RESPONSE = {"baseline_das28": "6.1", "baseline_das28_date": "10-Nov-2025", "current_das28": "3.9",
            "current_das28_date": "02-Nov-2026"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def start(client, now: str | None = None) -> dict:
    """The task's case on file; the member, the NPI and the current approval's authorization number."""
    snapshot = client.start_task(TASK, now)
    on_file = sorted((r for r in snapshot["precert_requests"] if r["service_code"] == "J3262"),
                     key=lambda r: r["end_date"])
    subscriber = next(s for s in snapshot["subscribers"] if s["subscriber_id"] == on_file[-1]["subscriber_id"])
    member = SimpleNamespace(subscriber_id=subscriber["subscriber_id"], dob=date.fromisoformat(subscriber["dob"]))
    return {"subscriber": member, "npi": on_file[-1]["rendering_npi"], "current": on_file[-1]["authorization_number"],
            "first": on_file[0]["authorization_number"]}


def post(client, people, **changes):
    """Tocilizumab 560 mg (J3262 x560) from the day after the current approval ends, in the office."""
    return client.post("/precertification/new", request_form(people, **{
        "service_code": "J3262", "units": "560", "diagnosis_codes": "M05.79", "place_of_service": "11",
        "start_date": "26-Nov-2026", "end_date": "24-Jan-2027", "conservative_therapy_weeks": "",
        "red_flag_symptoms": "", "continuation_of": people["current"], **RESPONSE,
        "clinical_summary": "Continuation of tocilizumab on the DAS28 response from the pre-treatment baseline.",
        **changes}), content_type="multipart/form-data")


def submit(client, people, **changes) -> dict:
    response = post(client, people, **changes)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = [r for r in portal_requests(client) if r["submitted_by"]]
    return item


def refused(client, people, message: str, **changes) -> None:
    response = post(client, people, **changes)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert not [r for r in portal_requests(client) if r["submitted_by"]]


def test_a_response_from_the_pretreatment_baseline_is_approved_under_the_continuation_policy(client):
    people = start(client)
    item = submit(client, people)
    assert item["status"] == "Approved" and item["policy_number"] == "KM-RX-520" and item["approved_units"] == 560
    clinical = item["clinical"]
    assert clinical["continuation_of"] == people["current"] and clinical["das28_improvement"] == 2.2
    assert clinical["das28_days_old"] == 14 and clinical["baseline_pretreatment"] == "Yes"
    page = client.get(f"/precertification/{item['reference_number']}").get_data(as_text=True)
    assert f"Authorization {people['current']}" in page and "improvement 2.2" in page


def test_a_baseline_taken_at_an_earlier_renewal_is_no_pretreatment_baseline(client):
    people = start(client)
    item = submit(client, people, baseline_das28="4.4", baseline_das28_date="11-May-2026")
    assert item["status"] == "Denied" and "KM-RX-520" in item["decision_reason"]
    assert item["clinical"]["baseline_pretreatment"] == "No"


@pytest.mark.parametrize(("answer", "field", "value"), [
    ({"current_das28": "5.2"}, "das28_improvement", 0.9),
    ({"current_das28_date": "10-Aug-2026"}, "das28_days_old", 98),
], ids=["too-little-improvement", "score-older-than-90-days"])
def test_a_response_short_of_the_policy_is_denied(client, answer, field, value):
    people = start(client)
    item = submit(client, people, **answer)
    assert item["status"] == "Denied" and "within 90 days" in item["decision_reason"]
    assert item["clinical"][field] == value


def test_a_renewal_must_name_an_approval_on_file_for_the_member_and_drug(client):
    people = start(client)
    refused(client, people, "No approved authorization KMH00000000 for J3262", continuation_of="KMH00000000")


def test_a_renewal_before_the_window_opens_is_refused(client):
    people = start(client, now="2026-10-01T09:00:00")
    refused(client, people, "a continuation request is accepted from 26-Oct-2026",
            current_das28_date="15-Sep-2026")


@pytest.mark.parametrize(("answer", "message"), [
    ({"current_das28": ""}, "A continuation states the pre-treatment and the most recent DAS28"),
    ({"baseline_das28_date": "03-Nov-2026"}, "The pre-treatment DAS28 is measured before the most recent one."),
    ({"current_das28_date": "20-Nov-2026"}, "The most recent DAS28 cannot be measured after today."),
    ({"continuation_of": ""}, "Enter the authorization this request continues, or clear the DAS28 answers."),
    ({"current_das28": "11.5"}, "A DAS28 is between 0 and 10."),
], ids=["missing-score", "baseline-after-latest", "future-score", "scores-without-authorization", "out-of-range"])
def test_the_continuation_section_refuses_an_incomplete_answer(client, answer, message):
    people = start(client)
    refused(client, people, message, **answer)


def test_an_initial_request_is_still_judged_by_the_drugs_own_policy(client):
    people = start(client)
    item = submit(client, people, continuation_of="", baseline_das28="", baseline_das28_date="", current_das28="",
                  current_das28_date="", conservative_therapy_weeks="30")
    assert item["policy_number"] == "KM-RX-501" and "continuation_of" not in item["clinical"]


def test_a_drug_without_a_continuation_policy_refuses_the_section(client):
    people = start(client)
    refused(client, people, "J1602 has no continuation policy", service_code="J1602", units="156")


def test_policy_pages_show_the_continuation_policy(client):
    page = client.get("/policies/KM-RX-520").get_data(as_text=True)
    for text in ("Continuation of Therapy", "J1745", "J3262", "PRE-TREATMENT baseline", "within 90 days",
                 "30 days before the current approval"):
        assert text in page
    assert "KM-RX-520" in client.get("/policies?q=J3262").get_data(as_text=True)
    form = client.get("/precertification/new").get_data(as_text=True)
    assert "Continuation of Therapy (re-authorization)" in form and "Continuation: most recent DAS28" in form
