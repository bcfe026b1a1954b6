"""Tables of payer portal A: what a multi-payer clearinghouse portal holds.

Reference data (payers, plans, members, provider directory, code sets, claims and
remittances) is copied from the world; transactions (eligibility checks, auth lookups,
prior-auth requests, appeals, letters) are written by the coordinator's work.
Codes, ids and statuses are plain strings so snapshot queries stay simple.
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from admindesk.envs.common.code_sets import declare_code_sets
from admindesk.envs.common.documents.stored_files import StoredFileColumns


class Base(DeclarativeBase):
    """Declarative base of portal A's own tables."""


# ---- reference data ---------------------------------------------------------------
class Payer(Base):
    """A health plan company served through this portal."""

    __tablename__ = "payers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    payer_code: Mapped[str] = mapped_column(String(16))
    phone: Mapped[str] = mapped_column(String(16))
    pa_fax: Mapped[str] = mapped_column(String(16))
    appeals_fax: Mapped[str] = mapped_column(String(16))
    timely_appeal_days: Mapped[int] = mapped_column(Integer)


class Plan(Base):
    """A benefit plan of a payer."""

    __tablename__ = "plans"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    name: Mapped[str] = mapped_column(String(128))
    product: Mapped[str] = mapped_column(String(64))
    payer: Mapped[Payer] = relationship()


class PlanBenefit(Base):
    """One line of a plan's benefit summary (in-network cost share and auth hint)."""

    __tablename__ = "plan_benefits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    plan_id: Mapped[str] = mapped_column(ForeignKey("plans.id"))
    service_type: Mapped[str] = mapped_column(String(64))
    copay: Mapped[float | None] = mapped_column(Float)
    coinsurance_percent: Mapped[int | None] = mapped_column(Integer)
    auth_hint: Mapped[str] = mapped_column(String(160))


class Member(Base):
    """A payer's enrollment record of one patient (one row per coverage)."""

    __tablename__ = "members"

    coverage_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    member_id: Mapped[str] = mapped_column(String(32), index=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    plan_id: Mapped[str] = mapped_column(ForeignKey("plans.id"))
    first_name: Mapped[str] = mapped_column(String(64))
    last_name: Mapped[str] = mapped_column(String(64))
    dob: Mapped[date] = mapped_column(Date)
    sex: Mapped[str] = mapped_column(String(1))
    group_number: Mapped[str] = mapped_column(String(32))
    subscriber_name: Mapped[str] = mapped_column(String(128))
    relationship_to_subscriber: Mapped[str] = mapped_column(String(16))
    coverage_rank: Mapped[int] = mapped_column(Integer)
    effective: Mapped[date] = mapped_column(Date)
    termination: Mapped[date | None] = mapped_column(Date)
    deductible: Mapped[float] = mapped_column(Float)
    deductible_met: Mapped[float] = mapped_column(Float)
    out_of_pocket_max: Mapped[float] = mapped_column(Float)
    out_of_pocket_met: Mapped[float] = mapped_column(Float)
    plan: Mapped[Plan] = relationship()
    payer: Mapped[Payer] = relationship()

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def active_on(self, day: date) -> bool:
        return self.effective <= day and (self.termination is None or day <= self.termination)


class Provider(Base):
    """The portal's provider directory: clinicians and facilities, by NPI. A facility lists the
    services it performs ("; "-separated, network_access.SERVICE_CODES) and the next appointment it
    reported (`next_available`; unset: network_access.default_next_available)."""

    __tablename__ = "providers"

    npi: Mapped[str] = mapped_column(String(10), primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    entity_type: Mapped[str] = mapped_column(String(16))  # "Individual" or "Organization"
    specialty: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(200))
    zip: Mapped[str] = mapped_column(String(5), default="")
    phone: Mapped[str] = mapped_column(String(16))
    fax: Mapped[str] = mapped_column(String(16))
    services: Mapped[str] = mapped_column(String(200), default="")
    next_available: Mapped[date | None] = mapped_column(Date)


# The public code sets are the kit's (see common/code_sets.py), so that every app holds
# them under the same table names and columns.
DiagnosisCode, ProcedureCode, AdjustmentCode = CODE_SET_MODELS = declare_code_sets(Base)


# ---- eligibility and auth lookups -------------------------------------------------
class NetworkEnrollment(Base):
    """A payer's network record of a clinician enrolled other than by default (see
    envs/common/enrollment.py): application logged, status, participation date in the directory."""

    __tablename__ = "network_enrollments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    npi: Mapped[str] = mapped_column(ForeignKey("providers.npi"), index=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    submitted_on: Mapped[date] = mapped_column(Date)
    received_on: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))
    effective: Mapped[date | None] = mapped_column(Date)
    welcome_letter_on: Mapped[date | None] = mapped_column(Date)


