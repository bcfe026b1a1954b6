"""Per-app SQLite database: kit tables + app tables, one engine that reset can swap.

Each app declares its own `DeclarativeBase`; the kit's own tables (staff, audit log,
bench state) live on `KitBase` and are created in every app's database beside them.
"""
from __future__ import annotations

import threading
from pathlib import Path

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
    cursor.close()


def make_engine(path: Path) -> Engine:
    """A SQLAlchemy engine on one SQLite file, usable from waitress' worker threads."""
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


class Database:
    """Holds the live engine; `swap` points the app at a fresh database file atomically."""

    def __init__(self, metadatas: tuple[MetaData, ...]):
        self.metadatas = metadatas
        self._lock = threading.Lock()
        self._engine: Engine | None = None
        self._factory: sessionmaker | None = None
        self.path: Path | None = None

    def tables(self):
        """All tables of the app (kit first, then app), in a stable order."""
        for metadata in self.metadatas:
            yield from metadata.sorted_tables

    def create_all(self, engine: Engine) -> None:
        for metadata in self.metadatas:
            metadata.create_all(engine)

    def swap(self, path: Path) -> Path | None:
        """Point new sessions at `path`; returns the previous file (caller may delete it)."""
        engine = make_engine(path)
        with self._lock:
            old_engine, old_path = self._engine, self.path
            self._engine, self.path = engine, path
            self._factory = sessionmaker(bind=engine, expire_on_commit=False)
        if old_engine is not None:
            old_engine.dispose()
        return old_path

    def new_session(self) -> Session:
        with self._lock:
            factory = self._factory
        if factory is None:
            raise RuntimeError("database not opened: call swap() first")
        return factory()

    def request_session(self) -> Session:
        """The session of the current request, opened on first use, closed at teardown."""
        if "db_session" not in g:
            g.db_session = self.new_session()
        return g.db_session

    @staticmethod
    def close_request_session(_exc=None) -> None:
        session = g.pop("db_session", None)
        if session is not None:
            session.close()
