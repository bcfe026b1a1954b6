"""The cases of template prior_auth/therapy_visit_limit hold together: each is a Keystone member at the
plan's therapy visit limit, one soft and one hard; the latest re-evaluation counts the visits the
accumulator applied and plans fewer visits than the order's default (the soft case's trap), beside
an earlier evaluation with a stale plan; and the world audit refuses a re-evaluation whose count is
not the accumulator's."""
from __future__ import annotations

import re

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_cases
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "prior_auth/therapy_visit_limit"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def latest_reeval(task):
    return max((d for d in task.case.documents if d.order == "svc"), key=lambda d: d.date)


def test_one_soft_and_one_hard_limit_each_used_up(cases):
    assert set(cases) == {"pa-easy-09", "pa-medium-10"}
    assert [cases[i].case.coverages[0].therapy_benefit.limit for i in ("pa-easy-09", "pa-medium-10")] == \
        ["soft", "hard"]
    for task in cases.values():
        benefit = task.case.coverages[0].therapy_benefit
        assert task.case.coverages[0].payer == "PYR-KMH" and "therapy_limit" in task.skills
        assert len({v.service_date for v in benefit.counted}) == benefit.visits_allowed
        assert all(v.service_date <= task.now.date() for v in benefit.counted)
    assert cases["pa-medium-10"].feasible is False


def test_the_reevaluation_counts_the_accumulator_and_plans_its_own_visits(cases):
    for task in cases.values():
        reeval = latest_reeval(task)
        assert reeval.facts.therapy_visits_used == len(task.case.coverages[0].therapy_benefit.counted)
        planned = re.search(r"Plan of care: (\d+) further visits", reeval.narrative)
        assert planned and int(planned.group(1)) == reeval.facts.visits_planned
    soft = cases["pa-easy-09"]
    # The trap: the order carries the ordering clinician's default, not the therapist's plan.
    assert latest_reeval(soft).facts.visits_planned != soft.case.orders[0].units
    earlier = [d for d in soft.case.documents if d is not latest_reeval(soft)]
    assert earlier and all(d.date < latest_reeval(soft).date for d in earlier)


def test_the_hard_case_counts_visits_at_another_clinic(cases):
    counted = cases["pa-medium-10"].case.coverages[0].therapy_benefit.counted
    assert {v.provider for v in counted} - {None}  # an outside clinic's visits count toward the limit


def test_the_audit_refuses_a_reevaluation_that_miscounts(cases):
    task = cases["pa-easy-09"]
    reeval = latest_reeval(task)
    wrong = reeval.model_copy(update={"facts": reeval.facts.model_copy(update={"therapy_visits_used": 19})})
    documents = [wrong if d is reeval else d for d in task.case.documents]
    miscounted = task.model_copy(update={"case": task.case.model_copy(update={"documents": documents})})
    report = audit_cases(build_world(), [miscounted])
    assert [f.kind for f in report.findings] == ["therapy_visits_inconsistent"]
    assert audit_cases(build_world(), [task]).findings == []
