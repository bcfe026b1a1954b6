"""Tables of the follow-up lifecycles: claim timelines, corrected claims, changes to an
approved authorization, peer-to-peer calls and pre-service appeals.

Every outcome is a row with a status a check can read; letters go to `letters`.
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from admindesk.envs.payer_portal_a.models import Base, PaRequest


class ClaimEvent(Base):
    """One step of a claim's timeline after its original adjudication (appeal filed,
    reprocessed, corrected claim received, voided...)."""

    __tablename__ = "claim_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(String(24), index=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(Text)
    username: Mapped[str] = mapped_column(String(64))


class CorrectedClaim(Base):
    """A corrected (frequency 7, replacement) or void (frequency 8) claim for an original.

    Status: Accepted (replacement in process), Denied (e.g. OA-22 when another coverage
    is primary and no primary EOB is attached), Voided.
    """

    __tablename__ = "corrected_claims"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    corrected_claim_number: Mapped[str] = mapped_column(String(24), unique=True)
    original_claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), index=True)
    payer_id: Mapped[str] = mapped_column(String(16))
    member_id: Mapped[str] = mapped_column(String(32))
    frequency_code: Mapped[str] = mapped_column(String(1))  # 7 replacement, 8 void
    auth_number: Mapped[str | None] = mapped_column(String(24))
    correction_reason: Mapped[str] = mapped_column(Text)
    primary_paid_amount: Mapped[float | None] = mapped_column(Float)
    primary_eob_file: Mapped[str | None] = mapped_column(String(160))
    primary_eob_sha256: Mapped[str | None] = mapped_column(String(64))
    total_charge: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(24))
    status_reason: Mapped[str] = mapped_column(Text)
    denial_group: Mapped[str | None] = mapped_column(String(2))
    denial_carc: Mapped[str | None] = mapped_column(String(8))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
    submitted_by: Mapped[str] = mapped_column(String(64))
    lines: Mapped[list[CorrectedClaimLine]] = relationship(
        order_by="CorrectedClaimLine.line_no", cascade="all, delete-orphan")


class CorrectedClaimLine(Base):
    """A service line of a corrected claim: code, modifiers, units, charge, diagnoses."""

    __tablename__ = "corrected_claim_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    corrected_claim_id: Mapped[int] = mapped_column(ForeignKey("corrected_claims.id"))
    line_no: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    modifiers: Mapped[list] = mapped_column(JSON)
    units: Mapped[int] = mapped_column(Integer)
    charge: Mapped[float] = mapped_column(Float)
    diagnosis_codes: Mapped[list] = mapped_column(JSON)


class AuthChange(Base):
    """A change to an approved authorization line: Extension (new end date), Date change
    (new span) or Units increase. Only approved changes are stored (refusals write nothing)."""

    __tablename__ = "auth_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    change_number: Mapped[str] = mapped_column(String(24), unique=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("pa_requests.id"), index=True)
    case_number: Mapped[str] = mapped_column(String(24))
    auth_number: Mapped[str] = mapped_column(String(24))
    line_no: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    old_start: Mapped[date] = mapped_column(Date)
    old_end: Mapped[date] = mapped_column(Date)
    old_units: Mapped[int] = mapped_column(Integer)
    new_start: Mapped[date] = mapped_column(Date)
    new_end: Mapped[date] = mapped_column(Date)
    new_units: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    requested_at: Mapped[datetime] = mapped_column(DateTime)
    requested_by: Mapped[str] = mapped_column(String(64))


class PeerToPeer(Base):
    """A peer-to-peer discussion of a denied request.

    Status: Slots Offered (the payer proposed times), Scheduled (a slot chosen and a
    reviewer assigned), Completed (with `outcome` Overturned / Upheld, for cases that
    carry one).
    """

    __tablename__ = "peer_to_peer"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(String(24), unique=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("pa_requests.id"), index=True)
    case_number: Mapped[str] = mapped_column(String(24))
    physician_name: Mapped[str] = mapped_column(String(120))
    callback_phone: Mapped[str] = mapped_column(String(16))
    offered_slots: Mapped[list] = mapped_column(JSON)  # ISO datetimes
    scheduled_at: Mapped[datetime | None] = mapped_column(DateTime)
    reviewer_name: Mapped[str | None] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[str | None] = mapped_column(String(16))
    outcome_note: Mapped[str | None] = mapped_column(Text)
    requested_at: Mapped[datetime] = mapped_column(DateTime)
    requested_by: Mapped[str] = mapped_column(String(64))
    request: Mapped[PaRequest] = relationship()


class AuthAppeal(Base):
    """A pre-service appeal of a denied request (the service has not happened yet).

    Status "In Review" with `decision_due_at` (72 h expedited, 30 days standard), then
    "Decided" with `decision` Upheld / Overturned (see preservice_decisions.py for when).
    """

    __tablename__ = "auth_appeals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(String(24), unique=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("pa_requests.id"), index=True)
    case_number: Mapped[str] = mapped_column(String(24))
    urgency: Mapped[str] = mapped_column(String(16))
    argument: Mapped[str] = mapped_column(Text)
    contact_name: Mapped[str] = mapped_column(String(80))
    contact_phone: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    decision: Mapped[str | None] = mapped_column(String(24))
    decision_reason: Mapped[str | None] = mapped_column(Text)
    decision_due_at: Mapped[datetime] = mapped_column(DateTime)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime)
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
    submitted_by: Mapped[str] = mapped_column(String(64))
    request: Mapped[PaRequest] = relationship()
