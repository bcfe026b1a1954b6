"""Keystone Mutual's inpatient cases (policy KM-UM-201) and the stay in the EHR: a notification
accepted with its initial days and next review (late ones flagged, refused ones changing nothing and
keeping what was typed), a concurrent review that states continued-stay findings getting days, one
that states none pended, a discharge report closing the case; the EHR's inpatient encounter, its
documents and the Prior Auth item; a notification on file seeded from the case."""
from __future__ import annotations

from datetime import date

import pytest

from admindesk.envs.payer_portal_b.rules import inpatient_rules

from .conftest import case_clients

NEW_TASK, ON_FILE_TASK = "pa-medium-13", "pa-hard-08"
UPDATE = ("Desaturated to 85% overnight, back on 4 L/min nasal cannula; temperature 38.6 C, heart rate 112; "
          "piperacillin-tazobactam IV every 6 hours; new parapneumonic effusion.")


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "inpatient", ("ehr_web", "payer_portal_b"))


def stay_facts(ehr: dict, portal: dict) -> dict:
    """The stay's order, encounter, patient and member, from the two snapshots."""
    [order] = [o for o in ehr["orders"] if o["code"] == "99223"]
    [encounter] = [e for e in ehr["encounters"] if e["id"] == order["encounter_id"]]
    [patient] = [p for p in ehr["patients"] if p["mrn"] == order["mrn"]]
    [coverage] = [c for c in ehr["coverages"] if c["id"] == order["coverage_id"]]
    [hospital] = [f for f in ehr["facilities"] if f["id"] == order["facility_id"]]
    return {"order": order, "encounter": encounter, "patient": patient, "member": coverage["member_id"],
            "hospital": hospital}


def notification(facts: dict, **changes) -> dict:
    admitted = facts["encounter"]["admitted_at"]
    form = {"subscriber_id": facts["member"],
            "subscriber_dob": date.fromisoformat(facts["patient"]["dob"]).strftime("%d-%b-%Y"),
            "admit_date": date.fromisoformat(admitted[:10]).strftime("%d-%b-%Y"), "admit_time": admitted[11:16],
            "facility_npi": facts["hospital"]["npi"], "attending_npi": facts["order"]["ordering_npi"],
            "admission_type": "Emergent", "admitting_diagnosis": "I50.23",
            "clinical_summary": "Acute on chronic systolic heart failure via the ED: SpO2 87% on room air, 3 L "
                                "nasal cannula, furosemide 40 mg IV every 12 hours."}
    form.update(changes)
    return form


@pytest.fixture()
def new_stay(clients):
    ehr = clients["ehr_web"].start_task(NEW_TASK)
    portal = clients["payer_portal_b"].start_task(NEW_TASK)
    return stay_facts(ehr, portal), portal


def test_the_ehr_shows_the_admission_its_notes_and_the_prior_auth_item(clients, new_stay):
    facts, _ = new_stay
    encounter, order = facts["encounter"], facts["order"]
    assert (encounter["kind"], encounter["admission_type"], encounter["unit"], encounter["bed"]) == (
        "Inpatient Admission", "Emergent", "4 West Cardiac Telemetry", "412-A")
    assert encounter["admitted_at"].startswith("2026-11-15T21:40") and encounter["discharged_on"] is None
    assert facts["hospital"]["place_of_service"] == "21"
    ehr = clients["ehr_web"]
    snapshot = ehr.snapshot()
    notes = [d for d in snapshot["documents"] if d["encounter_id"] == encounter["id"]]
    assert {d["document_date"] for d in notes} == {"2026-11-15", "2026-11-16"}
    [item] = [w for w in snapshot["work_items"] if w["order_id"] == order["id"]]
    assert item["queue"] == "Prior Auth"
    page = ehr.get(f"/orders/{order['id']}").get_data(as_text=True)
    assert "Inpatient admission" in page and "11/15/2026 21:40 (Emergent)" in page and "412-A" in page
    assert "I50.23" in page and f"NPI {facts['hospital']['npi']}" in page
    chart = ehr.get(f"/patients/{order['mrn']}/encounters").get_data(as_text=True)
    assert "Inpatient Admission" in chart and "Admission history and physical" in chart
    assert "Hospital progress note" in chart


