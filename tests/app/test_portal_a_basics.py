"""Portal A: login, every page, CSRF, snapshot determinism, eligibility and auth lookup."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_a import SPEC, create_app

from .conftest import TOKEN, FormClient, build_app
from .test_portal_a_support import active_member, terminated_member, us

PAGES = ["/", "/payers", "/payers/PYR-NWH", "/payers/PYR-NWH?tab=policies", "/eligibility", "/authorizations",
         "/authorizations/lookup", "/authorizations/new", "/authorizations/drafts", "/authorizations/status",
         "/claims", "/appeals", "/appeals/new", "/correspondence"]


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def test_pages_need_login(app):
    anonymous = FormClient(app)
    anonymous.reset()
    for url in PAGES:
        response = anonymous.get(url)
        assert response.status_code == 302 and "/login" in response.location, url


def test_login_page_has_the_portal_look(app):
    page = FormClient(app).get("/login").get_data(as_text=True)
    assert "Log in to ProviderLink" in page and "portal.css" in page


@pytest.mark.parametrize("url", PAGES)
def test_every_page_renders_with_landmarks(client, url):
    response = client.get(url)
    page = response.get_data(as_text=True)
    assert response.status_code == 200, url
    assert '<nav class="top-tabs" aria-label="Main">' in page and '<main id="main"' in page and "<h1" in page


def test_home_lists_payers_served_and_recent_cases(client, snap):
    page = client.get("/").get_data(as_text=True)
    for payer in snap["payers"]:
        assert payer["name"] in page
    assert "Keystone Mutual" not in page  # served by portal B
    recent = max((r for r in snap["pa_requests"]), key=lambda r: (r["submitted_at"], r["id"]))
    assert recent["case_number"] in page


def test_payer_space_tabs_are_audited(client, snap):
    payer = snap["payers"][0]
    overview = client.get(f"/payers/{payer['id']}").get_data(as_text=True)
    dashed = lambda digits: f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"  # ProviderLink's phone format
    assert dashed(payer["pa_fax"]) in overview and dashed(payer["appeals_fax"]) in overview
    policies = client.get(f"/payers/{payer['id']}?tab=policies").get_data(as_text=True)
    assert "72148" in policies and "6 weeks of documented conservative therapy" in policies
    rows = [a for a in client.snapshot()["audit_events"] if a["record_type"] == "payer"]
    assert [(r["record_id"], r["tab"]) for r in rows] == [(payer["id"], "overview"), (payer["id"], "policies")]
    assert client.get("/payers/NOPE").status_code == 404


def test_csrf_is_enforced(app, snap):
    client = FormClient(app)
    client.login()
    member = active_member(snap)
    response = client.client.post("/eligibility", data={"payer_id": member["payer_id"], "member_id": member["member_id"],
                                                        "dob": us(member["dob"]), "service_date": "11/16/2026"})
    assert response.status_code == 400 and SPEC.messages["form_expired_title"] in response.get_data(as_text=True)
    assert client.snapshot()["eligibility_checks"] == []


def test_snapshot_is_deterministic_after_reset(client):
    client.get("/")
    first = client.reset() and client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).data
    client.reset()
    second = client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).data
    assert first == second and b'"pa_requests"' in first


def test_same_actions_give_the_same_snapshot(app, snap):
    member = active_member(snap)
    results = []
    for _ in range(2):
        client = FormClient(app)
        client.reset()
        client.login()
        client.post("/eligibility", {"payer_id": member["payer_id"], "member_id": member["member_id"],
                                     "dob": us(member["dob"]), "service_date": "11/20/2026"})
        results.append(client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).data)
    assert results[0] == results[1]


# ---- eligibility -----------------------------------------------------------------------
def test_eligibility_active_member_shows_plan_benefits_and_reference(client, snap):
    member = active_member(snap)
    response = client.post("/eligibility", {"payer_id": member["payer_id"], "member_id": member["member_id"].lower(),
                                            "dob": us(member["dob"]), "service_date": "11/20/2026"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "Active" in page and "EB26111600001" in page
    assert "Benefits summary" in page and "Prior authorization required" in page
    after = client.snapshot()
    check = after["eligibility_checks"][0]
    assert (check["result"], check["member_id"], check["service_date"]) == ("Active", member["member_id"], "2026-11-20")
    audit = after["audit_events"][-1]
    assert (audit["action"], audit["record_type"], audit["record_id"]) == ("eligibility_inquiry", "member",
                                                                          member["member_id"])


def test_eligibility_terminated_coverage_is_inactive(client, snap):
    member = terminated_member(snap)
    page = client.post("/eligibility", {"payer_id": member["payer_id"], "member_id": member["member_id"],
                                        "dob": us(member["dob"]), "service_date": "11/16/2026"}).get_data(as_text=True)
    assert "Coverage is not active on 11/16/2026" in page
    assert client.snapshot()["eligibility_checks"][0]["result"] == "Inactive"


@pytest.mark.parametrize("change, message", [
    ({"member_id": "NWH0000000"}, "No member with this ID was found"),
    ({"dob": "02/02/1902"}, "The date of birth does not match"),
    ({"service_date": "2026-11-16"}, "Enter a valid date as MM/DD/YYYY."),
    ({"service_date": ""}, "Enter the date of service."),
    ({"member_id": "X" * 30}, "A member ID is at most 20 characters."),
    ({"payer_id": "bogus"}, "Select a payer."),
])
def test_eligibility_bad_input_changes_nothing(client, snap, change, message):
    member = active_member(snap)
    data = {"payer_id": member["payer_id"], "member_id": member["member_id"], "dob": us(member["dob"]),
            "service_date": "11/20/2026", **change}
    response = client.post("/eligibility", data)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert client.snapshot()["eligibility_checks"] == []


# ---- auth requirement lookup ---------------------------------------------------------------
@pytest.mark.parametrize("plan_id, code, pos, result", [
    ("PLN-NWH-PPO", "72148", "22", "Required"),
    ("PLN-NWH-PPO", "95806", "12", "Not required"),   # PPO exception in the policy
    ("PLN-NWH-HMO", "95806", "12", "Required"),
    ("PLN-NWH-HMO", "80053", "81", "Not required"),   # labs are never reviewed
    ("PLN-PSM-MCD", "97110", "11", "Required"),
])
def test_auth_lookup_outcomes_are_stored_with_reference(client, plan_id, code, pos, result):
    payer_id = "PYR-" + plan_id.split("-")[1]
    response = client.post("/authorizations/lookup", {"payer_id": payer_id, "plan_id": plan_id, "code": code.lower(),
                                                      "place_of_service": pos})
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "AL26111600001" in page
    lookup = client.snapshot()["auth_lookups"][0]
    assert (lookup["reference_number"], lookup["code"], lookup["result"]) == ("AL26111600001", code, result)
    assert client.get("/authorizations").get_data(as_text=True).count("AL26111600001") == 1


@pytest.mark.parametrize("change, message", [
    ({"plan_id": "PLN-CSH-PPO"}, "Select a plan of the selected payer."),
    ({"code": "00000"}, "not in the code set"),
    ({"code": "MRI"}, "A CPT/HCPCS code is 5 characters"),
    ({"place_of_service": ""}, "Select a place of service."),
    ({"plan_id": ""}, "Select a plan."),
])
def test_auth_lookup_bad_input_changes_nothing(client, change, message):
    data = {"payer_id": "PYR-NWH", "plan_id": "PLN-NWH-PPO", "code": "72148", "place_of_service": "22", **change}
    response = client.post("/authorizations/lookup", data)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert client.snapshot()["auth_lookups"] == []


def test_lookup_prefills_from_eligibility_link(client):
    page = client.get("/authorizations/lookup?payer_id=PYR-NWH&plan_id=PLN-NWH-HMO").get_data(as_text=True)
    assert '<option selected value="PLN-NWH-HMO">' in page or 'value="PLN-NWH-HMO" selected' in page
