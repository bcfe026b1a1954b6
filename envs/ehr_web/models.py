"""Tables of the EHR: patients and their coverage, chart records, orders with their
authorization, documents, claims with remittances, work queues and notes.

Codes and ids are plain strings and statuses readable words ("Approved"), so that
snapshot checks can be written as simple JMESPath queries.
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from admindesk.envs.common.code_sets import declare_code_sets


class Base(DeclarativeBase):
    """Declarative base of the EHR's own tables."""


# ---- reference data -------------------------------------------------------------------
class Payer(Base):
    """An insurer the health system bills."""

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

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    name: Mapped[str] = mapped_column(String(128))
    product: Mapped[str] = mapped_column(String(64))


class Facility(Base):
    """A site of care (place of service)."""

    __tablename__ = "facilities"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    address: Mapped[str] = mapped_column(String(128))
    city: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    npi: Mapped[str] = mapped_column(String(10))
    tax_id: Mapped[str] = mapped_column(String(16))
    phone: Mapped[str] = mapped_column(String(16))
    fax: Mapped[str] = mapped_column(String(16))
    place_of_service: Mapped[str] = mapped_column(String(2))


class Provider(Base):
    """A clinician, identified by NPI."""

    __tablename__ = "providers"

    npi: Mapped[str] = mapped_column(String(10), primary_key=True)
    first_name: Mapped[str] = mapped_column(String(64))
    last_name: Mapped[str] = mapped_column(String(64))
    credentials: Mapped[str] = mapped_column(String(16))
    specialty: Mapped[str] = mapped_column(String(64))
    facility_id: Mapped[str] = mapped_column(ForeignKey("facilities.id"))
    phone: Mapped[str] = mapped_column(String(16))
    fax: Mapped[str] = mapped_column(String(16))

    @property
    def display_name(self) -> str:
        return f"{self.first_name} {self.last_name}, {self.credentials}"


class Supplier(Base):
    """A DME supplier that receives order packets."""

    __tablename__ = "suppliers"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    npi: Mapped[str] = mapped_column(String(10))
    phone: Mapped[str] = mapped_column(String(16))
    fax: Mapped[str] = mapped_column(String(16))
    address: Mapped[str] = mapped_column(String(128))
    city: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    categories: Mapped[str] = mapped_column(String(128))


# The public code sets are the kit's (see common/code_sets.py), so that every app holds
# them under the same table names and columns.
DiagnosisCode, ProcedureCode, AdjustmentCode = CODE_SET_MODELS = declare_code_sets(Base)


# ---- the patient and the chart --------------------------------------------------------
class Patient(Base):
    """Demographics; `allergies` is the chart's allergy line shown in the banner."""

    __tablename__ = "patients"

    mrn: Mapped[str] = mapped_column(String(16), primary_key=True)
    first_name: Mapped[str] = mapped_column(String(64))
    last_name: Mapped[str] = mapped_column(String(64), index=True)
    dob: Mapped[date] = mapped_column(Date, index=True)
    sex: Mapped[str] = mapped_column(String(1))
    address: Mapped[str] = mapped_column(String(128))
    city: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    phone: Mapped[str] = mapped_column(String(16))
    email: Mapped[str] = mapped_column(String(128))
    language: Mapped[str] = mapped_column(String(32))
    allergies: Mapped[str] = mapped_column(String(128))
    pcp_npi: Mapped[str | None] = mapped_column(ForeignKey("providers.npi"))

    coverages: Mapped[list[Coverage]] = relationship(order_by="Coverage.rank, Coverage.effective_date.desc()",
                                                     viewonly=True)

    @property
    def full_name(self) -> str:
        return f"{self.last_name}, {self.first_name}"


# Order of benefits: the rank numbers and what the chart calls them.
COVERAGE_RANKS = {1: "Primary", 2: "Secondary", 3: "Tertiary"}