def test_a_notification_on_time_gets_its_initial_days_and_next_review(clients, new_stay):
    facts, _ = new_stay
    portal = clients["payer_portal_b"]
    response = portal.post("/inpatient/new", notification(facts))
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    snapshot = portal.snapshot()
    [case] = snapshot["inpatient_cases"]
    assert case["case_number"] == "KM-I-26-000001" and case["status"] == "Approved" and not case["late"]
    assert (case["approved_days"], case["next_review_date"]) == (3, "2026-11-18")  # I50: 3 days from 11/15
    assert case["admitted_at"] == facts["encounter"]["admitted_at"] and case["source"] == "Portal"
    [review] = snapshot["inpatient_reviews"]
    assert (review["kind"], review["days_approved"]) == ("Initial review", 3)
    [letter] = [c for c in snapshot["correspondence"] if c["related_id"] == case["case_number"]]
    assert letter["related_type"] == "inpatient"
    page = portal.get(response.headers["Location"]).get_data(as_text=True)
    assert "KM-I-26-000001" in page and "18-Nov-2026" in page and "Late notification" not in page
    listed = portal.get("/inpatient?q=" + facts["member"]).get_data(as_text=True)
    assert "KM-I-26-000001" in listed and "Next Review" in listed
    again = portal.post("/inpatient/new", notification(facts, admit_time="21:45"))
    assert again.status_code == 422 and "An open inpatient case is on file" in again.get_data(as_text=True)


def test_eligibility_states_the_inpatient_benefit_and_its_notification_rule(clients, new_stay):
    facts, _ = new_stay
    portal = clients["payer_portal_b"]
    form = notification(facts)
    response = portal.post("/eligibility", {"subscriber_id": facts["member"], "dob": form["subscriber_dob"],
                                            "service_date": form["admit_date"]})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    page = portal.get(response.headers["Location"]).get_data(as_text=True)
    assert "Inpatient Hospital" in page and "next business day" in page and "KM-UM-201" in page


def test_the_policy_library_states_km_um_201_as_the_rules_apply_it(clients, new_stay):
    portal = clients["payer_portal_b"]
    page = portal.get("/policies/KM-UM-201").get_data(as_text=True)
    assert "Inpatient Admission Notification and Concurrent Review" in page
    assert "next business day" in page and "up to 3 per review" in page and "discharge" in page
    assert "KM-UM-201" in portal.get("/policies?q=KM-UM-201").get_data(as_text=True)
    # Inpatient care is notified, not precertified: the code lookup names no policy for it.
    lookup = portal.get("/precertification/requirements?code=99223").get_data(as_text=True)
    assert "KM-UM-201" not in lookup


def test_a_notification_after_the_next_business_day_is_accepted_and_flagged(clients):
    clients["ehr_web"].start_task(NEW_TASK)
    ehr = clients["ehr_web"].snapshot()
    portal = clients["payer_portal_b"]
    portal.start_task(NEW_TASK, now="2026-11-18T09:00:00")  # admitted Sunday 11/15: due Monday 11/16
    response = portal.post("/inpatient/new", notification(stay_facts(ehr, {})))
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    [case] = portal.snapshot()["inpatient_cases"]
    assert case["late"] is True and case["status"] == "Approved"
    assert "Late notification" in portal.get(response.headers["Location"]).get_data(as_text=True)


@pytest.mark.parametrize("changes, field, message", [
    ({"admit_time": "9:40pm"}, "admit_time", "Enter the time as HH:MM"),
    ({"admission_type": ""}, "admission_type", "Select the admission type."),
    ({"facility_npi": "attending"}, "facility_npi", "is not a facility in the Keystone Mutual provider file"),
    ({"admitting_diagnosis": "Z99.99"}, "admitting_diagnosis", "is not an ICD-10-CM code Keystone Mutual recognizes"),
    ({"admit_date": "20-Nov-2026"}, "admit_date", "cannot be in the future"),
    ({"clinical_summary": ""}, "clinical_summary", "Enter the clinical summary"),
])
def test_a_refused_notification_says_why_keeps_what_was_typed_and_changes_nothing(clients, new_stay, changes,
                                                                                   field, message):
    facts, before = new_stay
    portal = clients["payer_portal_b"]
    if changes.get("facility_npi") == "attending":
        changes = {"facility_npi": facts["order"]["ordering_npi"]}
    form = notification(facts, **changes)
    response = portal.post("/inpatient/new", form)
    assert response.status_code == 422
    text = response.get_data(as_text=True)
    assert message in text, text[:3000]
    assert f'value="{form["subscriber_id"]}"' in text and "SpO2 87% on room air" in text or field == "clinical_summary"
    after = portal.snapshot()
    assert after["inpatient_cases"] == before["inpatient_cases"] == []
    assert after["inpatient_reviews"] == before["inpatient_reviews"] == []


