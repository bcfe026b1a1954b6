"""The task suite as a whole: one summary row per task, counts, and suite-wide problems.

Used by `admindesk tasks list` and `tasks validate`, and by the task-suite tests.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from admindesk.schema.task_model import Task
from admindesk.verifiers.static_validation import validate_task

# Guards every task that can do harm carries: a submission somewhere or PHI sent.
HARM_GUARD_KINDS = frozenset({"recipient", "duplicate", "no_submission", "phi"})


def task_apps(task: Task) -> list[str]:
    """The apps a task's checks and guards read, the start app first."""
    apps = [task.start.app]
    for item in [*task.checks(), *task.guards]:
        for query in item.app_queries():
            apps.append(query.app)
        app = getattr(item, "app", None)
        if isinstance(app, str):
            apps.append(app)
    return list(dict.fromkeys(apps))


def task_row(task: Task) -> dict[str, Any]:
    """id, workflow, difficulty, challenge, feasible, apps, n_checks, n_rubric (and guards),
    template and skills."""
    checks = task.checks()
    return {"id": task.id, "workflow": task.workflow, "difficulty": task.difficulty,
            "challenge": task.challenge, "feasible": task.feasible, "apps": task_apps(task),
            "n_checks": len(checks), "n_rubric": sum(not check.deterministic for check in checks),
            "n_guards": len(task.guards), "template": task.template, "skills": list(task.skills)}


def suite_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over task rows: by workflow, difficulty, challenge; checks; infeasible share."""
    checks = sum(row["n_checks"] for row in rows)
    rubric = sum(row["n_rubric"] for row in rows)
    return {
        "tasks": len(rows),
        "by_workflow": dict(sorted(Counter(row["workflow"] for row in rows).items())),
        "by_difficulty": {workflow: dict(sorted(Counter(row["difficulty"] for row in rows
                                                        if row["workflow"] == workflow).items()))
                          for workflow in sorted({row["workflow"] for row in rows})},
        "by_challenge": dict(sorted(Counter(row["challenge"] for row in rows).items())),
        "checks": checks, "deterministic": checks - rubric, "rubric": rubric,
        "guards": sum(row["n_guards"] for row in rows),
        "min_checks": min((row["n_checks"] for row in rows), default=0),
        "infeasible": sum(not row["feasible"] for row in rows),
    }


def suite_problems(tasks: list[Task]) -> list[str]:
    """Static validation of every task, plus the suite's own rules: at least 6 checks a
    task, harm guards on every task, skills on every workflow's task, and one task per id."""
    problems: list[str] = []
    seen: Counter = Counter(task.id for task in tasks)
    problems += [f"{task_id}: the id is used by {count} task files" for task_id, count in seen.items() if count > 1]
    for task in tasks:
        problems += validate_task(task)
        if len(task.checks()) < 6:
            problems.append(f"{task.id}: {len(task.checks())} checks; a task needs at least 6")
        if not HARM_GUARD_KINDS & {guard.kind for guard in task.guards}:
            problems.append(f"{task.id}: no harm guard (recipient, duplicate, no_submission or phi)")
        if task.workflow != "adhoc" and not task.skills:
            problems.append(f"{task.id}: no skills; its template (or case row) names the procedures it exercises")
    return problems
