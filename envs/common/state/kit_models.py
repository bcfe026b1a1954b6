"""Tables every app has: staff accounts, the audit trail, the bench state (clock) and number sequences."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.common.state.database import KitBase


class StaffUser(KitBase):
    """A seeded staff login of this app."""

    __tablename__ = "staff_users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    # Hashes carry random salts, so they are left out of snapshots to keep them byte-stable.
    password_hash: Mapped[str] = mapped_column(String(256), info={"snapshot": False})
    display_name: Mapped[str] = mapped_column(String(128))
    role: Mapped[str] = mapped_column(String(64))


class AuditEvent(KitBase):
    """One authenticated page view or action, like a real EHR audit trail."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str | None] = mapped_column(String(64))
    method: Mapped[str] = mapped_column(String(8))
    endpoint: Mapped[str | None] = mapped_column(String(128))
    path: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(String(64))
    record_type: Mapped[str | None] = mapped_column(String(64))
    record_id: Mapped[str | None] = mapped_column(String(64))
    tab: Mapped[str | None] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    detail: Mapped[dict | None] = mapped_column(JSON)


class BenchState(KitBase):
    """Key/value state the bench API owns (the frozen clock)."""

    __tablename__ = "bench_state"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class NumberSequence(KitBase):
    """The next value of one named counter behind the numbers an app issues (see `sequences`)."""

    __tablename__ = "number_sequences"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    next_value: Mapped[int] = mapped_column(Integer)
