"""The in-lab sleep study tasks (template prior_auth/sleep_home_first) agree with the payers' sleep
study policy on portal A: the in-lab study is requested exactly when the consultation's typed
comorbidity is one the policy's questionnaire accepts, and the reference reads the same reason."""
from __future__ import annotations

from pathlib import Path

import yaml

from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.harness.agents.reference.prior_auth.clinical_criteria.sleep_home_first import in_lab_reason
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "prior_auth/sleep_home_first"
CASES = Path(TASKS_ROOT) / "templates" / "prior_auth" / "sleep_home_first.cases.yml"


def _tasks():
    return [t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE]


def _comorbidity_choices() -> list[str]:
    policy = load_policy()
    [question] = [q for q in policy.questionnaires["sleep_study"].questions if q.id == "cardiopulmonary_comorbidity"]
    return list(question.choices)


def test_the_policy_states_the_home_test_first_and_its_reasons():
    [criterion] = [c for c in load_policy().services["95810"].criteria if c.id == "in_lab_needs_comorbidity"]
    for words in ("home sleep apnea test", "95806", "G0399", "congestive heart failure", "COPD", "neuromuscular"):
        assert words in criterion.deny_reason


def test_each_case_is_an_in_lab_order_at_the_sleep_center_for_a_portal_a_payer():
    tasks = _tasks()
    assert sorted((t.id, t.difficulty) for t in tasks) == [("pa-easy-03", "easy"), ("pa-medium-09", "medium")]
    for task in tasks:
        order = task.case.orders[0]
        assert (order.code, order.facility) == ("95810", "FAC-SLP")
        assert task.case.coverages[0].payer != "PYR-KMH"  # Keystone takes sleep studies by fax, on portal B


def test_the_reason_requested_is_the_consultations_own_comorbidity():
    choices = _comorbidity_choices()
    rows = {row["id"]: row for row in yaml.safe_load(CASES.read_text(encoding="utf-8"))["rows"]}
    for task in _tasks():
        facts = {k: v for d in task.case.documents for k, v in d.facts.model_dump().items() if v is not None}
        reason = rows[task.id].get("vars", {}).get("in_lab_reason")
        assert in_lab_reason(facts) == reason, task.id
        assert task.feasible == (reason is not None)
        if reason is not None:
            assert reason in choices and reason != "None"
        # The trap: the narrative names a condition the policy lists that is not the patient's to claim.
        narrative = " ".join(d.narrative or "" for d in task.case.documents).lower()
        assert "ruled out" in narrative
