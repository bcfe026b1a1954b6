"""The task file model: what a task asks, where it starts, its budget, and its case.

Subtasks, checks and guards join this model in a later issue. `extra="forbid"` makes a
typo in a task file an error rather than a silently ignored key. `case` is the task's
situation in domain terms (see case_model); `seed` holds raw rows per app and table for
the odd row a case cannot express. Both exist only in the task's own episodes.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from admindesk.verifiers.case_model import Case

AppName = Literal["ehr_web", "payer_portal_a", "payer_portal_b", "fax"]
APP_NAMES: tuple[str, ...] = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
DEFAULT_NOW = datetime(2026, 11, 16, 9, 0, 0)
# The interruptions each app can show when a task turns them on (all are off by default).
INTERRUPTIONS: dict[str, tuple[str, ...]] = {
    "ehr_web": ("best_practice_alert", "chart_lock"),
    "payer_portal_a": ("whats_new", "announcement"),
    "payer_portal_b": ("whats_new",),
    "fax": ("line_busy",),
}
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
    case: Case | None = None
    seed: dict[AppName, dict[str, list[dict[str, Any]]]] = Field(default_factory=dict)
    interruptions: dict[AppName, list[str]] = Field(default_factory=dict)

    @field_validator("interruptions")
    @classmethod
    def _known_interruptions(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for app, names in value.items():
            unknown = sorted(set(names) - set(INTERRUPTIONS[app]))
            if unknown:
                raise ValueError(f"{app} has no interruption {', '.join(unknown)} "
                                 f"(it has: {', '.join(INTERRUPTIONS[app])})")
        return value


class TaskFileError(ValueError):
    """A task file cannot be read or does not fit the model; the message names file and field."""


class _TextDatesLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: dates stay text so the model parses them and a bad
    one is reported with its field, instead of as a YAML error without one."""


_TextDatesLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


def read_task_yaml(path: str | Path) -> dict:
    """The raw mapping of one task file (dates as text); TaskFileError names the file."""
    try:
        data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_TextDatesLoader)
    except (OSError, yaml.YAMLError) as exc:
        raise TaskFileError(f"{path}: cannot read the task file ({exc})") from exc
    if not isinstance(data, dict):
        raise TaskFileError(f"{path}: a task file is a mapping of keys (id, goal, case, ...)")
    return data


def describe_errors(exc: ValidationError, prefix: str = "") -> str:
    """`case.orders.0.code: message; ...`: each error with the dotted path of its field."""
    return "; ".join(f"{'.'.join(str(p) for p in (prefix, *e['loc']) if p != '') or '(top level)'}: {e['msg']}"
                     for e in exc.errors())


def load_task_file(path: str | Path) -> Task:
    """Parse one YAML task file into a `Task`; a TaskFileError names the file and field."""
    try:
        return Task.model_validate(read_task_yaml(path))
    except ValidationError as exc:
        raise TaskFileError(f"{path}: {describe_errors(exc)}") from exc


def load_tasks(root: str | Path | None = None) -> list[Task]:
    """Every task under `root` (default: the repository's tasks/ folder), sorted by id.

    Returns an empty list while the folder holds no task files.
    """
    folder = Path(root) if root is not None else TASKS_ROOT
    if not folder.is_dir():
        return []
    tasks = [load_task_file(path) for path in sorted(folder.rglob("*.yaml"))]
    return sorted(tasks, key=lambda task: task.id)
