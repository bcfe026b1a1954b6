"""Portal B's corrected claims (resubmissions): same declarative base as models.py."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, Float, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from admindesk.envs.payer_portal_b.models import Base


class CorrectedClaim(Base):
    """A replacement (frequency code 7) or void (8) of an adjudicated claim, as Keystone processed it.

    `lines` holds the corrected service lines ({line_no, code, modifiers, units, charge});
    a denial names its CAS group and CARC (`group_code`, `carc`: OA-22 another payer is
    primary, CO-29 filing limit, CO-197 no authorization). `status` is "Processed",
    "Processed as secondary", "Voided" or "Denied".
    """

    __tablename__ = "corrected_claims"

    corrected_claim_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    original_claim_number: Mapped[str] = mapped_column(String(20))
    frequency_code: Mapped[str] = mapped_column(String(1))
    subscriber_id: Mapped[str] = mapped_column(String(32))
    service_date: Mapped[date] = mapped_column(Date)
    authorization_number: Mapped[str | None] = mapped_column(String(20))
    diagnosis_codes: Mapped[list] = mapped_column(JSON)
    lines: Mapped[list] = mapped_column(JSON)
    correction_reason: Mapped[str] = mapped_column(Text)
    billed_amount: Mapped[float] = mapped_column(Float)
    # Coordination of benefits: the primary payer's adjudication (its EOB PDF is an attachment
    # with owner_type "corrected_claim").
    primary_payer: Mapped[str | None] = mapped_column(String(128))
    primary_paid_amount: Mapped[float | None] = mapped_column(Float)
    # Proof of timely filing: the clearinghouse's acceptance report.
    clearinghouse_report_number: Mapped[str | None] = mapped_column(String(32))
    clearinghouse_accepted_on: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(24))
    group_code: Mapped[str | None] = mapped_column(String(4))
    carc: Mapped[str | None] = mapped_column(String(8))
    decision_reason: Mapped[str] = mapped_column(Text)
    allowed_amount: Mapped[float] = mapped_column(Float, default=0.0)
    paid_amount: Mapped[float] = mapped_column(Float, default=0.0)
    submitted_by: Mapped[str] = mapped_column(String(64))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
