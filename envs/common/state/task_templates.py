"""Per-task template databases: the world's template + one task's case and raw seed rows.

A task's case exists only in that task's episodes. The first reset naming a task finds
its file under the app's tasks folder, turns its `case:` into records with the world's
generators, inserts them with the app's own record seeder (the code that seeds the
background world, so every app agrees), adds the task's raw `seed:` rows, and keeps the
result as a template named by a hash of the world template and the task's content. Later
resets copy that file. An app the task does not touch reuses the world's template.
"""
from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

from pydantic import ValidationError
from sqlalchemy.orm import Session

from admindesk.envs.common.interruptions import state_row as interruption_state
from admindesk.envs.common.state.database import Database
from admindesk.envs.common.state.seeding import SeedError, WorldSeed, build_template, insert_task_seeds
from admindesk.schema.case_model import Case
from admindesk.schema.task_model import INTERRUPTIONS_SECTION, TaskFileError, describe_errors, read_task_yaml


class UnknownTask(LookupError):
    """No task file under the tasks folder has the requested id."""


# Templates built in this process, by (world template, task file, its content hash): the lanes
# of an app process (one app per episode in flight, envs/common/serve.py) share them, so a
# task's case is built once per process, not once per lane.
_BUILT: dict[tuple[Path, Path, str], Path] = {}
_BUILDING = threading.Lock()


class TaskTemplates:
    """Finds task files by id and builds (once) each task's template for one app."""

    def __init__(self, app_name: str, seed, db: Database, world_template: Path, tasks_dir: Path | None,
                 world_seed: int):
        self.app_name, self.seed, self.db = app_name, seed, db
        self.world_template, self.tasks_dir, self.world_seed = world_template, tasks_dir, world_seed
        self._paths: dict[str, Path] = {}
        self._unreadable: list[str] = []
        self._lock = threading.Lock()

    def template_for(self, task_id: str) -> Path:
        """The template of task `task_id`: built on first use, then taken from the cache."""
        with self._lock:
            path = self._paths.get(task_id)
            if path is None or not path.is_file():
                self._paths = self._index()
                path = self._paths.get(task_id)
            if path is None:
                unreadable = "".join(f"; {error}" for error in self._unreadable)
                raise UnknownTask(f"unknown task {task_id!r}: no task file under {self.tasks_dir} has this id"
                                  + unreadable)
            raw = path.read_bytes()
        key = (self.world_template, path, hashlib.sha256(raw).hexdigest())
        with _BUILDING:
            built = _BUILT.get(key)
            if built is None or not built.exists():
                built = _BUILT[key] = self._build(task_id, path, key[2])
            return built

    def _index(self) -> dict[str, Path]:
        self._unreadable = []
        if self.tasks_dir is None or not self.tasks_dir.is_dir():
            return {}
        paths: dict[str, Path] = {}
        for path in sorted(self.tasks_dir.rglob("*.yaml")):
            try:
                task_id = read_task_yaml(path).get("id", path.stem)
            except TaskFileError as exc:
                # Its id cannot be read: named when a task is not found, as it may be that one.
                self._unreadable.append(str(exc))
                continue
            paths.setdefault(str(task_id), path)
        return paths

    def _build(self, task_id: str, path: Path, content: str) -> Path:
        try:
            data = read_task_yaml(path)
        except TaskFileError as exc:
            raise SeedError(str(exc)) from exc
        case = _validated_case(path, data.get("case"))
        rows = _seed_rows(path, data.get("seed"), self.app_name)
        interruptions = _interruptions(path, data, self.app_name)
        digest = hashlib.sha256(f"{self.world_template.name}|{task_id}|{content}".encode()).hexdigest()[:16]
        target = self.world_template.with_name(f"{self.world_template.stem}-task-{digest}.sqlite")
        if target.is_file():
            return target  # built by another process or an earlier run: the case need not be
        records = None
        if case is not None:
            records = self._case_world(path, task_id, case)
        if records is None and not rows and not interruptions:
            return self.world_template

        def populate(session: Session) -> None:
            if records is not None:
                self.seed.records(session, records)
                session.flush()
            insert_task_seeds(session, self.db, [(f"{task_id} ({path})", rows)] if rows else [])
            if interruptions:
                session.add(interruption_state(interruptions))

        return build_template(self.db, target, populate, start_from=self.world_template)

    def _case_world(self, path: Path, task_id: str, case: Case):
        """The case's world as this app sees it, or None when the case has nothing for it."""
        from admindesk.envs.world import build_world  # heavy (Faker): only when a case is built
        from admindesk.envs.world.cases import CaseError, build_case

        try:
            records = build_case(build_world(self.world_seed), task_id, case)
        except CaseError as exc:
            raise SeedError(f"{path}: {exc}") from exc
        if not isinstance(self.seed, WorldSeed):
            raise SeedError(f"{path}: the {self.app_name} app cannot hold a case (its seed has no records part)")
        world = records.view(self.seed.view)
        return world if self.seed.touches(world) else None


def _validated_case(path: Path, raw) -> Case | None:
    if raw is None:
        return None
    try:
        return Case.model_validate(raw)
    except ValidationError as exc:
        raise SeedError(f"{path}: {describe_errors(exc, 'case')}") from exc


def _interruptions(path: Path, data: dict, app_name: str) -> list[str]:
    """The interruptions the task turns on in this app, checked like the task model does."""
    try:
        section = INTERRUPTIONS_SECTION.validate_python(data.get("interruptions") or {})
    except ValidationError as exc:
        raise SeedError(f"{path}: {describe_errors(exc, 'interruptions')}") from exc
    return section.get(app_name, [])


def _seed_rows(path: Path, raw, app_name: str) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(tables, dict) for tables in raw.values()):
        raise SeedError(f"{path}: `seed` maps app names to tables of rows")
    return raw.get(app_name) or {}



def rows_added(db: Database, task_template: Path, world_template: Path) -> dict[str, list[dict]]:
    """Rows of `task_template` that the world's template does not hold, by table, in key order.

    This is exactly what a reset for the task adds to the app (its case and raw seed rows).
    """
    added: dict[str, list[dict]] = {}
    if task_template == world_template:
        return added
    connection = sqlite3.connect(f"file:{quote(str(task_template))}?mode=ro", uri=True)
    try:
        connection.execute("ATTACH DATABASE ? AS world", (f"file:{quote(str(world_template))}?mode=ro",))
        for table in db.tables():
            columns = ", ".join(f'"{c.name}"' for c in table.columns)
            order = ", ".join(f'"{c.name}"' for c in table.primary_key.columns) or "1"
            cursor = connection.execute(f'SELECT {columns} FROM main."{table.name}" EXCEPT '
                                        f'SELECT {columns} FROM world."{table.name}" ORDER BY {order}')
            rows = [dict(zip((c.name for c in table.columns), row)) for row in cursor]
            if rows:
                added[table.name] = rows
    finally:
        connection.close()
    return added
