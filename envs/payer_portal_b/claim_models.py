"""Portal B's corrected claims (resubmissions), overpayment recoveries and benefit accumulators:
same declarative base as models.py."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

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


class OverpaymentRecovery(Base):
    """Keystone's recovery of a payment it found made in error (a post-payment review).

    The overpayment notice (`letter_id`, in Correspondence) names the claim and, for a duplicate
    payment, the claim it repeats (`first_claim_number`). Unless the office disputes by
    `dispute_by`, Keystone takes `amount` back from its payments on or after `offset_on`.
    `status`: "Pending offset", or "On hold - disputed" while the dispute (`dispute_appeal_id`,
    an appeal with reason "Overpayment recovery") is in review.
    """

    __tablename__ = "overpayment_recoveries"

    recovery_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    claim_number: Mapped[str] = mapped_column(String(20), index=True)
    subscriber_id: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(64))
    first_claim_number: Mapped[str | None] = mapped_column(String(20))
    amount: Mapped[float] = mapped_column(Float)
    letter_id: Mapped[str] = mapped_column(String(20))
    notice_on: Mapped[date] = mapped_column(Date)
    dispute_by: Mapped[date] = mapped_column(Date)
    offset_on: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(24))
    dispute_appeal_id: Mapped[str | None] = mapped_column(String(20))


class BenefitAccumulator(Base):
    """A member's visit limit for one benefit and benefit period, as Keystone counts it: the
    visits it applied (`AccumulatorVisit`) against `visits_allowed`."""

    __tablename__ = "benefit_accumulators"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32), index=True)
    benefit: Mapped[str] = mapped_column(String(96))
    period_start: Mapped[date] = mapped_column(Date)
    period_end: Mapped[date] = mapped_column(Date)
    visits_allowed: Mapped[int] = mapped_column(Integer)
    # "Hard": visits past the limit are not covered; "Soft": they can be precertified (KM-REHAB-801).
    limit_type: Mapped[str] = mapped_column(String(8), default="Hard")

    visits: Mapped[list[AccumulatorVisit]] = relationship(order_by="AccumulatorVisit.service_date.desc()",
                                                          viewonly=True)


class AccumulatorVisit(Base):
    """One visit applied to an accumulator: date of service, the code it applied, the rendering provider."""

    __tablename__ = "accumulator_visits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    accumulator_id: Mapped[int] = mapped_column(ForeignKey("benefit_accumulators.id"), index=True)
    service_date: Mapped[date] = mapped_column(Date)
    code: Mapped[str] = mapped_column(String(8))
    provider: Mapped[str] = mapped_column(String(128))
