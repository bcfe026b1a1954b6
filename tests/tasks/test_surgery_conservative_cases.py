"""The conservative-care surgery tasks (template prior_auth/surgery_conservative_care) agree with
Keystone Mutual's joint replacement policy KM-SUR-601: a knee arthroplasty whose diagnosis gives the
ordered side; the weeks of therapy are recomputed from the operated knee's therapy record, and the
radiograph must be of that knee within 12 months showing grade 3 or 4. A task files a request
exactly when both hold, and a filed request's expected weeks are the record's."""
from __future__ import annotations

from pathlib import Path

import yaml

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

POLICIES = Path(__file__).resolve().parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"
SIDE_OF_DIAGNOSIS = {"M17.11": "right", "M17.12": "left"}


def _tasks():
    return [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/surgery_conservative_care"]


def _therapy_weeks(task) -> int:
    """Whole weeks from first to last visit of the latest therapy record of the ordered side."""
    side = task.case.orders[0].laterality
    records = [d for d in task.case.documents if d.type == "pt_note" and side in (d.facts.therapy_site or "")]
    latest = max(records, key=lambda d: d.date).facts
    return (latest.therapy_last_visit - latest.therapy_first_visit).days // 7


def _qualifying_radiograph(task) -> bool:
    side, today = task.case.orders[0].laterality, task.now.date()
    return any(d.type == "imaging_report" and side in (d.facts.imaging_study or "")
               and (today - d.date).days <= 365 and any(g in d.facts.imaging_findings for g in ("grade 3", "grade 4"))
               for d in task.case.documents)


def test_the_tasks_order_a_policy_arthroplasty_on_the_side_the_diagnosis_gives():
    [policy] = [p for p in yaml.safe_load(POLICIES.read_text(encoding="utf-8")) if p["policy_number"] == "KM-SUR-601"]
    tasks = _tasks()
    assert sorted(t.id for t in tasks) == ["pa-easy-15", "pa-hard-10"]
    for task in tasks:
        order = task.case.orders[0]
        assert order.code == "27447" and order.code in policy["codes"]
        assert task.case.coverages[0].payer == "PYR-KMH"
        assert SIDE_OF_DIAGNOSIS[order.diagnoses[0]] == order.laterality


def test_a_task_files_exactly_when_the_records_meet_the_policy():
    for task in _tasks():
        met = _therapy_weeks(task) >= 12 and _qualifying_radiograph(task)
        assert met == task.feasible, task.id


def test_a_note_that_overstates_the_therapy_is_what_the_routed_task_turns_on():
    [task] = [t for t in _tasks() if not t.feasible]
    note = next(d for d in task.case.documents if d.key == "visit")
    assert note.facts.conservative_therapy_weeks >= 12 > _therapy_weeks(task)
    assert _qualifying_radiograph(task)  # the radiographs are not what fails


def test_a_filed_request_expects_the_weeks_the_therapy_record_counts():
    [task] = [t for t in _tasks() if t.feasible]
    [check] = [c for s in task.subtasks for c in s.checks if getattr(c, "query", "").endswith("conservative_therapy_weeks")]
    assert check.min <= _therapy_weeks(task) <= check.max
