"""The task file model: what a task asks, where it starts, and its budget.

Kept minimal on purpose; subtasks, checks and guards join this model in a later issue.
`extra="forbid"` makes a typo in a task file an error rather than a silently ignored key.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

AppName = Literal["ehr_web", "payer_portal_a", "payer_portal_b", "fax"]
APP_NAMES: tuple[str, ...] = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
DEFAULT_NOW = datetime(2026, 11, 16, 9, 0, 0)
TASKS_ROOT = Path(__file__).resolve().parent.parent / "tasks"


class StartPage(BaseModel):
    """Where the episode opens: an app, a path inside it, and whether the user is logged in."""

    model_config = ConfigDict(extra="forbid")

    app: AppName = "ehr_web"
    path: str = "/"
    login: bool = True


class Task(BaseModel):
    """One benchmark task as written in a task file (or given ad hoc as a dict)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    workflow: Literal["prior_auth", "appeals", "dme", "adhoc"] = "adhoc"
    difficulty: Literal["easy", "medium", "hard"] | None = None
    now: datetime = DEFAULT_NOW
    goal: str = ""
    start: StartPage = Field(default_factory=StartPage)
    max_steps: int = Field(default=50, ge=1)


def load_task_file(path: str | Path) -> Task:
    """Parse one YAML task file into a `Task` (raises on unknown or invalid keys)."""
    with open(path, encoding="utf-8") as handle:
        return Task.model_validate(yaml.safe_load(handle))


def load_tasks(root: str | Path | None = None) -> list[Task]:
    """Every task under `root` (default: the repository's tasks/ folder), sorted by id.

    Returns an empty list while the folder holds no task files.
    """
    folder = Path(root) if root is not None else TASKS_ROOT
    if not folder.is_dir():
        return []
    tasks = [load_task_file(path) for path in sorted(folder.rglob("*.yaml"))]
    return sorted(tasks, key=lambda task: task.id)
