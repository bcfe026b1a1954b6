"""Scoring: a task's checks and guards run over one record, and tallies over many.

A task passes end to end only when every check and guard passes. When every
deterministic check and every guard passes but some rubric check had no judge, the
result is `unjudged` (the run says nothing yet about the writing); when instead a judge
was asked and gave no verdict (unreachable, malformed answer), it is `error`. Anything
else fails, and the failure is put on the first failing subtask in dependency order.

A subtask's credit follows its dependencies: it passes only when its own checks pass and
every prerequisite (`depends_on`) passed. A failed prerequisite fails it; one only
unjudged (or without a verdict from the judge) leaves it unjudged (or `error`), never
failed on that account. Its own checks' results stay in the result either way, and
`blocked_by` with `explanation` say which prerequisite held it back. The task's outcome
and the first failing subtask come from the checks alone, so gating changes neither.
"""
from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import Task, order_subtasks
from admindesk.verifiers.checks import run_check
from admindesk.verifiers.episode import EpisodeView
from admindesk.verifiers.judge import Judge
from admindesk.verifiers.judge.usage import JudgeUsage, RecordingJudge
from admindesk.verifiers.records import CheckResult, EpisodeRecord

Outcome = Literal["pass", "unjudged", "error", "fail"]


class NamedResult(BaseModel):
    """A check's (or guard's) result with the id and kind it came from."""

    id: str
    kind: str
    deterministic: bool
    result: CheckResult


class SubtaskResult(BaseModel):
    """A subtask's checks and outcome: `pass` only when all its checks and prerequisites pass,
    `unjudged`/`error` when only rubrics (its own or a prerequisite's) are open."""

    id: str
    category: str
    outcome: Outcome
    checks: list[NamedResult]
    # Direct prerequisites that did not pass, and in words why `outcome` is not the checks'.
    blocked_by: list[str] = Field(default_factory=list)
    explanation: str = ""

    @computed_field
    @property
    def checks_outcome(self) -> Outcome:
        """The outcome of this subtask's own checks, prerequisites aside."""
        return _outcome(self.checks)


class TaskResult(BaseModel):
    """One task scored against one record."""

    task_id: str
    workflow: str
    difficulty: str | None
    challenge: str
    feasible: bool
    outcome: Outcome
    subtask_pass_rate: float = Field(ge=0.0, le=1.0)
    first_failing_subtask: str | None
    subtasks: list[SubtaskResult]
    guards: list[NamedResult]
    n_checks: int
    n_checks_passed: int
    n_unjudged: int
    n_errors: int = 0
    # What the judge did (spec, model versions, votes, cache hits); None without a judge.
    judge: JudgeUsage | None = None

    @property
    def deterministic_pass(self) -> bool:
        """Every deterministic check and every guard passed: the result with the rubric
        checks (an LLM judge's) left aside, known without a judge."""
        checks = [item for subtask in self.subtasks for item in subtask.checks if item.deterministic]
        return bool(self.n_checks) and all(item.result.passed for item in checks + self.guards)


# A real failure outranks a judge's error, which outranks a missing judge.
SEVERITY: tuple[Outcome, ...] = ("pass", "unjudged", "error", "fail")
# How a prerequisite's outcome reads in a dependent subtask's explanation.
_HELD_BACK = {"fail": "failed", "error": "has no verdict from the judge", "unjudged": "is unjudged"}


def _worst(outcomes) -> Outcome:
    return max(outcomes, key=SEVERITY.index, default="pass")


def _outcome(results: list[NamedResult]) -> Outcome:
    return _worst(item.result.state for item in results)


def _gate(subtask_id: str, category: str, checks: list[NamedResult], prerequisites: dict[str, Outcome]) -> SubtaskResult:
    """The subtask's result with its prerequisites' outcomes (already gated themselves) applied."""
    blocked = {dep: outcome for dep, outcome in prerequisites.items() if outcome != "pass"}
    explanation = "; ".join(f"prerequisite {dep} {_HELD_BACK[outcome]}" for dep, outcome in blocked.items())
    return SubtaskResult(id=subtask_id, category=category, checks=checks, blocked_by=list(blocked),
                         outcome=_worst([_outcome(checks), *blocked.values()]), explanation=explanation)