class Coverage(Base):
    """A patient's insurance; rank 1 is primary, 2 secondary, 3 tertiary (the order of benefits).

    The verification columns hold the last eligibility check the desk recorded: its
    result, the day, who, and the payer's inquiry reference.
    """

    __tablename__ = "coverages"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    plan_id: Mapped[str] = mapped_column(ForeignKey("plans.id"))
    rank: Mapped[int] = mapped_column(Integer)
    member_id: Mapped[str] = mapped_column(String(32))
    group_number: Mapped[str] = mapped_column(String(32))
    subscriber_name: Mapped[str] = mapped_column(String(128))
    relationship_to_subscriber: Mapped[str] = mapped_column(String(16))
    effective_date: Mapped[date] = mapped_column(Date)
    termination_date: Mapped[date | None] = mapped_column(Date)
    verification_status: Mapped[str] = mapped_column(String(24), default="Not Verified")
    verified_on: Mapped[date | None] = mapped_column(Date)
    verified_by: Mapped[str | None] = mapped_column(String(64))
    verification_reference: Mapped[str | None] = mapped_column(String(20))
    # The primary care physician of record the plan holds (an HMO's referrals come from them).
    pcp_npi: Mapped[str | None] = mapped_column(ForeignKey("providers.npi"))

    payer: Mapped[Payer] = relationship(viewonly=True)
    plan: Mapped[Plan] = relationship(viewonly=True)
    pcp: Mapped[Provider | None] = relationship(viewonly=True)

    @property
    def rank_label(self) -> str:
        return COVERAGE_RANKS.get(self.rank, f"Rank {self.rank}")

    def active_on(self, day: date) -> bool:
        return self.effective_date <= day and (self.termination_date is None or day <= self.termination_date)


class AccidentRecord(Base):
    """Registration's accident / injury information for a patient (what a claim for the injury is
    billed under): the kind (Employment: workers' compensation; Auto; Other), the injury date, and
    for a workers' compensation or liability claim the employer, carrier and claim number."""

    __tablename__ = "accident_records"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    injury_date: Mapped[date] = mapped_column(Date)
    description: Mapped[str] = mapped_column(Text)
    employer: Mapped[str | None] = mapped_column(String(128))
    carrier: Mapped[str | None] = mapped_column(String(128))
    claim_number: Mapped[str | None] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(8))
    closed_on: Mapped[date | None] = mapped_column(Date)


class ProviderEnrollment(Base):
    """The credentialing team's record of a clinician's enrollment with a payer: application sent,
    logged complete by the payer, status and participation date (envs/common/enrollment.py: a
    clinician with no row participates with every payer)."""

    __tablename__ = "provider_enrollments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    npi: Mapped[str] = mapped_column(ForeignKey("providers.npi"), index=True)
    payer_id: Mapped[str] = mapped_column(ForeignKey("payers.id"))
    submitted_on: Mapped[date] = mapped_column(Date)
    received_on: Mapped[date | None] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))
    effective: Mapped[date | None] = mapped_column(Date)
    welcome_letter_on: Mapped[date | None] = mapped_column(Date)


class Problem(Base):
    """A problem-list entry, built from the diagnoses of the patient's encounters."""

    __tablename__ = "problems"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    icd10_code: Mapped[str] = mapped_column(ForeignKey("diagnosis_codes.code"))
    description: Mapped[str] = mapped_column(String(256))
    first_noted: Mapped[date] = mapped_column(Date)
    last_addressed: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))


class Medication(Base):
    """A medication-list entry."""

    __tablename__ = "medications"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    name: Mapped[str] = mapped_column(String(128))
    sig: Mapped[str] = mapped_column(String(128))
    indication_code: Mapped[str | None] = mapped_column(String(10))
    prescriber_npi: Mapped[str | None] = mapped_column(ForeignKey("providers.npi"))
    start_date: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))
    # A discontinued drug's stop date and why it was stopped (what a step-therapy review reads).
    end_date: Mapped[date | None] = mapped_column(Date)
    stop_reason: Mapped[str | None] = mapped_column(String(256))


class Encounter(Base):
    """A visit."""

    __tablename__ = "encounters"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    encounter_date: Mapped[date] = mapped_column(Date)
    provider_npi: Mapped[str] = mapped_column(ForeignKey("providers.npi"))
    facility_id: Mapped[str] = mapped_column(ForeignKey("facilities.id"))
    kind: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(128))
    diagnosis_codes: Mapped[str] = mapped_column(String(128))  # comma-separated ICD-10 codes
    # An inpatient stay (kind "Inpatient Admission"): admission, bed, and discharge once it happens.
    admitted_at: Mapped[datetime | None] = mapped_column(DateTime)
    admission_type: Mapped[str | None] = mapped_column(String(16))
    unit: Mapped[str | None] = mapped_column(String(32))
    bed: Mapped[str | None] = mapped_column(String(16))
    discharged_on: Mapped[date | None] = mapped_column(Date)
    disposition: Mapped[str | None] = mapped_column(String(32))

    provider: Mapped[Provider] = relationship(viewonly=True)
    facility: Mapped[Facility] = relationship(viewonly=True)


