"""EHR claim page, Bill another payer: a claim denied as not the payer's responsibility (CO-109)
goes to another registered coverage as a new claim with the same lines; the same payer, a
coverage not registered for the date of service, a claim not denied and a second bill are
refused with nothing written."""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from admindesk.envs.ehr_web import claim_rebill
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

TASK = "appeal-medium-05"  # Cascade Summit denied CO-109; Keystone PPO responsible, an old Keystone HMO beside it


@pytest.fixture(scope="module")
def ids():
    [task] = [t for t in load_tasks(TASKS_ROOT) if t.id == TASK]
    return case_values(task)["ids"]


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "bill-other-payer", ("ehr_web",))


@pytest.fixture
def ehr(clients):
    """The EHR on a fresh reset to the task's case, signed in."""
    clients["ehr_web"].start_task(TASK)
    return clients["ehr_web"]


def bill(ehr, ids, coverage_key: str, reason: str = "Cascade Summit's CO-109 letter names this plan."):
    return ehr.post(f"/claims/{ids['claims']['denied']}/bill-other-payer",
                    {"coverage_id": ids["coverages"][coverage_key]["id"], "reason": reason})


def billed_from(snapshot: dict, claim: str) -> list[dict]:
    return [c for c in snapshot["claims"] if c["billed_from"] == claim]


def test_the_denied_claim_offers_the_patients_coverages(ehr, ids):
    page = ehr.get(f"/claims/{ids['claims']['denied']}").get_data(as_text=True)
    assert "Bill another payer" in page
    for key in ("billed", "old_keystone", "responsible"):
        assert f"({ids['coverages'][key]['member_id']})" in page


def test_a_new_claim_goes_to_the_chosen_coverage_with_the_same_lines(ehr, ids):
    denied = ids["claims"]["denied"]
    response = bill(ehr, ids, "responsible")
    assert response.status_code == 302, response.get_data(as_text=True)[:1500]
    snapshot = ehr.snapshot()
    [new] = billed_from(snapshot, denied)
    responsible = next(c for c in snapshot["coverages"] if c["id"] == ids["coverages"]["responsible"]["id"])
    assert (new["coverage_id"], new["payer_id"], new["member_id"]) == (
        responsible["id"], responsible["payer_id"], responsible["member_id"])
    assert (new["status"], new["paid_amount"], new["submitted_on"]) == ("Submitted", 0.0, "2026-11-16")
    old_lines = [(line["code"], line["charge"]) for line in snapshot["claim_lines"] if line["claim_number"] == denied]
    new_lines = [(line["code"], line["charge"]) for line in snapshot["claim_lines"]
                 if line["claim_number"] == new["claim_number"]]
    assert new_lines == old_lines
    [note] = [n for n in snapshot["notes"] if n["subject_type"] == "claim" and n["subject_id"] == new["claim_number"]]
    assert "CO-109 letter" in note["text"] and denied in note["text"]
    page = ehr.get(f"/claims/{denied}").get_data(as_text=True)
    assert new["claim_number"] in page and "Bill as new claim" not in page


def test_a_second_bill_is_refused_as_a_duplicate(ehr, ids):
    assert bill(ehr, ids, "responsible").status_code == 302
    response = bill(ehr, ids, "old_keystone")
    assert response.status_code == 422
    assert "duplicate" in response.get_data(as_text=True)
    assert len(billed_from(ehr.snapshot(), ids["claims"]["denied"])) == 1


def test_the_denying_payer_is_refused_and_a_reason_is_required(ehr, ids):
    same_payer = bill(ehr, ids, "billed")
    assert same_payer.status_code == 422 and "corrected claim" in same_payer.get_data(as_text=True)
    no_reason = bill(ehr, ids, "responsible", reason="")
    assert no_reason.status_code == 422 and "Say why this payer is responsible" in no_reason.get_data(as_text=True)
    assert billed_from(ehr.snapshot(), ids["claims"]["denied"]) == []


def _coverage(effective: date, termination: date | None, payer_id: str = "PYR-KMH"):
    return SimpleNamespace(payer_id=payer_id, payer=SimpleNamespace(name="Keystone Mutual Health"),
                           member_id="KMH0001", effective_date=effective, termination_date=termination)


@pytest.mark.parametrize("effective, termination", [(date(2026, 9, 1), None), (date(2017, 3, 1), date(2020, 12, 31))])
def test_a_coverage_not_registered_for_the_date_of_service_is_refused(effective, termination):
    no_earlier_bill = SimpleNamespace(scalar=lambda _stmt: None)
    claim = SimpleNamespace(claim_number="CLM26-001", payer_id="PYR-CSH", service_date=date(2026, 8, 24), transfer=None)
    problem = claim_rebill.bill_problem(no_earlier_bill, claim, _coverage(effective, termination), denied=True)
    assert problem and "does not include the date of service 08/24/2026" in problem
    assert claim_rebill.bill_problem(no_earlier_bill, claim, _coverage(date(2026, 7, 1), None), denied=True) is None
    assert "not denied" in claim_rebill.bill_problem(no_earlier_bill, claim, _coverage(date(2026, 7, 1), None),
                                                     denied=False)