def score_task(task: Task, record: EpisodeRecord, judge: Judge | None = None) -> TaskResult:
    """Every check and guard of `task` over `record` (rubric checks go to `judge`, if any).

    Raises QueryError or CaseReferenceError when the task itself is broken (a query that
    does not compile, a case path that leads nowhere): that is no verdict on the agent.
    """
    if record.task_id != task.id:
        raise ValueError(f"the record is of task {record.task_id}, not {task.id}")
    recording = RecordingJudge(judge, context=_task_context(task)) if judge is not None else None
    view = EpisodeView(record=record, case=case_values(task), judge=recording)
    subtasks: list[SubtaskResult] = []
    outcomes: dict[str, Outcome] = {}
    for subtask in order_subtasks(task.subtasks):
        checks = [NamedResult(id=check.id, kind=check.kind, deterministic=check.deterministic,
                              result=run_check(check, view)) for check in subtask.checks]
        result = _gate(subtask.id, subtask.category, checks, {dep: outcomes[dep] for dep in subtask.depends_on})
        outcomes[subtask.id] = result.outcome
        subtasks.append(result)
    guards = [NamedResult(id=guard.id, kind=guard.kind, deterministic=True, result=run_check(guard, view))
              for guard in task.guards]
    everything = [item for subtask in subtasks for item in subtask.checks] + guards
    checks = [item for subtask in subtasks for item in subtask.checks]
    first_failing = next((s.id for s in subtasks if s.checks_outcome == "fail"), None)
    return TaskResult(
        task_id=task.id, workflow=task.workflow, difficulty=task.difficulty, challenge=task.challenge,
        feasible=task.feasible,
        # No checks at all is no evidence of success.
        outcome=_outcome(everything) if checks else "fail",
        subtask_pass_rate=(sum(s.outcome == "pass" for s in subtasks) / len(subtasks)) if subtasks else 0.0,
        first_failing_subtask=first_failing, subtasks=subtasks, guards=guards,
        n_checks=len(checks), n_checks_passed=sum(item.result.passed for item in checks),
        n_unjudged=sum(item.result.state == "unjudged" for item in everything),
        n_errors=sum(item.result.state == "error" for item in everything),
        judge=recording.usage if recording is not None else None)


def _task_context(task: Task) -> str:
    """What the judge is told about the task: its id, workflow, the work date and the goal as given."""
    return (f"Task {task.id} ({task.workflow}), worked on {task.now:%Y-%m-%d}. "
            f"Goal given to the agent: {task.goal.strip() or '(none)'}")


class Tally(BaseModel):
    """How many of a group passed, were unjudged, had a judge error, or failed."""

    total: int = 0
    passed: int = 0
    unjudged: int = 0
    errors: int = 0
    failed: int = 0

    def add(self, outcome: Outcome) -> None:
        self.total += 1
        if outcome == "pass":
            self.passed += 1
        elif outcome == "unjudged":
            self.unjudged += 1
        elif outcome == "error":
            self.errors += 1
        else:
            self.failed += 1


class RunSummary(BaseModel):
    """Tallies over many task results: end to end, subtasks per category, tasks per challenge."""

    tasks: Tally = Field(default_factory=Tally)
    subtask_pass_rate: float = 0.0
    by_category: dict[str, Tally] = Field(default_factory=dict)
    by_challenge: dict[str, Tally] = Field(default_factory=dict)
    guard_failures: dict[str, int] = Field(default_factory=dict)
    # Category of each failed task's first failing subtask: where runs break down.
    first_failing_category: dict[str, int] = Field(default_factory=dict)


def summarise(results: list[TaskResult]) -> RunSummary:
    """Tallies per category (subtask outcomes) and per challenge kind (task outcomes)."""
    summary = RunSummary()
    rates = []
    guard_failures: Counter = Counter()
    first_failing: Counter = Counter()
    for result in results:
        summary.tasks.add(result.outcome)
        summary.by_challenge.setdefault(result.challenge, Tally()).add(result.outcome)
        rates.append(result.subtask_pass_rate)
        for subtask in result.subtasks:
            summary.by_category.setdefault(subtask.category, Tally()).add(subtask.outcome)
        guard_failures.update(g.kind for g in result.guards if not g.result.passed)
        first = next((s for s in result.subtasks if s.id == result.first_failing_subtask), None)
        if first is not None:
            first_failing[first.category] += 1
    summary.subtask_pass_rate = sum(rates) / len(rates) if rates else 0.0
    summary.guard_failures = dict(sorted(guard_failures.items()))
    summary.first_failing_category = dict(first_failing.most_common())
    return summary
