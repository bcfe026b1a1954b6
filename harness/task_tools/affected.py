"""Which tasks a change to one file could affect, for `admindesk tasks affected --by FILE`:
the tasks to re-check after an edit instead of the whole suite.

The answer errs on the side of more tasks: a file whose reach is not narrower (the world,
the app kit, the task schema, the verifiers, the harness) affects every task.

- a task file: that task; a template, or its reference solution: the tasks of that template;
  a case table (`*.cases.yml`): the tasks of its rows; the shared template macros and the
  desk guidance: every task
- an app's file: the tasks that start in, check or guard that app, and for a payer portal
  also the tasks whose case has a coverage with a payer that portal serves (its policy and
  rules decide their requests)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from admindesk.envs.world import build_world
from admindesk.schema.app_names import APP_NAMES
from admindesk.schema.task_model import Task

REPOSITORY = Path(__file__).resolve().parents[2]
# A payer portal's app name -> the `portal` the world's payers name it by.
PORTAL_OF_APP = {"payer_portal_a": "a", "payer_portal_b": "b"}


class AffectedError(ValueError):
    """The file is not one of the repository's (the message says why)."""


@dataclass(frozen=True)
class Affected:
    """The ids of the tasks a change could affect, and why those."""

    task_ids: list[str]
    reason: str


def repository_path(path: Path, roots: list[Path]) -> tuple[Path, PurePosixPath]:
    """The first of `roots` holding `path`, and `path` relative to it (a changed file may
    since have been deleted); AffectedError when none holds it."""
    absolute = (path if path.is_absolute() else Path.cwd() / path).resolve()
    for root in roots:
        if absolute.is_relative_to(root.resolve()):
            return root, PurePosixPath(absolute.relative_to(root.resolve()).as_posix())
    raise AffectedError(f"{path} is not a file of the repository ({' or '.join(str(r) for r in roots)})")


def task_apps(task: Task) -> set[str]:
    """The apps a task starts in, checks or guards."""
    apps = {task.start.app}
    for check in [*task.checks(), *task.guards]:
        apps.update(query.app for query in check.app_queries())
        app = getattr(check, "app", None)  # audit and row checks name their app directly
        if isinstance(app, str):
            apps.add(app)
    return apps


def _case_table_ids(path: Path) -> set[str]:
    if not path.is_file():
        raise AffectedError(f"{path} does not exist: a deleted case table's tasks are named by their files")
    rows = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("rows") or []
    return {row["id"] for row in rows if isinstance(row, dict) and "id" in row}


def _portal_payers(app: str) -> set[str]:
    return {payer.id for payer in build_world().payers if payer.portal == PORTAL_OF_APP.get(app)}


def affected_tasks(path: Path, tasks: list[Task], tasks_dir: Path) -> Affected:
    """The tasks of `tasks` (loaded from `tasks_dir`) a change to `path` could affect (see
    the module docstring). Task paths count from the folder holding `tasks_dir`, so a
    designer's copy of tasks/ works; the rest from the repository."""
    roots = list(dict.fromkeys([tasks_dir.resolve().parent, REPOSITORY]))
    root, relative = repository_path(path, roots)
    parts, name = relative.parts, relative.name
    everything = sorted(task.id for task in tasks)

    def where(keep, reason: str) -> Affected:
        return Affected(sorted(task.id for task in tasks if keep(task)), reason)

    if parts[:2] == ("tasks", "templates"):
        if len(parts) == 4 and name.endswith(".yaml.j2"):
            template = f"{parts[2]}/{name[:-len('.yaml.j2')]}"
            return where(lambda task: task.template == template, f"the tasks of template {template}")
        if len(parts) == 4 and name.endswith(".cases.yml"):
            ids = _case_table_ids(root / relative)
            return where(lambda task: task.id in ids, f"the tasks of the rows of {relative}")
        return Affected(everything, "shared template text: every task")
    if parts[:1] == ("tasks",) and len(parts) == 3 and name.endswith(".yaml"):
        return where(lambda task: task.id == relative.stem, "the task file's own task")
    if parts[:1] == ("tasks",):
        return Affected(everything, "the desk's guidance and the tasks' shared files: every task")
    if parts[:3] == ("harness", "agents", "reference") and len(parts) == 5 and name.endswith(".py"):
        template = f"{parts[3]}/{relative.stem}"
        return where(lambda task: task.template == template, f"the tasks whose reference solution is {template}")
    if parts[:1] == ("envs",) and len(parts) > 2 and parts[1] in APP_NAMES:
        app = parts[1]
        payers = _portal_payers(app)
        served = f" or have a coverage with a payer it serves ({', '.join(sorted(payers))})" if payers else ""
        return where(lambda task: app in task_apps(task) or bool(
            task.case and payers & {coverage.payer for coverage in task.case.coverages}),
            f"the tasks that start in, check or guard {app}{served}")
    return Affected(everything, f"{relative} is shared by every task (world, app kit, schema, verifiers or harness)")
