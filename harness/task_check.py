"""`admindesk tasks check`: prove a task selection's verifiers right with real episodes.

For every task: the reference must pass every deterministic check and guard (`pass` or
`unjudged`); noop, notes-only and wrong-patient must fail it; do-it-anyway must fail the
tasks where the right move is to file nothing. With ablation, the reference runs once
per subtask with that subtask's actions skipped: the subtask must fail, and so must the
task. Everything runs on one Env, one episode at a time.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from admindesk.harness import runner_local
from admindesk.harness.env import Env
from admindesk.verifiers.scoring import TaskResult
from admindesk.verifiers.task_model import Task, order_subtasks

CONTROLS = ("noop", "notes-only", "wrong-patient")
FILE_NOTHING_GUARD = "no_submission"


def files_nothing(task: Task) -> bool:
    """True when the right work files no request anywhere (every submission table guarded)."""
    return sum(guard.kind == FILE_NOTHING_GUARD for guard in task.guards) >= 3 or not task.feasible


def dependents(task: Task, subtask_id: str) -> set[str]:
    """Subtasks depending on `subtask_id`, directly or through others."""
    found: set[str] = set()
    for subtask in order_subtasks(task.subtasks):
        if subtask_id in subtask.depends_on or found & set(subtask.depends_on):
            found.add(subtask.id)
    return found


@dataclass
class TaskCheck:
    """One task's verdicts: agent (or `reference-skip:<subtask>`) -> outcome, and problems."""

    task_id: str
    outcomes: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _outcome(result: runner_local.EpisodeOutcome) -> str:
    return result.summary.result


def check_task(env: Env, task: Task, out_dir: Path, *, ablate: bool) -> TaskCheck:
    """Run the reference, the controls and (if asked) the ablations on one task."""
    verdict = TaskCheck(task.id)

    def episode(agent: str, label: str, **options) -> runner_local.EpisodeOutcome:
        for _attempt in range(2):
            outcome = runner_local.run(agent, [task], out_dir / label, agent_options=options, env=env,
                                       keep_screenshots=False)[0]
            # A first reset that builds a case's world can outlast the reset timeout on a loaded
            # machine; the build finishes anyway, so one retry tells the app from the agent.
            if "failed to reset" not in (outcome.summary.error or ""):
                break
        verdict.outcomes[label] = _outcome(outcome)
        return outcome

    reference = episode("reference", "reference")
    if reference.summary.result not in ("pass", "unjudged"):
        note = reference.summary.agent_note or reference.summary.error or ""
        verdict.problems.append(f"reference {reference.summary.result} at "
                                f"{reference.summary.first_failing_subtask} {note[:200]}".strip())
    controls = list(CONTROLS) + (["do-it-anyway"] if files_nothing(task) else [])
    for control in controls:
        if episode(control, control).summary.result != "fail":
            verdict.problems.append(f"{control} was not failed")
    if ablate:
        for subtask in order_subtasks(task.subtasks):
            label = f"skip:{subtask.id}"
            outcome = episode("reference", label, skip=subtask.id)
            score: TaskResult | None = outcome.score
            if score is None or score.outcome != "fail":
                verdict.problems.append(f"{label}: the task was not failed")
                continue
            by_id = {s.id: s.outcome for s in score.subtasks}
            if by_id[subtask.id] == "pass":
                verdict.problems.append(f"{label}: the skipped subtask still passed")
            still = sorted(d for d in dependents(task, subtask.id) if by_id[d] == "pass")
            if still:
                verdict.outcomes[label] += f" (dependents passing: {', '.join(still)})"
    return verdict


def check_tasks(tasks: list[Task], out_dir: Path, *, ablate: bool = False,
                echo=print) -> tuple[list[TaskCheck], float]:
    """Check every task on one Env; returns the verdicts and the wall time in seconds."""
    started = time.perf_counter()
    verdicts = []
    with Env("screenshot") as env:
        for task in tasks:
            verdict = check_task(env, task, out_dir / task.id, ablate=ablate)
            echo(format_row(verdict))
            verdicts.append(verdict)
    return verdicts, time.perf_counter() - started


def format_row(verdict: TaskCheck) -> str:
    """One table line: the task, each agent's outcome, OK or the problems."""
    cells = "  ".join(f"{label}={outcome}" for label, outcome in verdict.outcomes.items())
    status = "OK" if not verdict.problems else "PROBLEM: " + "; ".join(verdict.problems)
    return f"{verdict.task_id:<14} {cells}  {status}"
