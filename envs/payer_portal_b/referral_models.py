"""Portal B's HMO referrals: same declarative base as models.py."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.payer_portal_b.models import Base


class Referral(Base):
    """A PCP's referral of an HMO subscriber to a specialist: `visits` office visits from
    `start_date` through `end_date` with the specialist (`specialist_npi`, `specialty`).
    `source` is "Portal" (submitted here) or "On file" (approved before the episode)."""

    __tablename__ = "referrals"

    referral_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32), index=True)
    patient_name: Mapped[str] = mapped_column(String(128))
    referring_npi: Mapped[str] = mapped_column(String(10))
    specialist_npi: Mapped[str] = mapped_column(String(10))
    specialty: Mapped[str] = mapped_column(String(64))
    diagnosis_codes: Mapped[list] = mapped_column(JSON)
    visits: Mapped[int] = mapped_column(Integer)
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(16))
    submitted_by: Mapped[str | None] = mapped_column(String(64))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