def _on_file(clients):
    ehr = clients["ehr_web"].start_task(ON_FILE_TASK)
    portal = clients["payer_portal_b"].start_task(ON_FILE_TASK)
    return stay_facts(ehr, portal), portal


def test_a_notification_on_file_is_seeded_and_recorded_in_the_ehr(clients):
    facts, portal = _on_file(clients)
    [case] = portal["inpatient_cases"]
    assert (case["subscriber_id"], case["source"], case["approved_days"], case["next_review_date"]) == (
        facts["member"], "On file", 4, "2026-11-16")
    assert case["case_number"].startswith("KM-I-26-9") and not case["late"]
    [auth] = [a for a in clients["ehr_web"].snapshot()["order_authorizations"]
              if a["order_id"] == facts["order"]["id"]]
    assert (auth["status"], auth["auth_number"], auth["approved_units"], auth["end_date"]) == (
        "Approved", case["case_number"], 4, "2026-11-16")


def test_a_review_stating_continued_stay_findings_gets_the_days_asked(clients):
    facts, portal_state = _on_file(clients)
    [case] = portal_state["inpatient_cases"]
    portal = clients["payer_portal_b"]
    response = portal.post(f"/inpatient/{case['case_number']}/reviews", {
        "review_type": "Continued stay", "review_date": "16-Nov-2026", "clinical_update": UPDATE,
        "days_requested": "2"})
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    snapshot = portal.snapshot()
    [after] = snapshot["inpatient_cases"]
    assert (after["approved_days"], after["next_review_date"], after["status"]) == (6, "2026-11-18", "Approved")
    [review] = [r for r in snapshot["inpatient_reviews"] if r["kind"] == "Concurrent review"]
    assert (review["days_requested"], review["days_approved"], review["outcome"]) == (2, 2, "Approved")
    page = portal.get(f"/inpatient/{case['case_number']}?tab=letters").get_data(as_text=True)
    assert "Concurrent Review Determination" in page


def test_a_review_without_continued_stay_findings_is_pended_and_adds_no_days(clients):
    _, portal_state = _on_file(clients)
    [case] = portal_state["inpatient_cases"]
    portal = clients["payer_portal_b"]
    response = portal.post(f"/inpatient/{case['case_number']}/reviews", {
        "review_type": "Continued stay", "review_date": "16-Nov-2026",
        "clinical_update": "Patient doing well, walking the hall, family visiting.", "days_requested": "2"})
    assert response.status_code == 302
    [after] = portal.snapshot()["inpatient_cases"]
    assert (after["approved_days"], after["next_review_date"]) == (4, "2026-11-16")
    assert inpatient_rules.decide_review(UPDATE, 5).days == 3  # at most 3 days per review


def test_a_discharge_report_closes_the_case(clients):
    _, portal_state = _on_file(clients)
    [case] = portal_state["inpatient_cases"]
    portal = clients["payer_portal_b"]
    refused = portal.post(f"/inpatient/{case['case_number']}/reviews", {
        "review_type": "Discharge", "review_date": "16-Nov-2026", "discharge_date": "16-Nov-2026",
        "disposition": "Home", "days_requested": "1"})
    assert refused.status_code == 422 and "requests no days" in refused.get_data(as_text=True)
    assert portal.snapshot()["inpatient_cases"] == portal_state["inpatient_cases"]
    response = portal.post(f"/inpatient/{case['case_number']}/reviews", {
        "review_type": "Discharge", "review_date": "16-Nov-2026", "discharge_date": "16-Nov-2026",
        "disposition": "Home"})
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    [after] = portal.snapshot()["inpatient_cases"]
    assert (after["status"], after["discharged_on"], after["disposition"], after["next_review_date"]) == (
        "Discharged", "2026-11-16", "Home", None)
    assert after["approved_days"] == 4
    late = portal.post(f"/inpatient/{case['case_number']}/reviews", {
        "review_type": "Continued stay", "review_date": "16-Nov-2026", "clinical_update": UPDATE,
        "days_requested": "2"})
    assert late.status_code == 422 and "takes no more reviews" in late.get_data(as_text=True)


def test_notification_due_skips_the_weekend():
    from datetime import datetime
    assert inpatient_rules.notification_due(datetime(2026, 11, 13, 20, 0)) == date(2026, 11, 16)  # Friday
    assert inpatient_rules.notification_due(datetime(2026, 11, 15, 21, 40)) == date(2026, 11, 16)  # Sunday
    assert inpatient_rules.notification_due(datetime(2026, 11, 16, 8, 0)) == date(2026, 11, 17)
    assert inpatient_rules.initial_days("I50.23") == 3 and inpatient_rules.initial_days("K35.80") == 2