class EligibilityCheck(Base):
    """One eligibility & benefits inquiry and its outcome."""

    __tablename__ = "eligibility_checks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(String(24), unique=True)
    payer_id: Mapped[str] = mapped_column(String(16))
    member_id: Mapped[str] = mapped_column(String(32))
    dob: Mapped[date] = mapped_column(Date)
    service_date: Mapped[date] = mapped_column(Date)
    result: Mapped[str] = mapped_column(String(24))  # Active / Inactive
    coverage_id: Mapped[str | None] = mapped_column(String(32))
    checked_at: Mapped[datetime] = mapped_column(DateTime)
    checked_by: Mapped[str] = mapped_column(String(64))


class AuthLookup(Base):
    """One auth-requirement lookup with the reference number a coordinator documents."""

    __tablename__ = "auth_lookups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(String(24), unique=True)
    payer_id: Mapped[str] = mapped_column(String(16))
    plan_id: Mapped[str] = mapped_column(String(32))
    code: Mapped[str] = mapped_column(String(8))
    place_of_service: Mapped[str] = mapped_column(String(2))
    result: Mapped[str] = mapped_column(String(16))  # Required / Not required
    explanation: Mapped[str] = mapped_column(Text)
    looked_up_at: Mapped[datetime] = mapped_column(DateTime)
    looked_up_by: Mapped[str] = mapped_column(String(64))


# ---- prior authorization -----------------------------------------------------------
class PaRequest(Base):
    """A prior-auth request: a "Draft" while the wizard runs, then a case with a status.

    Statuses: Draft, Approved, Partially Approved (some lines denied), Pended, Denied,
    Not Required, Duplicate (a second submission of a request already on file; never a
    new approval), Withdrawn (cancelled by the office while pending).
    `urgency` (Standard / Expedited) sets `decision_due_at`; an expedited request names the
    physician who attests to the urgency (`expedited_attested_by`) and its clinical reason
    (`expedited_reason`); `retro` marks a request
    for a date of service already past, `emergent` the office's attestation for it.
    """

    __tablename__ = "pa_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_number: Mapped[str | None] = mapped_column(String(24), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="Draft")
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    coverage_id: Mapped[str | None] = mapped_column(String(32))
    member_id: Mapped[str | None] = mapped_column(String(32), index=True)
    member_name: Mapped[str | None] = mapped_column(String(128))
    member_dob: Mapped[date | None] = mapped_column(Date)
    plan_id: Mapped[str | None] = mapped_column(String(32))
    # The request header: who submits (organization and its TIN) and what kind of request.
    organization_npi: Mapped[str | None] = mapped_column(String(10))
    organization_name: Mapped[str | None] = mapped_column(String(160))
    tin: Mapped[str | None] = mapped_column(String(10))
    request_type: Mapped[str | None] = mapped_column(String(16))  # Outpatient / Inpatient / Referral
    service_type: Mapped[str | None] = mapped_column(String(48))
    place_of_service: Mapped[str | None] = mapped_column(String(2))
    requesting_npi: Mapped[str | None] = mapped_column(String(10))
    requesting_name: Mapped[str | None] = mapped_column(String(160))
    servicing_npi: Mapped[str | None] = mapped_column(String(10))
    servicing_name: Mapped[str | None] = mapped_column(String(160))
    contact_name: Mapped[str | None] = mapped_column(String(80))
    contact_phone: Mapped[str | None] = mapped_column(String(16))
    questionnaire: Mapped[str | None] = mapped_column(String(32))
    answers: Mapped[dict | None] = mapped_column(JSON)
    attested: Mapped[bool] = mapped_column(default=False)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime)
    auth_number: Mapped[str | None] = mapped_column(String(24))
    approved_units: Mapped[int | None] = mapped_column(Integer)
    approved_start: Mapped[date | None] = mapped_column(Date)
    approved_end: Mapped[date | None] = mapped_column(Date)
    decision_reason: Mapped[str | None] = mapped_column(Text)
    missing_items: Mapped[list | None] = mapped_column(JSON)
    duplicate_of: Mapped[str | None] = mapped_column(String(24))
    # How the request reached the payer: "Portal", or "Fax" (keyed in by the payer's intake staff).
    source: Mapped[str] = mapped_column(String(16), default="Portal")
    urgency: Mapped[str] = mapped_column(String(16), default="Standard")
    decision_due_at: Mapped[datetime | None] = mapped_column(DateTime)
    expedited_attested_by: Mapped[str | None] = mapped_column(String(80))
    expedited_reason: Mapped[str | None] = mapped_column(Text)
    # An HMO/EPO request for an out-of-network servicing provider: the exception's reason and the
    # in-network providers the office checked (network_access).
    network_exception: Mapped[str | None] = mapped_column(String(80))
    in_network_checked: Mapped[str | None] = mapped_column(Text)
    retro: Mapped[bool] = mapped_column(default=False)
    emergent: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    created_by: Mapped[str] = mapped_column(String(64))
    payer: Mapped[Payer] = relationship()
    lines: Mapped[list[PaServiceLine]] = relationship(
        back_populates="request", order_by="PaServiceLine.line_no", cascade="all, delete-orphan")
    attachments: Mapped[list[PaAttachment]] = relationship(
        back_populates="request", order_by="PaAttachment.id", cascade="all, delete-orphan")
    history: Mapped[list[PaStatusEvent]] = relationship(
        back_populates="request", order_by="PaStatusEvent.id", cascade="all, delete-orphan")

    @property
    def primary_line(self) -> PaServiceLine | None:
        return self.lines[0] if self.lines else None


