"""Screens of a rendering-provider enrollment denial (template appeals/provider_enrollment): the EHR's
Provider Credentialing roster and a clinician's enrollment with each payer, portal A's Provider Network
lookup (with its validation) and the participation record it opens, the payer manual's enrollment
rule, and the credentialing team's pool in the assignee picker. A clinician with enrollments on file
is enrolled with those payers only; every other clinician participates with every payer."""
from __future__ import annotations

import pytest

from admindesk.envs.common.enrollment import default_since
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

HANDOFF_TASK, RECONSIDERATION_TASK = "appeal-easy-12", "appeal-medium-15"
NEW_CLINICIAN = "1761314453"  # Dawn Mitchell, DPT: enrolled with Cascade Summit and Northwind only
OTHER_CLINICIAN = "1283801672"  # Kevin Matthews, DPT: no enrollment on file
POOL = "pool:credentialing"


@pytest.fixture(scope="module")
def ids():
    return {t.id: case_values(t)["ids"] for t in load_tasks(TASKS_ROOT) if t.id in (HANDOFF_TASK, RECONSIDERATION_TASK)}


@pytest.fixture(scope="module")
def apps(app_data_dir):
    return case_clients(app_data_dir / "provider-enrollment", ("ehr_web", "payer_portal_a"))


def test_the_credentialing_record_lists_the_enrollments_on_file_only(apps):
    ehr = apps["ehr_web"]
    ehr.start_task(HANDOFF_TASK)
    page = ehr.get(f"/credentialing/{NEW_CLINICIAN}").get_data(as_text=True)
    assert "Dawn Mitchell, DPT" in page
    assert "Cascade Summit Health" in page and "06/22/2026" in page
    assert "Northwind Health Plan" in page and "08/25/2026" in page and "08/31/2026" in page and "10/05/2026" in page
    assert "No enrollment on file with:" in page and "Silverline Health Partners" in page.split("No enrollment")[1]
    audit = ehr.snapshot()["audit_events"][-1]
    assert (audit["record_type"], audit["record_id"], audit["tab"]) == ("provider", NEW_CLINICIAN, "credentialing")


def test_a_clinician_without_enrollments_on_file_participates_with_every_payer(apps):
    ehr = apps["ehr_web"]
    ehr.start_task(HANDOFF_TASK)
    page = ehr.get(f"/credentialing/{OTHER_CLINICIAN}").get_data(as_text=True)
    assert page.count("status-Participating") == 7
    assert default_since(OTHER_CLINICIAN).strftime("%m/%d/%Y") in page
    assert "No enrollment on file with" not in page


def test_the_roster_searches_by_npi_and_flags_an_open_enrollment(apps):
    ehr = apps["ehr_web"]
    ehr.start_task(RECONSIDERATION_TASK)
    page = ehr.get("/credentialing?q=1853018657").get_data(as_text=True)
    assert "Price, Deborah, NP" in page and "1 in process, 1 participating" in page and "Enrollment open" in page
    assert "Matthews" not in page
    assert "Matthews, Kevin" in ehr.get("/credentialing?specialty=Physical+Therapy").get_data(as_text=True)


def test_the_roster_refuses_an_npi_with_a_wrong_check_digit(apps):
    ehr = apps["ehr_web"]
    ehr.start_task(RECONSIDERATION_TASK)
    page = ehr.get("/credentialing?q=1853018658").get_data(as_text=True)
    assert "1853018658 is not a valid NPI" in page and "No clinicians match" in page


def test_the_network_lookup_gives_the_payers_dates(apps):
    portal = apps["payer_portal_a"]
    portal.start_task(RECONSIDERATION_TASK)
    page = portal.get("/network?payer_id=PYR-SLH&npi=1853018657").get_data(as_text=True)
    assert "Silverline Health Partners network: 1 provider(s)" in page
    assert "Participating" in page and "09/15/2026" in page and "08/26/2026" in page
    detail = portal.get("/network/PYR-SLH/1853018657").get_data(as_text=True)
    assert "Application logged complete</dt><dd>08/26/2026" in detail
    assert "Participation effective (directory)</dt><dd>09/15/2026" in detail
    events = portal.snapshot()["audit_events"]
    assert {(e["record_type"], e["record_id"]) for e in events[-2:]} == {("network_participation", "1853018657")}


def test_the_network_lookup_shows_an_application_in_process_and_no_enrollment(apps):
    portal = apps["payer_portal_a"]
    portal.start_task(RECONSIDERATION_TASK)
    in_process = portal.get("/network/PYR-NWH/1853018657").get_data(as_text=True)
    assert "Network status</dt><dd>In process" in in_process and "No application on file" in in_process
    none = portal.get("/network?payer_id=PYR-ACH&last_name=price").get_data(as_text=True)
    assert "Not enrolled" in none


@pytest.mark.parametrize("query, message", [
    ("payer_id=&npi=1853018657", "Select the payer whose network to search."),
    ("payer_id=PYR-SLH", "Enter the provider&#39;s NPI or last name."),
    ("payer_id=PYR-SLH&npi=18530", "An NPI is 10 digits."),
    ("payer_id=PYR-SLH&npi=1853018658", "1853018658 is not a valid NPI"),
])
def test_the_network_lookup_validates_its_search(apps, query, message):
    portal = apps["payer_portal_a"]
    portal.start_task(RECONSIDERATION_TASK)
    text = portal.get(f"/network?{query}").get_data(as_text=True)
    assert message in text and "provider(s)" not in text


def test_the_manual_states_when_participation_takes_effect(apps):
    portal = apps["payer_portal_a"]
    portal.start_task(RECONSIDERATION_TASK)
    page = portal.get("/payers/PYR-SLH?tab=manual").get_data(as_text=True)
    assert "Provider enrollment" in page
    assert "Participation is effective from the day we received the complete application." in page
    assert "Do not rebill it under another clinician&#39;s NPI" in page


def test_an_item_is_handed_to_the_credentialing_pool(apps, ids):
    ehr = apps["ehr_web"]
    snap = ehr.start_task(HANDOFF_TASK)
    [item] = [i for i in snap["work_items"]
              if i["claim_number"] == ids[HANDOFF_TASK]["claims"]["denied"] and i["queue"] == "Denials"]
    page = ehr.get(f"/queues/items/{item['id']}").get_data(as_text=True)
    assert f'<option value="{POOL}">Provider Enrollment / Credentialing (team pool)</option>' in page
    assert ehr.post(f"/queues/items/{item['id']}/assign", {"assignee": POOL}).status_code == 302
    [after] = [i for i in ehr.snapshot()["work_items"] if i["id"] == item["id"]]
    assert after["assignee"] == POOL
