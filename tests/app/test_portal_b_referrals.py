"""Keystone Mutual's HMO referrals: the PCP of record (Keystone's eligibility and the EHR's Coverage
tab agree), the New Referral form checked by the referral rule (refusals change nothing), an
accepted referral's number and 90-day span, and a referral on file seeded from the case."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from .conftest import case_clients

NEW_TASK, ON_FILE_TASK = "pa-easy-16", "pa-medium-06"


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "referral", ("ehr_web", "payer_portal_b"))


def _shown(day: date) -> str:
    return day.strftime("%d-%b-%Y")


def case_facts(ehr: dict, portal: dict) -> dict:
    """The case's member, PCP of record and order (the specialist visit) from the two snapshots."""
    [order] = [o for o in ehr["orders"] if o["code"] == "99204"]
    [patient] = [p for p in ehr["patients"] if p["mrn"] == order["mrn"]]
    [coverage] = [c for c in ehr["coverages"] if c["id"] == order["coverage_id"]]
    [subscriber] = [s for s in portal["subscribers"] if s["subscriber_id"] == coverage["member_id"]]
    return {"order": order, "patient": patient, "coverage": coverage, "subscriber": subscriber}


def referral_form(facts: dict, **changes) -> dict:
    order = facts["order"]
    form = {"subscriber_id": facts["subscriber"]["subscriber_id"],
            "subscriber_dob": _shown(date.fromisoformat(facts["patient"]["dob"])),
            "referring_npi": facts["subscriber"]["pcp_npi"], "specialist_npi": order["ordering_npi"],
            "specialty": "Orthopedics", "diagnosis_codes": order["diagnosis_codes"].replace(",", ", "),
            "visits": "1", "start_date": _shown(date.fromisoformat(order["planned_date"]))}
    form.update(changes)
    return form


@pytest.fixture()
def new_case(clients):
    ehr = clients["ehr_web"].start_task(NEW_TASK)
    portal = clients["payer_portal_b"].start_task(NEW_TASK)
    return case_facts(ehr, portal), portal


def test_the_pcp_of_record_is_the_same_in_the_ehr_and_at_keystone(clients, new_case):
    facts, _ = new_case
    pcp = facts["subscriber"]["pcp_npi"]
    assert pcp and facts["coverage"]["pcp_npi"] == pcp and facts["patient"]["pcp_npi"] == pcp
    portal = clients["payer_portal_b"]
    response = portal.post("/eligibility", {"subscriber_id": facts["subscriber"]["subscriber_id"],
                                            "subscriber_dob": "", "dob": referral_form(facts)["subscriber_dob"],
                                            "service_date": referral_form(facts)["start_date"]})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    page = portal.get(response.headers["Location"]).get_data(as_text=True)
    assert "PCP of Record" in page and f"NPI {pcp}" in page
    assert "Specialist Referral" in page and "primary care physician of record" in page
    chart = clients["ehr_web"].get(f"/patients/{facts['patient']['mrn']}/coverage").get_data(as_text=True)
    assert "PCP of record" in chart and f"NPI {pcp}" in chart


def test_a_referral_from_the_pcp_of_record_is_approved_for_90_days(clients, new_case):
    facts, _ = new_case
    portal = clients["payer_portal_b"]
    response = portal.post("/referrals/new", referral_form(facts))
    assert response.status_code == 302, response.get_data(as_text=True)[:3000]
    [referral] = portal.snapshot()["referrals"]
    start_day = date.fromisoformat(facts["order"]["planned_date"])
    assert referral["referral_number"] == "KR-26-000001" and referral["status"] == "Approved"
    assert (referral["referring_npi"], referral["specialist_npi"]) == (facts["subscriber"]["pcp_npi"],
                                                                     facts["order"]["ordering_npi"])
    assert (referral["start_date"], referral["end_date"]) == (start_day.isoformat(),
                                                               (start_day + timedelta(days=90)).isoformat())
    assert referral["source"] == "Portal" and referral["visits"] == 1
    page = portal.get(response.headers["Location"]).get_data(as_text=True)
    assert "KR-26-000001" in page and "Valid Through" in page
    listed = portal.get("/referrals?q=" + referral["subscriber_id"]).get_data(as_text=True)
    assert "KR-26-000001" in listed


@pytest.mark.parametrize("changes, message", [
    ({"referring_npi": "specialist"}, "is not the subscriber&#39;s PCP of record"),
    ({"visits": "7"}, "Visits must be between 1 and 6."),
    ({"specialty": "Cardiology"}, "not Cardiology"),
    ({"start_date": "01-Nov-2026"}, "A referral cannot start before today."),
    ({"subscriber_dob": "01-Jan-1900"}, "No subscriber matches"),
])
def test_a_refused_referral_names_the_rule_and_changes_nothing(clients, new_case, changes, message):
    facts, before = new_case
    portal = clients["payer_portal_b"]
    if changes.get("referring_npi") == "specialist":
        changes = {"referring_npi": facts["order"]["ordering_npi"]}
    response = portal.post("/referrals/new", referral_form(facts, **changes))
    assert response.status_code == 422
    text = response.get_data(as_text=True)
    assert message in text, text[:3000]
    if "referring_npi" in changes:
        assert "HMO referral rule" in text
    assert portal.snapshot()["referrals"] == before["referrals"] == []


def test_a_referral_on_file_is_seeded_from_the_case(clients):
    ehr = clients["ehr_web"].start_task(ON_FILE_TASK)
    portal = clients["payer_portal_b"].start_task(ON_FILE_TASK)
    facts = case_facts(ehr, portal)
    [referral] = portal["referrals"]
    assert (referral["subscriber_id"], referral["source"], referral["status"]) == (
        facts["subscriber"]["subscriber_id"], "On file", "Approved")
    assert referral["referring_npi"] == facts["subscriber"]["pcp_npi"]
    assert (referral["specialty"], referral["visits"], referral["start_date"], referral["end_date"]) == (
        "Cardiology", 3, "2026-11-09", "2027-02-07")
    page = clients["payer_portal_b"].get("/referrals?q=" + referral["subscriber_id"]).get_data(as_text=True)
    assert referral["referral_number"] in page and "On file" in page


def test_an_empty_referral_list_says_whether_a_search_found_nothing(clients, new_case):
    portal = clients["payer_portal_b"]
    assert "No referrals on file for your organization" in portal.get("/referrals").get_data(as_text=True)
    searched = portal.get("/referrals?q=" + new_case[0]["subscriber"]["subscriber_id"]).get_data(as_text=True)
    assert "No referrals match your search" in searched and "on file for your organization" not in searched
