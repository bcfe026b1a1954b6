"""Portal B's inpatient cases: admission notifications and their concurrent reviews (same
declarative base as models.py, one metadata, one snapshot)."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.payer_portal_b.models import Base


class InpatientCase(Base):
    """A notified inpatient admission. `approved_days` counts from the admit date; the next
    review is on `next_review_date` (admit date + approved days). Status: "Approved" while the
    member is in hospital, "Discharged" once the discharge is reported (closed). `late`: the
    notification came after the next business day. `source`: "Portal" or "On file"."""

    __tablename__ = "inpatient_cases"

    case_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32), index=True)
    patient_name: Mapped[str] = mapped_column(String(128))
    admitted_at: Mapped[datetime] = mapped_column(DateTime)
    admission_type: Mapped[str] = mapped_column(String(16))
    facility_npi: Mapped[str] = mapped_column(String(10))
    attending_npi: Mapped[str] = mapped_column(String(10))
    admitting_diagnosis: Mapped[str] = mapped_column(String(10))
    clinical_summary: Mapped[str] = mapped_column(Text)
    notified_at: Mapped[datetime] = mapped_column(DateTime)
    late: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(24))
    approved_days: Mapped[int] = mapped_column(Integer)
    next_review_date: Mapped[date | None] = mapped_column(Date)
    discharged_on: Mapped[date | None] = mapped_column(Date)
    disposition: Mapped[str | None] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(16))
    submitted_by: Mapped[str | None] = mapped_column(String(64))


class InpatientReview(Base):
    """One review of an inpatient case: the initial review on notification, a concurrent review
    (a clinical update asking for more days) or a discharge report. `outcome`: "Approved",
    "Pended" (no continued-stay findings stated: no days added) or "Discharge recorded"."""

    __tablename__ = "inpatient_reviews"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_number: Mapped[str] = mapped_column(ForeignKey("inpatient_cases.case_number"), index=True)
    kind: Mapped[str] = mapped_column(String(24))
    review_date: Mapped[date] = mapped_column(Date)
    clinical_update: Mapped[str | None] = mapped_column(Text)
    days_requested: Mapped[int] = mapped_column(Integer, default=0)
    days_approved: Mapped[int] = mapped_column(Integer, default=0)
    # The case's days approved in all once this review was decided.
    total_days_approved: Mapped[int] = mapped_column(Integer, default=0)
    discharged_on: Mapped[date | None] = mapped_column(Date)
    disposition: Mapped[str | None] = mapped_column(String(32))
    outcome: Mapped[str] = mapped_column(String(24))
    next_review_date: Mapped[date | None] = mapped_column(Date)
    submitted_by: Mapped[str | None] = mapped_column(String(64))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
