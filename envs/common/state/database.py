"""Per-app SQLite database: kit tables + app tables, one live file that reset can replace.

Each app declares its own `DeclarativeBase`; the kit's own tables (staff, audit log,
bench state) live on `KitBase` and are created in every app's database beside them.

Episode isolation: every request is pinned, when it begins, to the live database of that
moment (a lease). A reset makes a new file live; requests still in flight keep reading
and writing the old file, which is deleted only when its last lease is released. So a
request that began before a reset writes nothing into the new episode, and no file is
ever deleted under an open connection (or re-created by one: files open in `mode=rw`).
"""
from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from flask import g
from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker


class KitBase(DeclarativeBase):
    """Declarative base of the tables every app shares (staff, audit, bench state)."""


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # Benchmark state is disposable (reset copies a template), so trade durability for speed.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute("PRAGMA foreign_keys=ON")
    # Waitress serves several requests at once: wait for a writer instead of failing.
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_engine(path: Path, *, create: bool = False) -> Engine:
    """A SQLAlchemy engine on one SQLite file, usable from waitress' worker threads.

    Without `create`, the file must exist: a connection opened after the file was
    removed fails instead of silently starting an empty database.
    """
    mode = "rwc" if create else "rw"
    url = f"sqlite:///file:{quote(str(path))}?mode={mode}&uri=true"
    engine = create_engine(url, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def remove_database_file(path: Path) -> None:
    """Delete a SQLite file with its WAL journal and shared-memory index."""
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        candidate.unlink(missing_ok=True)


class LiveDatabase:
    """One episode's database file, its engine, and the requests leasing it."""

    def __init__(self, path: Path, generation: int):
        self.path, self.generation = path, generation
        self.engine = make_engine(path)
        self.factory = sessionmaker(bind=self.engine, expire_on_commit=False)
        self.leases = 0
        self.retired = False

    def backup(self, target: Path) -> None:
        """Write a consistent copy of this database to the new file `target`: one file, no
        journal beside it, so it can be copied like a template.

        SQLite's backup API, not a file copy: committed pages may still be in the WAL
        journal, and a file copied while a request writes can be torn. The copy is one
        backup step, so it reads one snapshot of the database.
        """
        with self.engine.connect() as connection:
            destination = sqlite3.connect(target)
            try:
                connection.connection.driver_connection.backup(destination)
            finally:
                destination.close()

    def close(self) -> None:
        self.engine.dispose()
        remove_database_file(self.path)


@dataclass(frozen=True)
class Checkpoint:
    """A saved episode state: a copy of a live database (see `LiveDatabase.backup`), and the
    generation it had."""

    path: Path
    generation: int


class UnknownCheckpoint(LookupError):
    """A restore named a checkpoint the app does not hold."""


class Database:
    """Holds the live database; `swap` makes a fresh file live without disturbing requests
    that are still working on the previous one."""

    def __init__(self, metadatas: tuple[MetaData, ...]):
        self.metadatas = metadatas
        self._lock = threading.Lock()
        self._live: LiveDatabase | None = None

    def tables(self):
        """All tables of the app (kit first, then app), in a stable order."""
        for metadata in self.metadatas:
            yield from metadata.sorted_tables

    def create_all(self, engine: Engine) -> None:
        for metadata in self.metadatas:
            metadata.create_all(engine)

    @property
    def path(self) -> Path | None:
        """The live database file."""
        return self._live.path if self._live is not None else None

    @property
    def generation(self) -> int:
        """Which reset made the live database (0 before the first)."""
        return self._live.generation if self._live is not None else 0

    def swap(self, path: Path, generation: int) -> None:
        """Make `path` the live database; the previous file goes when its last lease does."""
        live = LiveDatabase(path, generation)
        close_old = False
        with self._lock:
            old, self._live = self._live, live
            if old is not None:
                old.retired = True
                close_old = old.leases == 0
        if close_old:
            old.close()

    def acquire(self) -> LiveDatabase:
        """Lease the live database (pair with `release`)."""
        with self._lock:
            if self._live is None:
                raise RuntimeError("database not opened: call swap() first")
            self._live.leases += 1
            return self._live

    def release(self, live: LiveDatabase) -> None:
        with self._lock:
            live.leases -= 1
            close = live.retired and live.leases == 0
        if close:
            live.close()

    def new_session(self) -> Session:
        """A session on the live database, for code outside a request (seeding, tests)."""
        with self._lock:
            if self._live is None:
                raise RuntimeError("database not opened: call swap() first")
            return self._live.factory()

    # ---- the request's pinned database --------------------------------------------------
    def pin_request(self) -> None:
        """before_request hook: the request works on the database live at its start."""
        if "db_live" not in g:
            g.db_live = self.acquire()

    def pinned(self) -> LiveDatabase:
        """The database of the current request (pinned on first use)."""
        self.pin_request()
        return g.db_live

    def request_session(self) -> Session:
        """The session of the current request, opened on first use, closed at teardown."""
        if "db_session" not in g:
            g.db_session = self.pinned().factory()
        return g.db_session

    def request_side_session(self) -> Session:
        """A second session on the request's database (e.g. an audit row that must survive
        the view's rollback); the caller closes it."""
        return self.pinned().factory()

    def end_request(self, _exc=None) -> None:
        """teardown hook: close the request's session, then give back its lease."""
        session = g.pop("db_session", None)
        if session is not None:
            session.close()
        live = g.pop("db_live", None)
        if live is not None:
            self.release(live)
