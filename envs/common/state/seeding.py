"""Template databases: the world, and per task the world + that task's case, built once.

Building an app's database from the world takes seconds; a reset must take
milliseconds. So the seeded database is built once into a template file named by a
hash of everything it is made from (the kit's, the world's and the app's source and
data files); a reset copies that template. A task's template is a copy of the world's
with the task's case records and raw seed rows added (see task_templates).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Date, DateTime, Table
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session
from werkzeug.security import generate_password_hash

import admindesk.schema
from admindesk.envs.common.state.database import Database, make_engine, remove_database_file
from admindesk.envs.common.state.kit_models import StaffUser

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
# The task and case schema shapes a case's rows as much as the world does.
SCHEMA_ROOT = Path(admindesk.schema.__file__).resolve().parent
# Task files live beside the package in a checkout (`tasks/` is data, not code).
DEFAULT_TASKS_DIR = PACKAGE_ROOT.parent / "tasks"
HASHED_SUFFIXES = {".py", ".csv", ".yaml", ".yml", ".json", ".txt"}
# Synthetic logins: a cheap hash keeps template builds and logins fast.
PASSWORD_METHOD = "pbkdf2:sha256:2000"

SeedFunction = Callable[[Session, object], None]


@dataclass(frozen=True)
class WorldSeed:
    """An app's seed in two parts, so a task's case is seeded by the same code as the world.

    `reference` copies what every case shares (payers, plans, clinicians, code sets,
    sequences); `records` copies a world's patients and everything about them, and is
    called again with a small world holding only a case's records. `view` says which
    view of a case the app holds ("chart": the health system's; "payer": enrollment as
    the payers have it); `touches` says whether a case world has anything for the app.
    """

    reference: SeedFunction
    records: SeedFunction
    view: str = "chart"
    touches: Callable[[object], bool] = lambda _world: True

    def __call__(self, session: Session, world) -> None:
        self.reference(session, world)
        session.flush()
        self.records(session, world)


class SeedError(ValueError):
    """A task file's case or seed section cannot be read or does not fit the world or the app's tables."""


def content_hash(app_package: Path, world_seed: int) -> str:
    """Hash of every input of a world template: kit, world, schema and app sources, world seed."""
    digest = hashlib.sha256(f"world-seed={world_seed}".encode())
    # Faker's data, fpdf2's output and SQLAlchemy's DDL change between releases.
    for package in ("faker", "fpdf2", "sqlalchemy"):
        digest.update(f"{package}={importlib.metadata.version(package)}".encode())
    for folder in (PACKAGE_ROOT / "common", PACKAGE_ROOT / "world", SCHEMA_ROOT, app_package):
        for path in sorted(folder.rglob("*")):
            if path.suffix in HASHED_SUFFIXES and "__pycache__" not in path.parts:
                digest.update(f"{folder.name}/{path.relative_to(folder)}".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _coerce(table: Table, row: object) -> dict:
    if not isinstance(row, dict):
        raise SeedError(f"table {table.name!r}: a row must map column names to values, not {row!r}")
    unknown = set(row) - set(table.columns.keys())
    if unknown:
        raise SeedError(f"table {table.name!r} has no column(s) {sorted(unknown)}")
    coerced = {}
    for key, value in row.items():
        column_type = table.columns[key].type
        try:
            if isinstance(value, str) and isinstance(column_type, DateTime):
                value = datetime.fromisoformat(value)
            elif isinstance(value, str) and isinstance(column_type, Date):
                value = date.fromisoformat(value)
        except ValueError as exc:
            raise SeedError(f"table {table.name!r}, column {key!r}: {value!r} is not an ISO date") from exc
        if isinstance(value, datetime) and isinstance(column_type, Date) and not isinstance(column_type, DateTime):
            value = value.date()
        coerced[key] = value
    return coerced


def insert_task_seeds(session: Session, db: Database, sections: list[tuple[str, dict]]) -> None:
    """Insert each task's rows (table name -> list of column dicts) after the world's."""
    tables = {table.name: table for table in db.tables()}
    for task_id, seed in sections:
        try:
            if not isinstance(seed, dict):
                raise SeedError("the seed must map table names to lists of rows")
            for table_name, rows in seed.items():
                if table_name not in tables:
                    raise SeedError(f"unknown table {table_name!r}")
                if not isinstance(rows, list):
                    raise SeedError(f"table {table_name!r}: rows must be a list")
                session.execute(tables[table_name].insert(), [_coerce(tables[table_name], r) for r in rows])
        except SeedError as exc:
            raise SeedError(f"task {task_id}: {exc}") from exc
        except SQLAlchemyError as exc:
            # Duplicate keys, missing required columns, broken references: name the task.
            raise SeedError(f"task {task_id}: {getattr(exc, 'orig', None) or exc}") from exc


def seed_staff(session: Session, accounts: Iterable) -> None:
    for account in accounts:
        session.add(StaffUser(username=account.username, display_name=account.display_name,
                              role=account.role,
                              password_hash=generate_password_hash(account.password, PASSWORD_METHOD)))


def build_template(db: Database, target: Path, populate: Callable[[Session], None],
                   start_from: Path | None = None) -> Path:
    """Create `target` (if absent) by populating an empty database, or a copy of
    `start_from`; atomic across processes: a failed build leaves no file behind."""
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(dir=target.parent, suffix=".building")
    os.close(handle)
    tmp_path = Path(tmp_name)
    if start_from is not None:
        shutil.copyfile(start_from, tmp_path)
    engine = make_engine(tmp_path, create=True)
    try:
        db.create_all(engine)
        with Session(engine) as session:
            populate(session)
            session.commit()
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except BaseException:
        engine.dispose()
        remove_database_file(tmp_path)
        raise
    engine.dispose()
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp_path}{suffix}").unlink(missing_ok=True)
    os.replace(tmp_path, target)  # a concurrent builder's identical file may win: harmless
    return target


def copy_template(template: Path, live_dir: Path, owner: str, generation: int) -> Path:
    """A fresh working copy of the template for one episode.

    `owner` must be unique among the apps sharing `live_dir`: a SQLite file's `-wal`
    journal is found by name, so a copy landing on another live database's name would
    replay that database's journal.
    """
    live_dir.mkdir(parents=True, exist_ok=True)
    path = live_dir / f"{owner}-{generation}.sqlite"
    remove_database_file(path)
    shutil.copyfile(template, path)
    return path

