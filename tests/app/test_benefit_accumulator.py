"""Keystone's Benefit Accumulators: an eligibility inquiry shows a member's visit-limited benefit
(limit, benefit period, visits applied) and its visits page lists each visit applied, audited;
the EHR's Denials item of a visit-limit denial can move the balance to the patient; the world
audit knows a miscounted accumulator from a reached limit."""
from __future__ import annotations

from datetime import date

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_cases
from admindesk.schema.task_model import load_tasks

from .conftest import case_clients

REACHED_TASK, MISCOUNTED_TASK = "appeal-easy-09", "appeal-hard-15"


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "accumulator", ("ehr_web", "payer_portal_b"))


def task(task_id: str):
    return next(t for t in load_tasks() if t.id == task_id)


def inquire(portal, task_id: str) -> str:
    """An eligibility inquiry for the case's member on the denied visit's date; the result page's URL."""
    case = task(task_id).case
    [claim] = case.claims
    snapshot = portal.start_task(task_id)
    [member] = [s for s in snapshot["subscribers"] if s["dob"] == case.patient.dob.isoformat()
                and s["last_name"] == case.patient.last_name]
    response = portal.post("/eligibility", {"subscriber_id": member["subscriber_id"],
                                            "dob": case.patient.dob.strftime("%d-%b-%Y"),
                                            "service_date": claim.service_date.strftime("%d-%b-%Y")})
    assert response.status_code == 302, response.get_data(as_text=True)
    return response.headers["Location"]


def test_the_eligibility_result_sums_up_the_visit_limit(clients):
    portal = clients["payer_portal_b"]
    page = portal.get(inquire(portal, MISCOUNTED_TASK)).get_data(as_text=True)
    assert "Benefit Accumulators" in page and "Rehabilitative Therapy" in page
    assert "01-Jul-2026 - 30-Jun-2027" in page
    assert "<td>20</td><td>20</td>\n      <td>0</td>" in page  # allowed, applied, remaining
    assert "View Visits Applied" in page


def test_the_visits_page_lists_every_visit_applied_and_is_audited(clients):
    portal = clients["payer_portal_b"]
    url = inquire(portal, MISCOUNTED_TASK) + "/accumulators"
    page = portal.get(url).get_data(as_text=True)
    counted = task(MISCOUNTED_TASK).case.claims[0].benefit_limit.counted
    assert len(counted) == 20
    for visit in counted:
        assert visit.service_date.strftime("%d-%b-%Y") in page
    assert "15-Jun-2026" in page and "Benefit Period" in page  # a visit of the prior period, as the payer applied it
    [event] = [e for e in portal.snapshot()["audit_events"] if e["endpoint"] == "eligibility.accumulators"]
    assert (event["record_type"], event["tab"]) == ("subscriber", "accumulators")


def test_a_member_without_a_visit_limit_sees_none_applied(clients):
    portal = clients["payer_portal_b"]
    portal.start_task("appeal-medium-13")  # a Keystone member with a paid knee injection, no therapy
    subscriber = portal.snapshot()["subscribers"][0]
    response = portal.post("/eligibility", {"subscriber_id": subscriber["subscriber_id"],
                                            "dob": date.fromisoformat(subscriber["dob"]).strftime("%d-%b-%Y"),
                                            "service_date": ""})
    page = portal.get(response.headers["Location"]).get_data(as_text=True)
    assert "No visit-limited benefit has visits applied" in page and "View Visits Applied" not in page


def test_the_denials_item_can_move_the_balance_to_the_patient(clients):
    ehr = clients["ehr_web"]
    snapshot = ehr.start_task(REACHED_TASK)
    patient = task(REACHED_TASK).case.patient
    [mrn] = [p["mrn"] for p in snapshot["patients"]
             if (p["last_name"], p["dob"]) == (patient.last_name, patient.dob.isoformat())]
    [item] = [i for i in snapshot["work_items"] if i["queue"] == "Denials" and i["mrn"] == mrn]
    response = ehr.post(f"/queues/items/{item['id']}/status", {"status": "Patient Responsibility"})
    assert response.status_code in (200, 302), response.get_data(as_text=True)
    [item] = [i for i in ehr.snapshot()["work_items"] if i["id"] == item["id"]]
    assert item["status"] == "Patient Responsibility"


def test_the_audit_tells_a_miscounted_limit_from_a_reached_one():
    world = build_world()
    for task_id in (REACHED_TASK, MISCOUNTED_TASK):
        assert not audit_cases(world, [task(task_id)]).findings
    miscounted = task(MISCOUNTED_TASK)
    [claim] = miscounted.case.claims
    # Counted from a calendar year, the same twenty visits do reach the limit: the label is wrong.
    calendar = claim.benefit_limit.model_copy(update={"period_start": date(2026, 1, 1)})
    case = miscounted.case.model_copy(update={"claims": [claim.model_copy(update={"benefit_limit": calendar})]})
    [finding] = audit_cases(world, [miscounted.model_copy(update={"case": case})]).findings
    assert finding.kind == "benefit_limit_miscounted" and "labelled payer_error" in finding.detail