class PaServiceLine(Base):
    """A requested service: code, units, diagnoses, date span and place of service.

    Each line is decided on its own (`status`, `decision_reason`, approved units and
    span); lines of requests placed on file before line decisions existed leave them empty
    and follow the request.
    """

    __tablename__ = "pa_service_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("pa_requests.id"))
    line_no: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    units: Mapped[int] = mapped_column(Integer)
    diagnosis_codes: Mapped[list] = mapped_column(JSON)
    from_date: Mapped[date] = mapped_column(Date)
    to_date: Mapped[date] = mapped_column(Date)
    place_of_service: Mapped[str] = mapped_column(String(2))
    status: Mapped[str | None] = mapped_column(String(16))
    decision_reason: Mapped[str | None] = mapped_column(Text)
    approved_units: Mapped[int | None] = mapped_column(Integer)
    approved_start: Mapped[date | None] = mapped_column(Date)
    approved_end: Mapped[date | None] = mapped_column(Date)
    request: Mapped[PaRequest] = relationship(back_populates="lines")

    @property
    def decision(self) -> str:
        """This line's status, or the request's for lines decided as a whole."""
        return self.status or self.request.status


class PaAttachment(StoredFileColumns, Base):
    """A PDF attached to a request (at submission or in answer to a pend)."""

    __tablename__ = "pa_attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("pa_requests.id"))
    document_type: Mapped[str] = mapped_column(String(48))
    stage: Mapped[str] = mapped_column(String(24))  # Initial / Additional information / Change request
    uploaded_at: Mapped[datetime] = mapped_column(DateTime)
    uploaded_by: Mapped[str] = mapped_column(String(64))
    request: Mapped[PaRequest] = relationship(back_populates="attachments")


class PaStatusEvent(Base):
    """The case history shown on the case detail (submitted, pended, re-reviewed...)."""

    __tablename__ = "pa_status_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("pa_requests.id"))
    at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text)
    username: Mapped[str] = mapped_column(String(64))
    request: Mapped[PaRequest] = relationship(back_populates="history")


# ---- claims, remittances and appeals -----------------------------------------------
class Claim(Base):
    """A claim as the payer adjudicated it."""

    __tablename__ = "claims"

    claim_number: Mapped[str] = mapped_column(String(24), primary_key=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    member_id: Mapped[str] = mapped_column(String(32), index=True)
    coverage_id: Mapped[str] = mapped_column(String(32))
    patient_name: Mapped[str] = mapped_column(String(128))
    patient_dob: Mapped[date] = mapped_column(Date)
    patient_account_number: Mapped[str] = mapped_column(String(24))
    service_date: Mapped[date] = mapped_column(Date)
    billing_npi: Mapped[str] = mapped_column(String(10))
    rendering_npi: Mapped[str] = mapped_column(String(10))
    facility_name: Mapped[str] = mapped_column(String(160))
    submitted_on: Mapped[date] = mapped_column(Date)
    # The day the payer's front end first accepted (277CA) a transmission of this claim: earlier than
    # `submitted_on` when the claims system lost or mis-dated it. None: no front-end record kept
    # (the claim as received is taken as its first acceptance).
    first_accepted_on: Mapped[date | None] = mapped_column(Date)
    total_charge: Mapped[float] = mapped_column(Float)
    paid_amount: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(24))
    auth_number: Mapped[str | None] = mapped_column(String(24))
    payer: Mapped[Payer] = relationship()
    lines: Mapped[list[ClaimLine]] = relationship(order_by="ClaimLine.line_no")
    # The original adjudication's remittance (its appeal deadline governs level 1 appeals);
    # reprocessing after an appeal or a correction adds more remittances.
    remittance: Mapped[Remittance | None] = relationship(
        uselist=False, viewonly=True,
        primaryjoin="and_(Claim.claim_number == Remittance.claim_number, Remittance.kind == 'Original')")
    remittances: Mapped[list[Remittance]] = relationship(order_by="Remittance.paid_on, Remittance.id",
                                                         viewonly=True)


