"""EHR claim page, Patient balance: the balance of a claim denied for eligibility (CO-27) is
transferred to the patient once, with a reason; a contractual denial, a claim already billed to
another payer (Bill another payer, the way a CO-27 claim goes to the coverage in force on its
date of service) and a second transfer are refused with nothing written
(envs/ehr_web/balance_transfers.py)."""
from __future__ import annotations

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

# CO-27 with a new coverage in force on the DOS; CO-27 with none registered on it; CO-109.
REBILL_TASK, NO_COVERAGE_ON_DOS_TASK, WRONG_PAYER_TASK = "appeal-easy-07", "appeal-medium-01", "appeal-medium-05"


@pytest.fixture(scope="module")
def ids():
    return {t.id: case_values(t)["ids"] for t in load_tasks(TASKS_ROOT)
            if t.id in (REBILL_TASK, NO_COVERAGE_ON_DOS_TASK, WRONG_PAYER_TASK)}


@pytest.fixture(scope="module")
def ehr(app_data_dir):
    return case_clients(app_data_dir / "patient-transfer", ("ehr_web",))["ehr_web"]


def transfer(ehr, claim: str, reason: str = "Payer eligibility: coverage ended before the DOS, ref EL-1."):
    return ehr.post(f"/claims/{claim}/transfer-to-patient", {"reason": reason})


def test_an_eligibility_denial_is_transferred_to_the_patient_once(ehr, ids):
    ehr.start_task(NO_COVERAGE_ON_DOS_TASK)
    claim = ids[NO_COVERAGE_ON_DOS_TASK]["claims"]["denied"]
    assert "Transfer balance to patient" in ehr.get(f"/claims/{claim}").get_data(as_text=True)
    assert transfer(ehr, claim).status_code == 302
    snap = ehr.snapshot()
    [moved] = [t for t in snap["balance_transfers"] if t["claim_number"] == claim]
    assert (moved["amount"], moved["mrn"]) == (1795.0, ids[NO_COVERAGE_ON_DOS_TASK]["mrn"])
    page = ehr.get(f"/claims/{claim}").get_data(as_text=True)
    assert "Transferred to patient" in page and "Transfer balance to patient" not in page
    # Another reason: an identical repost within seconds is the double-submit guard's, not this rule's.
    again = transfer(ehr, claim, reason="Second try: coverage ended, self-pay per the front desk.")
    assert again.status_code == 422 and "cannot be transferred again" in again.get_data(as_text=True)
    assert ehr.snapshot()["balance_transfers"] == snap["balance_transfers"]


def test_a_transfer_needs_a_reason(ehr, ids):
    ehr.start_task(NO_COVERAGE_ON_DOS_TASK)
    refused = transfer(ehr, ids[NO_COVERAGE_ON_DOS_TASK]["claims"]["denied"], reason="")
    assert refused.status_code == 422 and "Say why the patient owes the balance" in refused.get_data(as_text=True)
    assert ehr.snapshot()["balance_transfers"] == []


def test_a_contractual_denial_is_never_billed_to_the_patient(ehr, ids):
    ehr.start_task(WRONG_PAYER_TASK)
    refused = transfer(ehr, ids[WRONG_PAYER_TASK]["claims"]["denied"])
    assert refused.status_code == 422 and "Only a denial for eligibility" in refused.get_data(as_text=True)
    assert ehr.snapshot()["balance_transfers"] == []


def test_a_co27_claim_billed_to_the_coverage_in_force_is_not_the_patients(ehr, ids):
    ehr.start_task(REBILL_TASK)
    case = ids[REBILL_TASK]
    claim, new_plan = case["claims"]["denied"], case["coverages"]["new_plan"]
    billed = ehr.post(f"/claims/{claim}/bill-other-payer",
                      {"coverage_id": new_plan["id"], "reason": "Northwind's coverage ended 07/31/2026."})
    assert billed.status_code == 302, billed.get_data(as_text=True)[:1500]
    [new] = [c for c in ehr.snapshot()["claims"] if c["billed_from"] == claim]
    assert (new["coverage_id"], new["member_id"], new["status"]) == (new_plan["id"], new_plan["member_id"], "Submitted")
    refused = transfer(ehr, claim)
    assert refused.status_code == 422 and f"billed to another payer on claim {new['claim_number']}" in \
        refused.get_data(as_text=True)
    assert ehr.snapshot()["balance_transfers"] == []


def test_a_balance_moved_to_the_patient_is_not_billed_to_another_payer(ehr, ids):
    ehr.start_task(REBILL_TASK)
    case = ids[REBILL_TASK]
    claim = case["claims"]["denied"]
    assert transfer(ehr, claim).status_code == 302
    billed = ehr.post(f"/claims/{claim}/bill-other-payer",
                      {"coverage_id": case["coverages"]["new_plan"]["id"], "reason": "Northwind's coverage ended."})
    assert billed.status_code == 422 and "transferred to the patient" in billed.get_data(as_text=True)
    assert [c for c in ehr.snapshot()["claims"] if c["billed_from"] == claim] == []
