"""EHR claim page, Balance and coverage: a denied claim's balance is rebilled as a new claim to
the coverage in force on its date of service, or transferred to self-pay after an eligibility
denial; what the rules refuse writes nothing and says why (envs/ehr_web/balance_transfers.py)."""
from __future__ import annotations

import importlib

import pytest

from admindesk.envs.common.factory import AppConfig
from admindesk.schema.case_ids import case_record_ids
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient

REBILL_TASK, NO_COVERAGE_ON_DOS_TASK, AUTH_DENIAL_TASK = "appeal-easy-07", "appeal-medium-01", "appeal-easy-08"
HEADERS = {"X-Bench-Token": TOKEN}


@pytest.fixture(scope="module")
def ehr(app_data_dir):
    create_app = importlib.import_module("admindesk.envs.ehr_web").create_app
    return FormClient(create_app(AppConfig(data_dir=app_data_dir / "balance-transfer-ehr", token=TOKEN,
                                           testing=True, cache_dir=TEMPLATE_CACHE)))


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.id in (REBILL_TASK, NO_COVERAGE_ON_DOS_TASK, AUTH_DENIAL_TASK)}


def start(ehr, task) -> dict:
    """Reset the EHR to the task's case; its record ids."""
    response = ehr.client.post("/_bench/reset", json={"task": task.id}, headers=HEADERS)
    assert response.status_code == 200, response.get_data(as_text=True)
    ehr._token = None
    ehr.login()
    return case_record_ids(task.id, task.case.model_dump(mode="json"))


def transfer(ehr, claim: str, kind: str, coverage: str = "", reason: str = "Payer eligibility checked, ref EL-1."):
    return ehr.post(f"/claims/{claim}/balance-transfer", {"kind": kind, "coverage_id": coverage, "reason": reason})


def test_a_rebill_creates_a_new_claim_to_the_coverage_in_force_once(ehr, tasks):
    ids = start(ehr, tasks[REBILL_TASK])
    claim, other = ids["claims"]["denied"], ids["coverages"]["new_plan"]
    page = ehr.get(f"/claims/{claim}").get_data(as_text=True)
    assert "Balance and coverage" in page and f"({other['member_id']})" in page
    assert transfer(ehr, claim, "Rebill to other coverage", other["id"]).status_code == 302
    snap = ehr.snapshot()
    [moved] = [t for t in snap["balance_transfers"] if t["claim_number"] == claim]
    original = next(c for c in snap["claims"] if c["claim_number"] == claim)
    new = next(c for c in snap["claims"] if c["claim_number"] == moved["new_claim_number"])
    assert (moved["kind"], moved["to_coverage_id"], moved["amount"]) == \
        ("Rebill to other coverage", other["id"], original["total_charge"])
    assert (new["coverage_id"], new["payer_id"], new["member_id"], new["service_date"], new["status"]) == \
        (other["id"], "PYR-ACH", other["member_id"], original["service_date"], "Pending")
    assert original["status"] == "Denied"  # the denying payer's decision stays as it was
    lines = [(l["code"], l["charge"]) for l in snap["claim_lines"] if l["claim_number"] == new["claim_number"]]
    assert lines == [(l["code"], l["charge"]) for l in snap["claim_lines"] if l["claim_number"] == claim]
    again = transfer(ehr, claim, "Transfer to self-pay")
    assert again.status_code == 422 and "cannot be moved again" in again.get_data(as_text=True)
    assert len(ehr.snapshot()["balance_transfers"]) == len(snap["balance_transfers"])


def test_a_coverage_not_in_force_on_the_date_of_service_cannot_be_billed(ehr, tasks):
    ids = start(ehr, tasks[NO_COVERAGE_ON_DOS_TASK])
    claim, later = ids["claims"]["denied"], ids["coverages"]["new_plan"]
    before = ehr.snapshot()
    refused = transfer(ehr, claim, "Rebill to other coverage", later["id"])
    assert refused.status_code == 422 and "is not in force on the date of service" in refused.get_data(as_text=True)
    no_reason = transfer(ehr, claim, "Transfer to self-pay", reason="")
    assert no_reason.status_code == 422 and "Say why the balance moves" in no_reason.get_data(as_text=True)
    assert ehr.snapshot()["balance_transfers"] == before["balance_transfers"]
    assert len(ehr.snapshot()["claims"]) == len(before["claims"])


def test_an_eligibility_denial_goes_to_self_pay_with_its_balance(ehr, tasks):
    ids = start(ehr, tasks[NO_COVERAGE_ON_DOS_TASK])
    claim = ids["claims"]["denied"]
    assert transfer(ehr, claim, "Transfer to self-pay").status_code == 302
    snap = ehr.snapshot()
    [moved] = [t for t in snap["balance_transfers"] if t["claim_number"] == claim]
    assert (moved["kind"], moved["new_claim_number"], moved["to_coverage_id"], moved["amount"]) == \
        ("Transfer to self-pay", None, None, 1795.0)
    page = ehr.get(f"/claims/{claim}").get_data(as_text=True)
    assert "Patient (self-pay)" in page and "Move balance" not in page


def test_a_contractual_denial_is_never_billed_to_the_patient(ehr, tasks):
    ids = start(ehr, tasks[AUTH_DENIAL_TASK])
    refused = transfer(ehr, ids["claims"]["denied"], "Transfer to self-pay")
    assert refused.status_code == 422 and "Only a denial for eligibility" in refused.get_data(as_text=True)
    assert ehr.snapshot()["balance_transfers"] == []