class ClaimLine(Base):
    """A service line of a claim with its payment."""

    __tablename__ = "claim_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"))
    line_no: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(8))
    modifiers: Mapped[list] = mapped_column(JSON)
    units: Mapped[int] = mapped_column(Integer)
    charge: Mapped[float] = mapped_column(Float)
    paid: Mapped[float] = mapped_column(Float)
    diagnosis_codes: Mapped[list] = mapped_column(JSON)
    adjustments: Mapped[list[ClaimAdjustment]] = relationship(order_by="ClaimAdjustment.id")


class ClaimAdjustment(Base):
    """One CAS adjustment on a claim line: group code, CARC, optional RARC, amount.

    `remittance_id` is empty for the original adjudication and names the remittance of a
    reprocessing otherwise, so the line's current adjustments are those of its last one.
    """

    __tablename__ = "claim_adjustments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_line_id: Mapped[int] = mapped_column(ForeignKey("claim_lines.id"))
    claim_number: Mapped[str] = mapped_column(String(24), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    group_code: Mapped[str] = mapped_column(String(2))
    carc: Mapped[str] = mapped_column(String(8))
    rarc: Mapped[str | None] = mapped_column(String(8))
    amount: Mapped[float] = mapped_column(Float)
    remittance_id: Mapped[str | None] = mapped_column(String(24))


class Remittance(Base):
    """A remittance advice (EOB) of a claim, with its appeal deadline.

    `kind` is "Original" for the first adjudication, "Reprocessed" when an appeal
    overturned the denial (`appeal_reference` names it).
    """

    __tablename__ = "remittances"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="Original")
    appeal_reference: Mapped[str | None] = mapped_column(String(24))
    paid_on: Mapped[date] = mapped_column(Date)
    check_number: Mapped[str] = mapped_column(String(24))
    paid_amount: Mapped[float] = mapped_column(Float)
    patient_responsibility: Mapped[float] = mapped_column(Float)
    appeal_deadline: Mapped[date] = mapped_column(Date)


class Appeal(Base):
    """A reconsideration or appeal filed on a claim.

    `appeal_type` is the kind (Reconsideration, Formal Appeal, Clinical Appeal), `level`
    the stage ("1", "2", "External"). Status is "In Review" until decided, then "Decided"
    with `decision` Upheld, Overturned or Partially Overturned and its letter.
    """

    __tablename__ = "appeals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference_number: Mapped[str] = mapped_column(String(24), unique=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"))
    payer_id: Mapped[str] = mapped_column(String(16))
    member_id: Mapped[str] = mapped_column(String(32))
    appeal_type: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(64))
    contact_name: Mapped[str] = mapped_column(String(80))
    contact_phone: Mapped[str] = mapped_column(String(16))
    letter_text: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(24))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
    submitted_by: Mapped[str] = mapped_column(String(64))
    decision_due: Mapped[date] = mapped_column(Date)
    level: Mapped[str] = mapped_column(String(8), default="1")
    prior_reference: Mapped[str | None] = mapped_column(String(24))
    cited_auth_number: Mapped[str | None] = mapped_column(String(24))
    proof_of_filing_date: Mapped[date | None] = mapped_column(Date)
    decision: Mapped[str | None] = mapped_column(String(24))
    decision_reason: Mapped[str | None] = mapped_column(Text)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime)
    decision_letter_number: Mapped[str | None] = mapped_column(String(24))
    claim: Mapped[Claim] = relationship()
    attachments: Mapped[list[AppealAttachment]] = relationship(order_by="AppealAttachment.id")


class AppealAttachment(StoredFileColumns, Base):
    """A PDF filed with an appeal: the letter itself (when uploaded) or support."""

    __tablename__ = "appeal_attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    appeal_id: Mapped[int] = mapped_column(ForeignKey("appeals.id"))
    document_type: Mapped[str] = mapped_column(String(48))


# ---- correspondence ----------------------------------------------------------------
class Letter(Base):
    """A letter from a payer in the correspondence inbox (viewable and downloadable)."""

    __tablename__ = "letters"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    letter_number: Mapped[str] = mapped_column(String(24), unique=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    member_id: Mapped[str] = mapped_column(String(32))
    member_name: Mapped[str] = mapped_column(String(128))
    category: Mapped[str] = mapped_column(String(48))
    subject: Mapped[str] = mapped_column(String(200))
    case_number: Mapped[str | None] = mapped_column(String(24))
    claim_number: Mapped[str | None] = mapped_column(String(24))
    appeal_reference: Mapped[str | None] = mapped_column(String(24))
    body: Mapped[str] = mapped_column(Text)
    sent_at: Mapped[datetime] = mapped_column(DateTime)
    read_at: Mapped[datetime | None] = mapped_column(DateTime)
    payer: Mapped[Payer] = relationship()
