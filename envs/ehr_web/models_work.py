"""Billing records and the work done on them: claims with their lines, adjustments and
remittances; work-queue items with their history; notes."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from admindesk.envs.ehr_web.models import Base, Order, Patient, Payer, Supplier


# ---- billing --------------------------------------------------------------------------
class Claim(Base):
    """A claim as the payer adjudicated it, or a new claim the desk billed (status Submitted)."""

    __tablename__ = "claims"

    claim_number: Mapped[str] = mapped_column(String(24), primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    coverage_id: Mapped[str | None] = mapped_column(ForeignKey("coverages.id"))
    member_id: Mapped[str] = mapped_column(String(32))
    service_date: Mapped[date] = mapped_column(Date)
    billing_npi: Mapped[str] = mapped_column(String(10))
    rendering_npi: Mapped[str] = mapped_column(String(10))
    facility_id: Mapped[str] = mapped_column(ForeignKey("facilities.id"))
    submitted_on: Mapped[date] = mapped_column(Date)
    total_charge: Mapped[float] = mapped_column(Float)
    paid_amount: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(24))
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"))
    auth_number: Mapped[str | None] = mapped_column(String(24))
    # A new claim the desk billed to another payer after a CO-109 denial: the denied claim it re-bills.
    billed_from: Mapped[str | None] = mapped_column(String(24))

    payer: Mapped[Payer] = relationship(viewonly=True)
    lines: Mapped[list[ClaimLine]] = relationship(order_by="ClaimLine.line_no", viewonly=True)
    remittance: Mapped[Remittance | None] = relationship(viewonly=True)
    transfer: Mapped[BalanceTransfer | None] = relationship(
        primaryjoin="Claim.claim_number == foreign(BalanceTransfer.claim_number)", uselist=False, viewonly=True)
    submissions: Mapped[list[ClaimSubmission]] = relationship(order_by="ClaimSubmission.transmitted_on",
                                                              viewonly=True)
    resubmission: Mapped[ClaimResubmission | None] = relationship(
        primaryjoin="Claim.claim_number == foreign(ClaimResubmission.claim_number)", uselist=False, viewonly=True)

    @property
    def balance(self) -> float:
        """What is still owed on the claim (charges less what the payer paid)."""
        return round(self.total_charge - self.paid_amount, 2)


class ClaimLine(Base):
    """A service line of a claim."""

    __tablename__ = "claim_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    modifiers: Mapped[str] = mapped_column(String(32))
    units: Mapped[int] = mapped_column(Integer)
    charge: Mapped[float] = mapped_column(Float)
    diagnosis_codes: Mapped[str] = mapped_column(String(128))
    paid: Mapped[float] = mapped_column(Float)

    adjustments: Mapped[list[ClaimAdjustment]] = relationship(
        primaryjoin="and_(ClaimLine.claim_number == foreign(ClaimAdjustment.claim_number), "
                    "ClaimLine.line_no == foreign(ClaimAdjustment.line_no))",
        order_by="ClaimAdjustment.id", viewonly=True)


class ClaimAdjustment(Base):
    """A CAS adjustment on a claim line: group code, CARC, optional RARC, amount."""

    __tablename__ = "claim_adjustments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    group_code: Mapped[str] = mapped_column(String(2))
    carc_code: Mapped[str] = mapped_column(String(8))
    rarc_code: Mapped[str | None] = mapped_column(String(8))
    amount: Mapped[float] = mapped_column(Float)


class ClaimSubmission(Base):
    """One transmission of the claim through the clearinghouse: the batch, the clearinghouse's file
    acknowledgement (999), the payer's claim acknowledgement (277CA, Accepted with its claim control
    number or Rejected with the status) and the acknowledgement report filed in the chart."""

    __tablename__ = "claim_submissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), index=True)
    transmitted_on: Mapped[date] = mapped_column(Date)
    batch_id: Mapped[str] = mapped_column(String(24))
    clearinghouse_status: Mapped[str] = mapped_column(String(16))
    payer_status: Mapped[str] = mapped_column(String(16))
    payer_control_number: Mapped[str | None] = mapped_column(String(24))
    status_detail: Mapped[str | None] = mapped_column(String(256))
    note: Mapped[str | None] = mapped_column(String(256))
    report_document_id: Mapped[str] = mapped_column(ForeignKey("documents.id"))


class Remittance(Base):
    """The ERA/EOB of one claim."""

    __tablename__ = "remittances"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), unique=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    paid_on: Mapped[date] = mapped_column(Date)
    check_number: Mapped[str] = mapped_column(String(24))
    paid_amount: Mapped[float] = mapped_column(Float)
    patient_responsibility: Mapped[float] = mapped_column(Float)
    appeal_deadline: Mapped[date] = mapped_column(Date)


class BalanceTransfer(Base):
    """A denied claim's unpaid balance transferred to the patient (self-pay) after an
    eligibility denial. One per claim; balance_transfers.py holds the rules."""

    __tablename__ = "balance_transfers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), unique=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    amount: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str] = mapped_column(String(64))


class ClaimResubmission(Base):
    """A claim sent again as an original claim (frequency code 1): unchanged after the payer's claim
    status inquiry found it not on file, or under the member id registration corrected after the
    payer could not identify the patient (CARC 31); claim_rebill.py holds the rules."""

    __tablename__ = "claim_resubmissions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), unique=True)
    frequency_code: Mapped[str] = mapped_column(String(1))
    # The member id the resubmission carried (the claim's, or the corrected registration's).
    member_id: Mapped[str] = mapped_column(String(32))
    resubmitted_on: Mapped[date] = mapped_column(Date)
    filing_deadline: Mapped[date] = mapped_column(Date)
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str] = mapped_column(String(64))


# ---- work queues and notes ------------------------------------------------------------
class WorkItem(Base):
    """An item on the Prior Auth, Denials or DME work queue.

    Queue-specific columns stay empty on the other queues: appeal fields on Denials,
    supplier fields on DME.
    """

    __tablename__ = "work_items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    queue: Mapped[str] = mapped_column(String(16), index=True)  # "Prior Auth", "Denials", "DME"
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"))
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"))
    claim_number: Mapped[str | None] = mapped_column(ForeignKey("claims.claim_number"))
    payer_id: Mapped[str | None] = mapped_column(ForeignKey("payers.id"))
    status: Mapped[str] = mapped_column(String(32))
    priority: Mapped[str] = mapped_column(String(16))
    assignee: Mapped[str | None] = mapped_column(String(64))
    due_date: Mapped[date] = mapped_column(Date)
    follow_up_date: Mapped[date | None] = mapped_column(Date)
    created_on: Mapped[date] = mapped_column(Date)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime)
    updated_by: Mapped[str | None] = mapped_column(String(64))
    # Why a Denials item holds a claim that was not denied ("Low payment": paid below expected).
    review_reason: Mapped[str | None] = mapped_column(String(32))
    appeal_reference: Mapped[str | None] = mapped_column(String(32))
    appeal_submitted_on: Mapped[date | None] = mapped_column(Date)
    supplier_id: Mapped[str | None] = mapped_column(ForeignKey("suppliers.id"))
    supplier_confirmation: Mapped[str | None] = mapped_column(String(32))

    patient: Mapped[Patient] = relationship(viewonly=True)
    order: Mapped[Order | None] = relationship(viewonly=True)
    claim: Mapped[Claim | None] = relationship(viewonly=True)
    payer: Mapped[Payer | None] = relationship(viewonly=True)
    supplier: Mapped[Supplier | None] = relationship(viewonly=True)


class WorkItemEvent(Base):
    """History of a work item: assignment, status and field changes."""

    __tablename__ = "work_item_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    work_item_id: Mapped[int] = mapped_column(ForeignKey("work_items.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    username: Mapped[str] = mapped_column(String(64))
    change: Mapped[str] = mapped_column(Text)


class Note(Base):
    """A note on a patient, order, claim or work item (order notes are "comments")."""

    __tablename__ = "notes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    subject_type: Mapped[str] = mapped_column(String(16))  # patient | order | claim | work_item
    subject_id: Mapped[str] = mapped_column(String(24))
    author: Mapped[str] = mapped_column(String(64))
    author_name: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    text: Mapped[str] = mapped_column(Text)
