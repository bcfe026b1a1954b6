"""The genetic testing tasks (template prior_auth/genetic_testing) agree with Keystone Mutual's
policy KM-LAB-701: a policy test performed by the molecular diagnostics laboratory for a Keystone
member; a request the reference must file states a criterion the policy lists, and a task that
files nothing has a chart without completed pre-test counseling."""
from __future__ import annotations

from pathlib import Path

import yaml

from admindesk.envs.payer_portal_b.rules.genetic_testing import HEREDITARY_CRITERIA
from admindesk.envs.world import build_world
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

POLICIES = Path(__file__).resolve().parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"


def _policy() -> dict:
    [policy] = [p for p in yaml.safe_load(POLICIES.read_text(encoding="utf-8")) if p["policy_number"] == "KM-LAB-701"]
    return policy


def _counseled(task) -> bool:
    return any((d.facts.genetic_counseling or "").startswith("pre-test counseling completed")
               for d in task.case.documents)


def test_the_genetic_testing_tasks_order_a_policy_test_at_the_laboratory():
    tasks = [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/genetic_testing"]
    assert sorted(t.id for t in tasks) == ["pa-easy-02", "pa-medium-08"]
    lab = next(f for f in build_world().facilities if f.id == "FAC-MOL")
    assert "Laboratory" in lab.name
    for task in tasks:
        order = task.case.orders[0]
        assert order.code in _policy()["codes"] and order.facility == lab.id
        assert task.case.coverages[0].payer == "PYR-KMH"
        assert any(code.startswith(tuple(_policy()["covered_diagnoses"])) for code in order.diagnoses)
        # Only a chart with completed counseling is filed; the other routes to the provider.
        assert _counseled(task) == task.feasible
        assert any(d.facts.family_history for d in task.case.documents)  # every chart has its pedigree


def test_a_filed_request_states_a_criterion_of_the_policy():
    [task] = [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/genetic_testing" and t.feasible]
    expected = [check.expected for subtask in task.subtasks for check in subtask.checks
                if getattr(check, "query", "").endswith("clinical.hereditary_criterion")]
    assert len(expected) == 1 and expected[0] in HEREDITARY_CRITERIA
