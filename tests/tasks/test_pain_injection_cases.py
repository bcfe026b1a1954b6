"""The repeat epidural injection tasks (template prior_auth/pain_injection) agree with Keystone
Mutual's policy KM-PAIN-702: a policy code for a Keystone member at the surgery center, and a task
files a request exactly when the most recent LUMBAR injection's follow-up note measures 50% relief
for 6 weeks with at most 3 lumbar sessions in the 12 months before the planned date; the answers
its checks expect are those measures and that count (not an earlier injection's, not a cervical one)."""
from __future__ import annotations

from pathlib import Path

import yaml

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

POLICIES = Path(__file__).resolve().parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"


def _policy() -> dict:
    [policy] = [p for p in yaml.safe_load(POLICIES.read_text(encoding="utf-8")) if p["policy_number"] == "KM-PAIN-702"]
    return policy


def _tasks():
    return [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/pain_injection"]


def _measures(task) -> tuple[int, int, int]:
    """(relief %, weeks, lumbar sessions in the 12 months before the planned date) as the records give them."""
    planned = task.case.orders[0].planned_date
    lumbar = sorted((d for d in task.case.documents if "lumbar" in (d.facts.injection_procedure or "")),
                    key=lambda d: d.date)
    [follow_up] = [d for d in task.case.documents if d.facts.injection_followed_up == lumbar[-1].date]
    sessions = sum(1 for d in lumbar if planned.replace(year=planned.year - 1) < d.date < planned)
    return follow_up.facts.relief_percent, follow_up.facts.relief_weeks, sessions


def _expected(task, suffix: str):
    return [c.expected for s in task.subtasks for c in s.checks if getattr(c, "query", "").endswith(suffix)]


def test_the_tasks_order_a_policy_injection_for_a_keystone_member():
    tasks = _tasks()
    assert sorted((t.id, t.difficulty) for t in tasks) == [("pa-easy-04", "easy"), ("pa-hard-01", "hard")]
    for task in tasks:
        order = task.case.orders[0]
        assert order.code in _policy()["codes"] and order.facility == "FAC-ASC"
        assert task.case.coverages[0].payer == "PYR-KMH"
        assert all(code.startswith(tuple(_policy()["covered_diagnoses"])) for code in order.diagnoses)
        # Every chart has a trap the count leaves out: an injection in another region.
        assert any("cervical" in (d.facts.injection_procedure or "") for d in task.case.documents)


def test_a_task_files_exactly_when_the_records_meet_the_repeat_criteria():
    for task in _tasks():
        relief, weeks, sessions = _measures(task)
        assert (relief >= 50 and weeks >= 6 and sessions <= 3) == task.feasible, task.id


def test_a_filed_request_answers_the_measures_of_the_most_recent_lumbar_injection():
    [task] = [t for t in _tasks() if t.feasible]
    relief, weeks, sessions = _measures(task)
    answers = [e for s in task.subtasks for c in s.checks if "esi_relief_weeks" in getattr(c, "query", "")
               for e in [c.expected]]
    assert answers == [[relief, weeks]]
    assert _expected(task, "clinical.esi_sessions_12_months") == [sessions]
    # The count leaves out the older lumbar injection: counting every lumbar note would differ.
    assert sum("lumbar" in (d.facts.injection_procedure or "") for d in task.case.documents) > sessions


def test_the_summary_trap_contradicts_the_follow_up_measure():
    [task] = [t for t in _tasks() if not t.feasible]
    relief, _, _ = _measures(task)
    visit = next(d for d in task.case.documents if d.key == "visit")
    assert "good relief" in visit.narrative and relief < 50