class Order(Base):
    """A service order; `needs_auth` marks services the payer must approve first."""

    __tablename__ = "orders"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    encounter_id: Mapped[str] = mapped_column(ForeignKey("encounters.id"))
    code: Mapped[str] = mapped_column(String(8))
    description: Mapped[str] = mapped_column(String(256))
    category: Mapped[str] = mapped_column(String(16))
    units: Mapped[int] = mapped_column(Integer)
    diagnosis_codes: Mapped[str] = mapped_column(String(128))  # comma-separated ICD-10 codes
    ordering_npi: Mapped[str] = mapped_column(ForeignKey("providers.npi"))
    facility_id: Mapped[str] = mapped_column(ForeignKey("facilities.id"))
    place_of_service: Mapped[str] = mapped_column(String(2))
    ordered_on: Mapped[date] = mapped_column(Date)
    planned_date: Mapped[date] = mapped_column(Date)
    priority: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    coverage_id: Mapped[str | None] = mapped_column(ForeignKey("coverages.id"))
    needs_auth: Mapped[bool] = mapped_column(Boolean)

    provider: Mapped[Provider] = relationship(viewonly=True)
    facility: Mapped[Facility] = relationship(viewonly=True)
    coverage: Mapped[Coverage | None] = relationship(viewonly=True)
    authorization: Mapped[OrderAuthorization | None] = relationship(viewonly=True)

    @property
    def diagnosis_list(self) -> list[str]:
        return [code for code in self.diagnosis_codes.split(",") if code]


class OrderAuthorization(Base):
    """The authorization section of an order, as the coordinator records it."""

    __tablename__ = "order_authorizations"

    order_id: Mapped[str] = mapped_column(ForeignKey("orders.id"), primary_key=True)
    payer_id: Mapped[str | None] = mapped_column(ForeignKey("payers.id"))
    status: Mapped[str] = mapped_column(String(32))
    auth_number: Mapped[str | None] = mapped_column(String(20))
    reference_number: Mapped[str | None] = mapped_column(String(20))
    approved_units: Mapped[int | None] = mapped_column(Integer)
    # The code the payer approved when it is not the order's (a modified approval); None: the order's code.
    approved_code: Mapped[str | None] = mapped_column(String(8))
    # Visits/units billed against the authorization so far (claims carrying its number).
    units_used: Mapped[int] = mapped_column(Integer, default=0)
    start_date: Mapped[date | None] = mapped_column(Date)
    end_date: Mapped[date | None] = mapped_column(Date)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime)
    updated_by: Mapped[str | None] = mapped_column(String(64))

    payer: Mapped[Payer | None] = relationship(viewonly=True)

    @property
    def units_remaining(self) -> int | None:
        """Approved units not yet used (None when no units were approved)."""
        return None if self.approved_units is None else max(self.approved_units - self.units_used, 0)


class Document(Base):
    """A chart document: clinical text from the world, or an uploaded PDF (`content`)."""

    __tablename__ = "documents"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    mrn: Mapped[str] = mapped_column(ForeignKey("patients.mrn"), index=True)
    encounter_id: Mapped[str | None] = mapped_column(ForeignKey("encounters.id"))
    order_id: Mapped[str | None] = mapped_column(ForeignKey("orders.id"))
    kind: Mapped[str] = mapped_column(String(32))
    title: Mapped[str] = mapped_column(String(256))
    author_npi: Mapped[str | None] = mapped_column(ForeignKey("providers.npi"))
    author_name: Mapped[str] = mapped_column(String(128))
    document_date: Mapped[date] = mapped_column(Date)
    source: Mapped[str] = mapped_column(String(16))  # "Clinical" or "Uploaded"
    text: Mapped[str] = mapped_column(Text)
    file_name: Mapped[str] = mapped_column(String(256))
    content: Mapped[bytes | None] = mapped_column(LargeBinary)
    # The stored-file column names of the kit's `StoredFileColumns`, declared here because
    # `content` is empty for world documents (rendered on download). `sha256` is the hash of
    # the PDF a download gives, so checks compare faxed/uploaded files with it by one name.
    sha256: Mapped[str] = mapped_column(String(64))
    pages: Mapped[int | None] = mapped_column(Integer)
    uploaded_by: Mapped[str | None] = mapped_column(String(64))
    uploaded_at: Mapped[datetime | None] = mapped_column(DateTime)
