"""The cases of template dme/home_oxygen hold together with Keystone Mutual's home oxygen policy
(KM-DME-402), measured by the portal's own rules: in the feasible case only the laboratory's
test counts (the lower one is more than 30 days before the written order) and it qualifies under
Group II on the visit note's findings; in the stop case the supplier's walk test, Group I on its
face, is refused, and the visit's Group II value has no documented finding."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_b.rules.dme_clinical import (
    OXYGEN_GROUP_II_CONDITIONS,
    oxygen_group,
    oxygen_test_problem,
)
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "dme/home_oxygen"
STABLE = "Chronic stable state, outpatient"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _doc(task, key):
    return next(d for d in task.case.documents if d.key == key)


def _values(facts, conditions=()) -> dict:
    return {"spo2_rest": facts.spo2_rest, "spo2_exertion": facts.spo2_exertion,
            "spo2_on_oxygen": facts.spo2_on_oxygen, "oxygen_conditions": list(conditions)}


def test_the_template_holds_a_request_and_a_stop_at_keystone(cases):
    assert {t.id: t.feasible for t in cases.values()} == {"dme-medium-04": True, "dme-hard-03": False}
    for task in cases.values():
        assert task.case.coverages[0].payer == "PYR-KMH" and task.case.orders[0].code == "E1390"
        assert "home_oxygen" in task.skills


def test_only_the_laboratorys_test_is_in_the_window_and_it_is_group_ii(cases):
    task = cases["dme-medium-04"]
    order_day = _doc(task, "wo").date
    early, lab = _doc(task, "early").facts, _doc(task, "oxi").facts
    assert oxygen_group(_values(early)) == "I"
    assert "within the 30 days" in oxygen_test_problem(early.test_date, "Treating practitioner", STABLE, order_day)
    assert oxygen_test_problem(lab.test_date, "Hospital or independent testing facility", STABLE, order_day) is None
    assert oxygen_group(_values(lab)) is None
    visit = _doc(task, "visit").narrative
    assert "pitting edema" in visit and "cor pulmonale" in visit and "Hematocrit 49%" in visit
    assert oxygen_group(_values(lab, OXYGEN_GROUP_II_CONDITIONS[:2])) == "II"


def test_the_suppliers_test_is_refused_and_the_visits_value_lacks_a_finding(cases):
    task = cases["dme-hard-03"]
    order_day = _doc(task, "wo").date
    walk, visit = _doc(task, "oxi"), _doc(task, "visit")
    assert "supplier" in walk.facts.tested_by and walk.author is None
    assert oxygen_group(_values(walk.facts)) == "I"
    assert "DME supplier" in oxygen_test_problem(walk.facts.test_date, "DME supplier", STABLE, order_day)
    assert oxygen_test_problem(visit.date, "Treating practitioner", STABLE, order_day) is None
    assert visit.facts.spo2_rest == 89 and oxygen_group(_values(visit.facts)) is None
    assert "without edema" in visit.narrative and "Hematocrit 44%" in visit.narrative
