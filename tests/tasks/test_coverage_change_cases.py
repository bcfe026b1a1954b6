"""The cases of template prior_auth/coverage_change hold together: the coverage each order is queued
under ended at its payer before the planned date while registration holds it open; the patient's new
card (the newest insurance card in the chart) is of a coverage the payer holds and registration does
not, in force on the planned date; and the new payer's own rules decide the route (Keystone reviews
coronary CT angiography online; Northwind's PPO, unlike the HMO on the older card, exempts a home sleep
apnea test), while the payer on file would still have wanted a request. A case that leaves the new
coverage without its card, or queues an order under it, does not load."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.schema.case_model import Case
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "prior_auth/coverage_change"
KEYSTONE_POLICIES = Path(__file__).parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"
PRODUCTS = {"PLN-ACH-PPO": "PPO", "PLN-NWH-PPO": "PPO", "PLN-NWH-HMO": "HMO", "PLN-KMH-PPO": "PPO"}


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _coverage(case, key: str):
    return next(c for c in case.coverages if c.key == key)


def _newest_card(case):
    return max((d for d in case.documents if d.type == "insurance_card"), key=lambda d: d.date)


def test_the_coverage_on_file_ended_at_its_payer_and_the_newest_card_is_in_force(tasks):
    assert set(tasks) == {"pa-easy-19", "pa-easy-20"}
    for task in tasks.values():
        case = task.case
        [order] = case.orders
        on_file, new = _coverage(case, "primary"), _coverage(case, "new")
        assert order.coverage == "primary" and on_file.registered and on_file.termination is None
        assert on_file.at_payer.termination < order.planned_date
        assert not new.registered and new.effective <= order.planned_date and new.payer != on_file.payer
        assert _newest_card(case).coverage == "new" and _newest_card(case).date <= task.now.date()
        assert "coverage_update" in task.skills


def test_keystone_reviews_the_cardiac_ct_the_payer_on_file_would_also_review(tasks):
    task = tasks["pa-easy-19"]
    code = task.case.orders[0].code
    [policy] = [p for p in yaml.safe_load(KEYSTONE_POLICIES.read_text()) if code in p["codes"]]
    assert policy["submission_method"] == "Online"
    assert load_policy().service(code).requires_auth("PPO", "22", "PYR-ACH")
    assert [s.id for s in task.subtasks][-3:] == ["submit_request", "record_decision", "close_item"]


def test_the_new_ppo_exempts_the_home_sleep_test_the_older_cards_hmo_would_review(tasks):
    task = tasks["pa-easy-20"]
    case, service = task.case, load_policy().service(task.case.orders[0].code)
    new, prior = _coverage(case, "new"), _coverage(case, "prior")
    assert not service.requires_auth(PRODUCTS[new.plan], "19", new.payer)
    assert service.requires_auth(PRODUCTS[prior.plan], "19", prior.payer)
    older = next(d for d in case.documents if d.type == "insurance_card" and d.coverage == "prior")
    assert older.date.year == task.now.year - 1 and prior.termination < new.effective
    assert prior.payer == new.payer  # the same payer: only the card's date, plan and member id tell them apart


@pytest.mark.parametrize("change, message", [
    ({"documents": []}, "has its insurance_card"),
    ({"order_coverage": "new"}, "is not registered yet"),
])
def test_an_unregistered_coverage_needs_its_card_and_bills_nothing(tasks, change, message):
    case = tasks["pa-easy-19"].case.model_dump(mode="json")
    if "documents" in change:
        case["documents"] = [d for d in case["documents"] if d["type"] != "insurance_card"]
    else:
        case["orders"][0]["coverage"] = change["order_coverage"]
    with pytest.raises(ValueError, match=message):
        Case.model_validate(case)
