"""History rows of the EHR: each authorization an order had over time, and every
coverage verification or order-of-benefits change.

One row per event, never edited afterwards, so a check can read what happened and in
which order (`authorization_history[?order_id=='ORD-1'].event`).
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.ehr_web.models import Base


class AuthorizationEvent(Base):
    """One authorization row of an order's history: what the payer decided or changed.

    The columns hold the authorization as it stood after the event (status, number,
    approved and used units, dates), so the history reads like the payer's letters.
    """

    __tablename__ = "authorization_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), index=True)
    event: Mapped[str] = mapped_column(String(24))  # see vocab.AUTH_EVENTS
    status: Mapped[str] = mapped_column(String(32))
    payer_id: Mapped[str | None] = mapped_column(ForeignKey("payers.id"))
    auth_number: Mapped[str | None] = mapped_column(String(20))
    reference_number: Mapped[str | None] = mapped_column(String(20))
    approved_units: Mapped[int | None] = mapped_column(Integer)
    approved_code: Mapped[str | None] = mapped_column(String(8))
    units_used: Mapped[int] = mapped_column(Integer, default=0)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    recorded_at: Mapped[datetime] = mapped_column(DateTime)
    recorded_by: Mapped[str] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(Text, default="")

    @property
    def units_remaining(self) -> int | None:
        return None if self.approved_units is None else max(self.approved_units - self.units_used, 0)


class CoverageEvent(Base):
    """A verification of a coverage, a change of its rank (coordination of benefits), or a
    correction of one of its fields to the payer's enrollment."""

    __tablename__ = "coverage_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    coverage_id: Mapped[str] = mapped_column(ForeignKey("coverages.id"), index=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    # "Verification" | "Rank change" | coverage_changes.CORRECTED's "Member ID change"...
    event: Mapped[str] = mapped_column(String(24))
    old_value: Mapped[str | None] = mapped_column(String(128))
    new_value: Mapped[str] = mapped_column(String(128))
    reference: Mapped[str | None] = mapped_column(String(20))
    note: Mapped[str] = mapped_column(Text, default="")
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str] = mapped_column(String(64))
