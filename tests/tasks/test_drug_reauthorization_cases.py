"""The renewal tasks (template prior_auth/drug_reauthorization) agree with Keystone Mutual's
continuation policy KM-RX-520: a rheumatoid arthritis biologic the policy renews, for a Keystone
member whose current approval ends within the 30-day window of the task's day, and a task files a
renewal exactly when the latest DAS28 measured at a visit improved by 1.2 or more from the
pre-treatment score (taken before the first approved dose) and is at most 90 days old. Each case's
trap is real: a baseline that makes the other answer look right."""
from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import yaml

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

POLICIES = Path(__file__).resolve().parents[2] / "envs" / "payer_portal_b" / "data" / "policies.yaml"
# A score measured at a visit ("DAS28-CRP 3.9 today") or before the first dose (the consultation's).
MEASURED = re.compile(r"DAS28-(?:CRP|ESR) (\d+\.\d) (today|\(pre-treatment baseline\))")


def _policy() -> dict:
    [policy] = [p for p in yaml.safe_load(POLICIES.read_text(encoding="utf-8")) if p["policy_number"] == "KM-RX-520"]
    return policy


def _tasks():
    return [t for t in load_tasks(TASKS_ROOT) if t.template == "prior_auth/drug_reauthorization"]


def _vars(task) -> dict:
    table = TASKS_ROOT / "templates" / "prior_auth" / "drug_reauthorization.cases.yml"
    return next(row["vars"] for row in yaml.safe_load(table.read_text())["rows"] if row["id"] == task.id)


def _document(task, key: str):
    return next(d for d in task.case.documents if d.key == key)


def _score(document) -> float:
    return float(MEASURED.search(document.narrative).group(1))


def _approvals(task) -> dict:
    return {r.key: r for r in task.case.payer_history.requests}


def test_the_tasks_renew_a_drug_of_the_policy_for_a_keystone_member_in_the_window():
    tasks = _tasks()
    assert sorted((t.id, t.difficulty) for t in tasks) == [("pa-hard-04", "hard"), ("pa-hard-05", "hard")]
    for task in tasks:
        order, today = task.case.orders[0], task.now.date()
        assert order.code in _policy()["continuation_codes"] and task.case.coverages[0].payer == "PYR-KMH"
        assert all(code.startswith(tuple(_policy()["covered_diagnoses"])) for code in order.diagnoses)
        approvals = _approvals(task)
        current = approvals["current"]
        assert current.status == "Approved" and current.end - timedelta(days=30) <= today <= current.end
        # The renewal starts the day after the current approval, which follows the first one.
        assert order.planned_date == current.end + timedelta(days=1)
        assert approvals["first"].end + timedelta(days=1) == current.start


def test_the_checks_expect_the_pretreatment_and_the_latest_measured_scores():
    for task in _tasks():
        values = _vars(task)
        baseline, latest = _document(task, values["baseline_doc"]), _document(task, values["latest_doc"])
        # The baseline was measured before the first approved dose, by a scanned record off the order.
        assert baseline.date < _approvals(task)["first"].start and baseline.order is None
        assert "pre-treatment baseline" in baseline.narrative and _score(baseline) == values["baseline"]["score"]
        measured = sorted((d for d in task.case.documents if d.narrative and MEASURED.search(d.narrative)),
                          key=lambda d: d.date)
        assert measured[-1].key == values["latest_doc"] and _score(latest) == values["latest"]["score"]


def test_a_task_files_a_renewal_exactly_when_the_response_meets_the_policy():
    for task in _tasks():
        values = _vars(task)
        latest = _document(task, values["latest_doc"])
        improved = round(values["baseline"]["score"] - values["latest"]["score"], 1) >= 1.2
        recent = (task.now.date() - latest.date).days <= 90
        assert task.feasible == (improved and recent) == ("short" not in values)


def test_the_feasible_task_looks_unmet_against_the_score_of_the_earlier_renewal():
    [task] = [t for t in _tasks() if t.feasible]
    values = _vars(task)
    renewal = _document(task, "renewal")
    # The flowsheet's baseline is the score at the May renewal, on the drug: measured against it the
    # latest score improves by less than 1.2; against the pre-treatment score it is met.
    assert renewal.date > _approvals(task)["first"].start
    assert _score(renewal) - values["latest"]["score"] < 1.2 <= values["baseline"]["score"] - values["latest"]["score"]
    assert f"Baseline DAS28-CRP (set {renewal.date:%m/%d/%Y}): {_score(renewal)}" in _document(task, "flowsheet").narrative


def test_the_unmet_task_fails_on_the_scores_age_not_its_size_behind_newer_notes():
    [task] = [t for t in _tasks() if not t.feasible]
    values = _vars(task)
    latest = _document(task, values["latest_doc"])
    assert values["baseline"]["score"] - values["latest"]["score"] >= 1.2
    assert (task.now.date() - latest.date).days > 90
    # Newer notes measure nothing: the ordering note repeats the score without its date, the
    # internal medicine visit is about another condition.
    newer = [d for d in task.case.documents if d.date > latest.date]
    assert {d.key for d in newer} == {"pcp", "visit"} and not any(MEASURED.search(d.narrative) for d in newer)
    assert f"to {values['latest']['score']}" in _document(task, "visit").narrative
