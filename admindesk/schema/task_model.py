"""The task file model: what a task asks, where it starts, its budget, and its case.

Subtasks (each with its checks, see check_kinds) and guards (harm checks, see guards)
say how an episode is scored. `extra="forbid"` makes a typo in a task file an error
rather than a silently ignored key. `case` is the task's
situation in domain terms (see case_model); `seed` holds raw rows per app and table for
the odd row a case cannot express. Both exist only in the task's own episodes.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from admindesk.schema.app_names import APP_NAMES, AppName
from admindesk.schema.case_model import Case
from admindesk.schema.check_kinds import Check
from admindesk.schema.guards import Guard
from admindesk.schema.skills import SkillList

__all__ = ["APP_NAMES", "AppName", "Category", "Challenge", "StartPage", "Subtask", "Task",
           "TaskFileError", "load_task_file", "load_tasks"]
DEFAULT_NOW = datetime(2026, 11, 16, 9, 0, 0)
# The interruptions each app can show when a task turns them on (all are off by default).
INTERRUPTIONS: dict[str, tuple[str, ...]] = {
    "ehr_web": ("best_practice_alert", "chart_lock"),
    "payer_portal_a": ("whats_new", "announcement"),
    "payer_portal_b": ("whats_new",),
    "fax": ("line_busy",),
}
# The checkout's tasks/ folder; an installed (non-editable) copy has it as admindesk/tasks.
_CHECKOUT_TASKS = Path(__file__).resolve().parents[2] / "tasks"
TASKS_ROOT = _CHECKOUT_TASKS if _CHECKOUT_TASKS.is_dir() else Path(__file__).resolve().parents[1] / "tasks"


def _known_interruptions(value: dict[str, list[str]]) -> dict[str, list[str]]:
    for app, names in value.items():
        unknown = sorted(set(names) - set(INTERRUPTIONS[app]))
        if unknown:
            raise ValueError(f"{app} has no interruption {', '.join(unknown)} "
                             f"(it has: {', '.join(INTERRUPTIONS[app])})")
    return value


# A task's `interruptions:` (app -> names); the kit reads a task file's section with it too.
Interruptions = Annotated[dict[AppName, list[str]], AfterValidator(_known_interruptions)]
INTERRUPTIONS_SECTION = TypeAdapter(Interruptions)


class StartPage(BaseModel):
    """Where the episode opens: an app, a path inside it, and whether the user is logged in."""

    model_config = ConfigDict(extra="forbid")

    app: AppName = "ehr_web"
    path: str = "/"
    login: bool = True


Category = Literal["information_retrieval", "form_completion", "document_handling", "documentation",
                   "clinical_reasoning", "resolution"]
# The trap a task sets (none: the plain path is right).
Challenge = Literal["none", "no_auth_required", "duplicate_on_file", "coverage_termed", "fax_only_payer",
                    "pended_for_info", "deadline_passed", "wrong_code_on_order", "lookalike_patient",
                    "conflicting_documents", "secondary_payer",
                    # DME: the equipment's coverage criteria are not met (test value, face-to-face
                    # window); the order names a supplier the patient's plan has no contract with.
                    "criteria_not_met", "non_contracted_supplier",
                    # Appeals: a low payment that is the member's cost share, not an underpayment.
                    "member_cost_share"]
# screens: a browser on the apps' pages; api: the apps' FHIR and PAS APIs as tools.
Channel = Literal["screens", "api"]
Ident = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")


class Subtask(BaseModel):
    """One step of the work, scored by its checks; it may depend on earlier steps."""

    model_config = ConfigDict(extra="forbid")

    id: str = Ident
    description: str = Field(min_length=1)
    depends_on: list[str] = Field(default_factory=list)
    category: Category
    checks: list[Check] = Field(min_length=1)
    # Reading that every route through the subtasks depending on this one does anyway (their
    # screens show what it reads: the work item shows the denial it concerns), so leaving its
    # own steps out cannot fail it: `tasks check --ablate` does not ablate it.
    read_on_the_way: bool = False

    @model_validator(mode="after")
    def _only_views_are_read_on_the_way(self):
        if self.read_on_the_way and not all(
                check.kind == "audit" and check.match.get("action") == "view" for check in self.checks):
            raise ValueError(f"subtask {self.id!r}: read_on_the_way is for a subtask whose checks are all "
                             "audit checks of views (action: view)")
        return self


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
    interruptions: Interruptions = Field(default_factory=dict)
    challenge: Challenge = "none"
    # False when the right work is to stop and write down why (e.g. an appeal past its deadline).
    feasible: bool = True
    revision: int = Field(default=1, ge=1)
    template: str | None = None
    # The procedures the task exercises, from the closed vocabulary in schema/skills.py.
    skills: SkillList = Field(default_factory=list)
    # How the work may be done: through the screens (a browser) and, where the apps' APIs
    # cover every step, through them (`admindesk run --channel api`); the same checks score both.
    channels: list[Channel] = Field(default_factory=lambda: ["screens"], min_length=1)
    # The step-by-step plan shown in the `task_specific` prompt mode (never the answers).
    guidance: list[str] = Field(default_factory=list)
    subtasks: list[Subtask] = Field(default_factory=list)
    guards: list[Guard] = Field(default_factory=list)
    # A held-out split's public copy: the checks and guards stay with the maintainers, who
    # score the run with their complete copy (harness/task_tools/splits/withheld.py).
    checks_withheld: bool = False

    @model_validator(mode="after")
    def _subtasks_form_a_graph(self):
        if len(set(self.channels)) != len(self.channels):
            raise ValueError(f"channels lists one twice: {self.channels}")
        if self.checks_withheld and (self.subtasks or self.guards):
            raise ValueError("a task whose checks are withheld lists no subtasks or guards")
        order_subtasks(self.subtasks)
        depended_on = {name for subtask in self.subtasks for name in subtask.depends_on}
        for subtask in self.subtasks:
            if subtask.read_on_the_way and subtask.id not in depended_on:
                raise ValueError(f"subtask {subtask.id!r} is read_on_the_way but no subtask depends on it")
        seen: set[str] = set()
        for subtask in self.subtasks:
            for index, check in enumerate(subtask.checks, start=1):
                check.id = check.id or f"{subtask.id}.{index}"
        for index, guard in enumerate(self.guards, start=1):
            guard.id = guard.id or f"guard.{index}"
        for item in [c for s in self.subtasks for c in s.checks] + list(self.guards):
            if item.id in seen:
                raise ValueError(f"check id {item.id!r} is used twice")
            seen.add(item.id)
        return self

    def checks(self) -> list:
        """Every check of every subtask, in file order."""
        return [check for subtask in self.subtasks for check in subtask.checks]


def order_subtasks(subtasks: list[Subtask]) -> list[Subtask]:
    """Subtasks in dependency order (file order among equals); ValueError on a bad graph."""
    by_id: dict[str, Subtask] = {}
    for subtask in subtasks:
        if subtask.id in by_id:
            raise ValueError(f"subtask id {subtask.id!r} is used twice")
        by_id[subtask.id] = subtask
    for subtask in subtasks:
        unknown = [dep for dep in subtask.depends_on if dep not in by_id]
        if unknown:
            raise ValueError(f"subtask {subtask.id} depends_on {', '.join(unknown)}, which is not a "
                             f"subtask (known: {', '.join(by_id)})")
    ordered: list[Subtask] = []
    placed: set[str] = set()
    while len(ordered) < len(subtasks):
        ready = [s for s in subtasks if s.id not in placed and set(s.depends_on) <= placed]
        if not ready:
            cycle = sorted(s.id for s in subtasks if s.id not in placed)
            raise ValueError(f"subtasks {', '.join(cycle)} depend on each other in a cycle")
        ordered.append(ready[0])
        placed.add(ready[0].id)
    return ordered


class TaskFileError(ValueError):
    """A task file cannot be read or does not fit the model; the message names file and field."""


def _without_timestamps(loader: type) -> type:
    """`loader` with dates kept as text: the model parses them, and a bad one is reported
    with its field instead of as a YAML error without one."""
    loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    return loader


@_without_timestamps
class _TextDatesLoader(yaml.CSafeLoader):
    """libyaml's parser (~8x faster: every worker and app reads all task files at start)."""


@_without_timestamps
class _ExplainingTextDatesLoader(yaml.SafeLoader):
    """The pure-Python parser: slower, but its errors quote the offending line."""


def parse_task_text(text: str) -> Any:
    """A task file's text as data (dates as text); a YAMLError quotes the bad line."""
    try:
        return yaml.load(text, Loader=_TextDatesLoader)
    except yaml.YAMLError:
        # Both parsers refuse the same texts: this raises again, with the bad line quoted.
        return yaml.load(text, Loader=_ExplainingTextDatesLoader)


def read_task_yaml(path: str | Path) -> dict:
    """The raw mapping of one task file (dates as text); TaskFileError names the file."""
    try:
        data = parse_task_text(Path(path).read_text(encoding="utf-8"))
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
