"""EHR screens of an injury another carrier pays (template appeals/liability_handoff): the Coverage
tab shows registration's accident / injury records (open and closed workers' compensation claims);
a scanned first report of injury is a chart document; a work item can be assigned to a team's pool
(WC/Liability Billing) from its page, the queue's bulk action and the queue's filter, and an
assignee that is neither a staff member nor a pool is refused with nothing written."""
from __future__ import annotations

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

HANDOFF_TASK, RECONSIDERATION_TASK, NO_INJURY_TASK = "appeal-easy-16", "appeal-medium-16", "appeal-medium-05"
WC_POOL = "pool:wc_liability"


@pytest.fixture(scope="module")
def ids():
    return {t.id: case_values(t)["ids"] for t in load_tasks(TASKS_ROOT)
            if t.id in (HANDOFF_TASK, RECONSIDERATION_TASK, NO_INJURY_TASK)}


@pytest.fixture(scope="module")
def ehr(app_data_dir):
    return case_clients(app_data_dir / "liability-handoff", ("ehr_web",))["ehr_web"]


def denial_item(snap: dict, claim: str) -> dict:
    [item] = [i for i in snap["work_items"] if i["claim_number"] == claim and i["queue"] == "Denials"]
    return item


def test_the_coverage_tab_shows_registrations_accident_records(ehr, ids):
    ehr.start_task(HANDOFF_TASK)
    page = ehr.get(f"/patients/{ids[HANDOFF_TASK]['mrn']}/coverage").get_data(as_text=True)
    assert "Accident / injury information" in page
    assert "Employment (workers&#39; compensation)" in page
    # The 2023 claim, closed, with its carrier and claim number; this injury's entry has neither yet.
    assert "AMC-WC-23-118804" in page and "Allegheny Mutual Casualty" in page and "07/31/2023" in page
    assert "09/08/2026" in page and "carrier and claim number to follow" in page
    assert "GLE-26-0417736" not in page  # only the scanned first report gives it


def test_a_patient_without_an_injury_shows_none_on_file(ehr, ids):
    ehr.start_task(NO_INJURY_TASK)
    page = ehr.get(f"/patients/{ids[NO_INJURY_TASK]['mrn']}/coverage").get_data(as_text=True)
    assert "No accident or injury on file." in page


def test_the_first_report_of_injury_is_a_chart_document(ehr, ids):
    snap = ehr.start_task(HANDOFF_TASK)
    [report] = [d for d in snap["documents"] if d["id"] == ids[HANDOFF_TASK]["documents"]["froi"]]
    assert (report["kind"], report["author_name"]) == ("Injury Report", "Patient Access (scanned)")
    assert "Workers' compensation claim number: GLE-26-0417736." in report["text"]


def test_an_item_is_assigned_to_a_teams_pool(ehr, ids):
    snap = ehr.start_task(HANDOFF_TASK)
    item = denial_item(snap, ids[HANDOFF_TASK]["claims"]["denied"])
    page = ehr.get(f"/queues/items/{item['id']}").get_data(as_text=True)
    assert f'<option value="{WC_POOL}">WC/Liability Billing (team pool)</option>' in page
    assert ehr.post(f"/queues/items/{item['id']}/assign", {"assignee": WC_POOL}).status_code == 302
    after = ehr.snapshot()
    assert denial_item(after, item["claim_number"])["assignee"] == WC_POOL
    [event] = [e for e in after["work_item_events"] if e["work_item_id"] == item["id"]]
    assert event["change"] == "Assigned to WC/Liability Billing (team pool)"
    page = ehr.get(f"/queues/items/{item['id']}").get_data(as_text=True)
    assert "Assigned to: <strong>WC/Liability Billing (team pool)</strong>" in page
    # The team finds it with the queue's assignee filter.
    listed = ehr.get(f"/queues/denials?assignee={WC_POOL}&status=all").get_data(as_text=True)
    assert f"/queues/items/{item['id']}" in listed


def test_an_unknown_assignee_is_refused_with_nothing_written(ehr, ids):
    snap = ehr.start_task(RECONSIDERATION_TASK)
    item = denial_item(snap, ids[RECONSIDERATION_TASK]["claims"]["denied"])
    refused = ehr.post(f"/queues/items/{item['id']}/assign", {"assignee": "pool:legal"})
    assert refused.status_code == 422 and "Not a valid choice" in refused.get_data(as_text=True)
    after = ehr.snapshot()
    assert denial_item(after, item["claim_number"])["assignee"] == item["assignee"]
    assert after["work_item_events"] == snap["work_item_events"]


def test_the_bulk_action_assigns_to_a_pool(ehr, ids):
    snap = ehr.start_task(RECONSIDERATION_TASK)
    item = denial_item(snap, ids[RECONSIDERATION_TASK]["claims"]["denied"])
    response = ehr.post("/queues/denials/bulk", {"action": "assign", "assignee": WC_POOL, "item_ids": [str(item["id"])]})
    assert response.status_code == 302
    assert denial_item(ehr.snapshot(), item["claim_number"])["assignee"] == WC_POOL
