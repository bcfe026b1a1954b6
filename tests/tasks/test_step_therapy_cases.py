"""The step-therapy tasks (template prior_auth/step_therapy) agree with Keystone Mutual's policy
KM-RX-505: golimumab IV for a Keystone member with a covered diagnosis, and a task files a request
exactly when the records show a conventional agent and a preferred biologic each failed for 12
weeks or were not tolerated; the steps its checks expect are those drugs with the dates the
medication history gives, not the drug stopped for cost."""
from __future__ import annotations

from pathlib import Path

import yaml

from admindesk.envs.payer_portal_b.rules.step_therapy import CONVENTIONAL_AGENTS, PREFERRED_BIOLOGICS, trial_weeks
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

POLICIES = Path(__file__).resolve().parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"


def _policy() -> dict:
    [policy] = [p for p in yaml.safe_load(POLICIES.read_text(encoding="utf-8")) if p["policy_number"] == "KM-RX-505"]
    return policy


def _tasks():
    return [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/step_therapy"]


def _vars(task) -> dict:
    rows = yaml.safe_load((TASKS_ROOT / "templates" / "prior_auth" / "step_therapy.cases.yml").read_text())["rows"]
    return next(row["vars"] for row in rows if row["id"] == task.id)


def _trials(task) -> dict[str, tuple[int, str]]:
    """Each stopped drug: (weeks from its dates, the reason the medication list gives)."""
    return {d.facts.prior_therapy.split()[0]: (trial_weeks(d.facts.prior_therapy_start, d.facts.prior_therapy_stop),
                                               d.facts.prior_therapy_outcome)
            for d in task.case.documents if d.facts.prior_therapy_stop}


def _expected(task, suffix: str) -> list:
    return [c.expected for s in task.subtasks for c in s.checks if getattr(c, "query", "").endswith(suffix)]


def test_the_tasks_order_golimumab_iv_for_a_keystone_member_with_a_covered_diagnosis():
    tasks = _tasks()
    assert sorted((t.id, t.difficulty) for t in tasks) == [("pa-easy-14", "easy"), ("pa-hard-13", "hard")]
    for task in tasks:
        order = task.case.orders[0]
        assert order.code in _policy()["codes"] and task.case.coverages[0].payer == "PYR-KMH"
        assert all(code.startswith(tuple(_policy()["covered_diagnoses"])) for code in order.diagnoses)
        # J1602 is billed per 1 mg: the order's units are 2 mg/kg at the weight the note gives.
        visit = next(d for d in task.case.documents if d.key == "visit")
        weight = int(visit.narrative.split("Weight ")[1].split(" kg")[0])
        assert order.units == 2 * weight


def test_the_easy_task_files_nothing_as_no_preferred_biologic_was_tried():
    [task] = [t for t in _tasks() if not t.feasible]
    trials = _trials(task)
    assert not any(drug.capitalize() in PREFERRED_BIOLOGICS for drug in trials)
    # The trap: a second agent that failed for weeks, which the policy does not list.
    assert trials["apremilast"][0] >= 12 and "inadequate response" in trials["apremilast"][1]


def test_the_hard_task_counts_the_intolerance_the_outside_record_documents():
    [task] = [t for t in _tasks() if t.feasible]
    trials = _trials(task)
    # Methotrexate's 8 weeks fall short of 12, and the medication list gives no reason ...
    assert trials["methotrexate"][0] < 12 and "reason not" in trials["methotrexate"][1]
    # ... which the scanned outside record (not on the order) gives: hepatotoxicity.
    outside = next(d for d in task.case.documents if d.key == _vars(task)["outcome_doc"])
    assert outside.order is None and "hepatotoxicity" in outside.narrative and "Methotrexate" in outside.narrative
    # Etanercept was stopped for cost after 3 weeks: step 2 is adalimumab's 22 weeks.
    assert trials["etanercept"][0] == 3 and trials["etanercept"][1].startswith("cost")
    assert trials["adalimumab"][0] >= 12
    drugs = _expected(task, "_outcome]")
    assert drugs == [["Methotrexate", "Intolerance"], ["Adalimumab", "Inadequate response"]]
    assert drugs[0][0] in CONVENTIONAL_AGENTS and drugs[1][0] in PREFERRED_BIOLOGICS
