"""The cases of template dme/equipment_replacement hold together with Keystone Mutual's replacement
rule (dme_rules.py): the earlier item is on file, approved and delivered; its 5-year useful lifetime,
counted from the delivery, decides with the document that says why, and the order date would mislead."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_b.rules.dme_rules import useful_lifetime_end
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "dme/equipment_replacement"


@pytest.fixture(scope="module")
def replacements():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _earlier(task):
    """The replaced item's order and its request on file (the same code as the order `svc`)."""
    orders = {o.key: o for o in task.case.orders}
    [request] = [r for r in task.case.payer_history.requests if orders[r.order].code == orders["svc"].code]
    return orders["svc"], orders[request.order], request


def test_the_template_converts_two_keystone_items(replacements):
    assert {task_id: (t.difficulty, t.feasible, t.revision) for task_id, t in replacements.items()} == {
        "dme-easy-01": ("easy", True, 2), "dme-hard-01": ("hard", False, 2)}
    for task in replacements.values():
        svc, earlier, request = _earlier(task)
        assert task.case.coverages[0].payer == "PYR-KMH" and "equipment_replacement" in task.skills
        assert earlier.status == "Completed" and request.status == "Approved" and request.delivered is not None
        assert earlier.ordered_on <= request.delivered <= svc.ordered_on


def test_the_stolen_wheelchair_is_within_its_lifetime_and_the_police_report_names_it(replacements):
    task = replacements["dme-easy-01"]
    svc, _, request = _earlier(task)
    assert svc.planned_date < useful_lifetime_end(request.delivered)
    [report] = [d for d in task.case.documents if d.key == "report"]
    assert report.type == "incident_report" and "wheelchair" in report.facts.reported_item
    assert report.facts.incident_date <= report.date <= svc.ordered_on
    # Another item (the walker) is on file too: only the wheelchair's request is the one replaced.
    assert len(task.case.payer_history.requests) == 2


def test_the_worn_cpap_counts_its_lifetime_from_delivery_not_from_the_order(replacements):
    task = replacements["dme-hard-01"]
    svc, earlier, request = _earlier(task)
    assert useful_lifetime_end(earlier.ordered_on) <= svc.planned_date < useful_lifetime_end(request.delivered)
    [statement] = [d for d in task.case.documents if d.key == "statement"]
    assert statement.facts.incident_date is None and "wear" in statement.narrative
