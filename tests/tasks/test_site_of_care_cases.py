"""Keystone Mutual's site-of-care policy (KM-RX-510) holds in every task's case: an approval on
file for one of its drugs at a hospital outpatient department, requested from the policy's
effective date, stands on a reason the chart documents (the world's own approvals predate it)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from admindesk.envs.world import build_world
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

POLICIES = Path(__file__).resolve().parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"
KEYSTONE = "PYR-KMH"
HOSPITAL_PLACES = ("19", "22")


def _site_policy() -> dict:
    [policy] = [p for p in yaml.safe_load(POLICIES.read_text(encoding="utf-8")) if p.get("site_of_care_codes")]
    return policy


def _documents_a_reason(documents) -> bool:
    for document in documents:
        facts = document.facts
        for value in (facts.infusion_reaction, facts.cardiopulmonary_comorbidity):
            if value and value.split(";")[0].strip().lower() not in ("none", "no"):
                return True
    return False


@pytest.fixture(scope="module")
def places():
    return {facility.id: facility.place_of_service for facility in build_world().facilities}


def test_hospital_approvals_on_file_document_a_reason(places):
    policy = _site_policy()
    codes, effective = set(policy["site_of_care_codes"]), policy["effective_date"]
    checked = 0
    for task in (t for t in load_tasks(TASKS_ROOT) if t.case is not None):
        case = task.case
        payers = {c.key: c.payer for c in case.coverages}
        orders = {o.key: o for o in case.orders}
        for request in case.payer_history.requests:
            order = orders[request.order]
            if (request.status != "Approved" or order.code not in codes or payers[order.coverage] != KEYSTONE
                    or places[order.facility] not in HOSPITAL_PLACES):
                continue
            checked += 1
            # Requests on file are dated by their order (Keystone's seed): before the policy, they stand.
            assert order.ordered_on < effective or _documents_a_reason(case.documents), \
                f"{task.id}: {order.code} approved at place of service {places[order.facility]} without a reason"
    assert checked >= 2  # the suite's approvals of infused biologics at the hospital infusion center


def test_the_site_of_care_tasks_start_from_a_hospital_order(places):
    tasks = [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/site_of_care"]
    assert len(tasks) == 2
    for task in tasks:
        order = task.case.orders[0]
        assert order.code in _site_policy()["site_of_care_codes"] and places[order.facility] in HOSPITAL_PLACES
        assert task.case.coverages[0].payer == KEYSTONE
        # The hard case's reason is in a document the order does not carry; the medium's chart has none.
        assert _documents_a_reason(task.case.documents) == (task.difficulty == "hard")
