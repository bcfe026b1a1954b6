"""A human-baseline attempt as docs/human_baseline.md defines it: one JSON object per attempt
(who did the task, when, how long it took, and how the checks judged the end state), written
by play mode on the attempt's first Done.

Results hold no names: a participant is an opaque id (letters then digits, e.g. `P07`).
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from admindesk.schema.task_model import Task
from admindesk.verifiers.scoring import TaskResult

# Up to four letters then up to four digits: `P07`, `RN12`; a name does not fit.
PARTICIPANT_ID = re.compile(r"^[A-Za-z]{0,4}[0-9]{1,4}$")


class Participant(BaseModel):
    """Who does the attempts of one play session: an opaque id and their background."""

    model_config = ConfigDict(extra="forbid")

    id: str
    experience_years: float = Field(ge=0, le=60)
    role: str = Field(min_length=1, max_length=80)

    @field_validator("id")
    @classmethod
    def _opaque(cls, value: str) -> str:
        if not PARTICIPANT_ID.match(value):
            raise ValueError(f"participant {value!r} is not an opaque id such as P07 "
                             "(up to four letters, then one to four digits; never a name)")
        return value


class CheckOutcome(BaseModel):
    """One check's (or guard's) result on Done."""

    id: str
    kind: str
    state: Literal["pass", "fail", "unjudged", "error"]


class SubtaskOutcome(BaseModel):
    """One subtask's outcome on Done."""

    id: str
    outcome: str


class HumanAttempt(BaseModel):
    """One attempt, with the fields of docs/human_baseline.md's "A human result" table."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    task_revision: int
    participant: str
    experience_years: float
    role: str
    started_at: datetime
    finished_at: datetime
    seconds: float = Field(ge=0)
    outcome: Literal["pass", "fail", "unjudged", "error"]
    subtasks: list[SubtaskOutcome]
    checks: list[CheckOutcome]
    answer: str
    judge: str | None
    notes: str | None = None


def attempt_path(folder: Path, task_id: str, participant: Participant) -> Path:
    """Where the attempt of `participant` at `task_id` is written in `folder`."""
    return folder / f"{task_id}-{participant.id}.json"


def build_attempt(task: Task, participant: Participant, result: TaskResult, *, answer: str,
                  started_at: datetime, finished_at: datetime, seconds: float,
                  judge_spec: str | None) -> HumanAttempt:
    """The attempt record for a Done: the verdict check by check (guards included)."""
    checks = [named for subtask in result.subtasks for named in subtask.checks] + list(result.guards)
    return HumanAttempt(
        task_id=task.id, task_revision=task.revision, participant=participant.id,
        experience_years=participant.experience_years, role=participant.role,
        started_at=started_at, finished_at=finished_at, seconds=round(seconds, 1),
        outcome=result.outcome,
        subtasks=[SubtaskOutcome(id=s.id, outcome=s.outcome) for s in result.subtasks],
        checks=[CheckOutcome(id=c.id, kind=c.kind, state=c.result.state) for c in checks],
        answer=answer, judge=judge_spec)


def write_attempt(path: Path, attempt: HumanAttempt) -> None:
    """Write the attempt to `path`, which must not exist yet (only an attempt's first Done
    counts, and no participant does a task twice): FileExistsError otherwise."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as out:
        json.dump(attempt.model_dump(mode="json"), out, indent=1)
        out.write("\n")
