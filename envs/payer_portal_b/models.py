"""Keystone Mutual's provider portal tables: subscribers, policies, precerts, claims, appeals, DME.

Codes and ids are plain strings and statuses readable words ("Approved", "Pended"), so
snapshot queries read naturally. Blobs (attachments) are LargeBinary; the snapshot
shows them as "sha256:<hex>".
"""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Boolean, Date, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from admindesk.envs.common.code_sets import declare_code_sets
from admindesk.envs.common.documents.stored_files import StoredFileColumns


class Base(DeclarativeBase):
    """Declarative base of portal B's own tables."""


class PayerProfile(Base):
    """The one payer this portal belongs to, with its phone and fax lines."""

    __tablename__ = "payer_profiles"

    payer_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    payer_code: Mapped[str] = mapped_column(String(16))
    phone: Mapped[str] = mapped_column(String(16))
    precert_fax: Mapped[str] = mapped_column(String(16))
    appeals_fax: Mapped[str] = mapped_column(String(16))
    appeal_filing_days: Mapped[int] = mapped_column(Integer)
    # The practice's contract: a paid line is allowed this share of its billed charge.
    allowed_share: Mapped[float] = mapped_column(Float)


class Plan(Base):
    """A benefit plan of the payer, with the benefit summary shown on eligibility."""

    __tablename__ = "plans"

    plan_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    product: Mapped[str] = mapped_column(String(64))
    benefits: Mapped[dict] = mapped_column(JSON)


class Subscriber(Base):
    """An enrolled member, keyed by the Subscriber ID printed on the card."""

    __tablename__ = "subscribers"

    subscriber_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    first_name: Mapped[str] = mapped_column(String(64))
    last_name: Mapped[str] = mapped_column(String(64))
    dob: Mapped[date] = mapped_column(Date)
    sex: Mapped[str] = mapped_column(String(8))
    plan_id: Mapped[str] = mapped_column(ForeignKey("plans.plan_id"))
    group_number: Mapped[str] = mapped_column(String(32))
    policy_holder: Mapped[str] = mapped_column(String(128))
    relationship: Mapped[str] = mapped_column(String(32))
    effective: Mapped[date] = mapped_column(Date)
    termination: Mapped[date | None] = mapped_column(Date)
    address: Mapped[str] = mapped_column(String(256))
    # Coordination of benefits: 1 when Keystone pays first; the other payer's name when it is secondary.
    coverage_rank: Mapped[int] = mapped_column(Integer, default=1)
    other_coverage: Mapped[str | None] = mapped_column(String(128))
    # The primary care physician of record (HMO plans: specialist visits need their referral).
    pcp_npi: Mapped[str | None] = mapped_column(String(10))

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def active_on(self, day: date) -> bool:
        return self.effective <= day and (self.termination is None or day <= self.termination)


class Provider(Base):
    """A provider in the payer's file: clinicians (Individual) and sites (Organization)."""

    __tablename__ = "providers"

    npi: Mapped[str] = mapped_column(String(10), primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    kind: Mapped[str] = mapped_column(String(16))
    specialty: Mapped[str] = mapped_column(String(64))
    phone: Mapped[str] = mapped_column(String(16))
    fax: Mapped[str] = mapped_column(String(16))
    network_status: Mapped[str] = mapped_column(String(32))


class Supplier(Base):
    """A DME supplier in the payer's file; `network_status` is "Contracted" or "Non-contracted"."""

    __tablename__ = "suppliers"

    npi: Mapped[str] = mapped_column(String(10), primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    phone: Mapped[str] = mapped_column(String(16))
    fax: Mapped[str] = mapped_column(String(16))
    network_status: Mapped[str] = mapped_column(String(16), default="Contracted")


# The public code sets are the kit's (see common/code_sets.py), so that every app holds
# them under the same table names and columns.
DiagnosisCode, ProcedureCode, AdjustmentCode = CODE_SET_MODELS = declare_code_sets(Base)


class MedicalPolicy(Base):
    """A medical policy: what it covers, its criteria, and how to request the service.

    `clinical_rules` is a list of alternatives, each a list of conditions on the
    clinical fields of the request form; the criteria are met when every condition
    of one alternative holds (see rules.py).
    """

    __tablename__ = "medical_policies"

    policy_number: Mapped[str] = mapped_column(String(16), primary_key=True)
    title: Mapped[str] = mapped_column(String(160))
    category: Mapped[str] = mapped_column(String(32))
    effective_date: Mapped[date] = mapped_column(Date)
    last_reviewed: Mapped[date] = mapped_column(Date)
    submission_method: Mapped[str] = mapped_column(String(16))
    summary: Mapped[str] = mapped_column(Text)
    criteria_text: Mapped[str] = mapped_column(Text)
    required_documentation: Mapped[str] = mapped_column(Text)
    required_document_types: Mapped[list] = mapped_column(JSON)
    covered_diagnoses: Mapped[list] = mapped_column(JSON)
    clinical_rules: Mapped[list] = mapped_column(JSON)
    max_units: Mapped[int] = mapped_column(Integer)
    approval_days: Mapped[int] = mapped_column(Integer)

    @property
    def fax_only(self) -> bool:
        return self.submission_method == "Fax only"


class PolicyCode(Base):
    """A service code governed by a medical policy (precertification required)."""

    __tablename__ = "policy_codes"

    code: Mapped[str] = mapped_column(String(10), primary_key=True)
    policy_number: Mapped[str] = mapped_column(ForeignKey("medical_policies.policy_number"))
    # Drugs: the most billing units one request may hold, in the code's own unit (J3262: 1 mg).
    max_billing_units: Mapped[int | None] = mapped_column(Integer)
    billing_unit: Mapped[str | None] = mapped_column(String(32))
    # Infused drugs: the site-of-care policy that says where the infusion may be given (KM-RX-510).
    site_of_care_policy: Mapped[str | None] = mapped_column(String(16))
    # Biologics: the policy whose criteria a continuation (re-authorization) request meets (KM-RX-520).
    continuation_policy: Mapped[str | None] = mapped_column(String(16))


class DmeRequirement(Base):
    """The payer's DME requirements for one HCPCS code (see dme_rules.py)."""

    __tablename__ = "dme_requirements"

    code: Mapped[str] = mapped_column(String(10), primary_key=True)
    policy_number: Mapped[str] = mapped_column(ForeignKey("medical_policies.policy_number"))
    face_to_face_days: Mapped[int] = mapped_column(Integer)
    test_field: Mapped[str | None] = mapped_column(String(32))
    test_operator: Mapped[str | None] = mapped_column(String(4))
    test_threshold: Mapped[float | None] = mapped_column(Float)
    rental_months: Mapped[int] = mapped_column(Integer)
    # "pap" or "oxygen": the clinical criteria of dme_clinical.py beyond the qualifying test;
    # "bed": the hospital bed criteria of dme_bed.py.
    clinical_rule: Mapped[str | None] = mapped_column(String(16))


class Announcement(Base):
    """A notice on the portal home page."""

    __tablename__ = "announcements"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    posted_on: Mapped[date] = mapped_column(Date)
    title: Mapped[str] = mapped_column(String(160))
    body: Mapped[str] = mapped_column(Text)
    priority: Mapped[str] = mapped_column(String(16))


class EligibilityInquiry(Base):
    """One eligibility lookup and its answer, kept as the portal's transaction log."""

    __tablename__ = "eligibility_inquiries"

    inquiry_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32))
    dob: Mapped[date] = mapped_column(Date)
    service_date: Mapped[date] = mapped_column(Date)
    result: Mapped[str] = mapped_column(String(16))
    plan_id: Mapped[str | None] = mapped_column(String(32))
    requested_by: Mapped[str] = mapped_column(String(64))
    requested_at: Mapped[datetime] = mapped_column(DateTime)


class PrecertRequest(Base):
    """A precertification request and its determination."""

    __tablename__ = "precert_requests"

    reference_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32))
    patient_name: Mapped[str] = mapped_column(String(128))
    service_code: Mapped[str] = mapped_column(String(10))
    units: Mapped[int] = mapped_column(Integer)
    diagnosis_codes: Mapped[list] = mapped_column(JSON)
    rendering_npi: Mapped[str | None] = mapped_column(String(10))
    referring_npi: Mapped[str | None] = mapped_column(String(10))
    place_of_service: Mapped[str | None] = mapped_column(String(4))
    urgency: Mapped[str] = mapped_column(String(16))
    start_date: Mapped[date] = mapped_column(Date)
    end_date: Mapped[date] = mapped_column(Date)
    clinical: Mapped[dict] = mapped_column(JSON)
    clinical_summary: Mapped[str] = mapped_column(Text)
    contact_name: Mapped[str] = mapped_column(String(128))
    contact_phone: Mapped[str] = mapped_column(String(16))
    policy_number: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    decision_reason: Mapped[str] = mapped_column(Text)
    authorization_number: Mapped[str | None] = mapped_column(String(20))
    approved_units: Mapped[int | None] = mapped_column(Integer)
    approved_start: Mapped[date | None] = mapped_column(Date)
    approved_end: Mapped[date | None] = mapped_column(Date)
    duplicate_of: Mapped[str | None] = mapped_column(String(20))
    source: Mapped[str] = mapped_column(String(16))
    submitted_by: Mapped[str | None] = mapped_column(String(64))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    # When Keystone owes a determination (72 h urgent, 15 days standard); "Emergent" admissions
    # may be requested after the fact (retro), within the window rules.py states.
    decision_due: Mapped[datetime | None] = mapped_column(DateTime)
    admission_type: Mapped[str] = mapped_column(String(16), default="Elective")
    retro: Mapped[bool] = mapped_column(Boolean, default=False)
    denied_on: Mapped[date | None] = mapped_column(Date)


class Claim(Base):
    """A claim as the payer adjudicated it."""

    __tablename__ = "claims"

    claim_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32))
    patient_name: Mapped[str] = mapped_column(String(128))
    service_date: Mapped[date] = mapped_column(Date)
    billing_npi: Mapped[str] = mapped_column(String(10))
    rendering_npi: Mapped[str] = mapped_column(String(10))
    received_on: Mapped[date] = mapped_column(Date)
    billed_amount: Mapped[float] = mapped_column(Float)
    paid_amount: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(32))
    authorization_number: Mapped[str | None] = mapped_column(String(20))


class ClaimLine(Base):
    """A service line of a claim."""

    __tablename__ = "claim_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"))
    line_no: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(10))
    modifiers: Mapped[str] = mapped_column(String(32))
    units: Mapped[int] = mapped_column(Integer)
    billed: Mapped[float] = mapped_column(Float)
    paid: Mapped[float] = mapped_column(Float)
    diagnosis_codes: Mapped[str] = mapped_column(String(128))


class ClaimAdjustment(Base):
    """A CAS adjustment of a claim line: group code, CARC, optional RARC, amount."""

    __tablename__ = "claim_adjustments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"))
    line_no: Mapped[int] = mapped_column(Integer)
    group_code: Mapped[str] = mapped_column(String(4))
    carc: Mapped[str] = mapped_column(String(8))
    rarc: Mapped[str | None] = mapped_column(String(8))
    amount: Mapped[float] = mapped_column(Float)


class ExplanationOfBenefits(Base):
    """The EOB (remittance) of a claim, with its appeal filing limit."""

    __tablename__ = "explanations_of_benefits"

    eob_id: Mapped[str] = mapped_column(String(24), primary_key=True)
    claim_number: Mapped[str] = mapped_column(ForeignKey("claims.claim_number"))
    paid_on: Mapped[date] = mapped_column(Date)
    check_number: Mapped[str] = mapped_column(String(24))
    paid_amount: Mapped[float] = mapped_column(Float)
    patient_responsibility: Mapped[float] = mapped_column(Float)
    appeal_deadline: Mapped[date] = mapped_column(Date)
    # "Original", or "Reprocessed" for the payment an overturned appeal or a corrected claim produced.
    kind: Mapped[str] = mapped_column(String(16), default="Original")
    reason: Mapped[str] = mapped_column(Text, default="")


class Appeal(Base):
    """A provider appeal: post-service (of a claim) or pre-service (of a denied precertification).

    `level` is "1", "2" or "External review"; `kind` "Reconsideration", "Formal appeal" or
    "Clinical appeal". Keystone never decides at once: status stays "In Review" until
    `decision_due`; a decided appeal has status "Decided", a `decision` ("Upheld",
    "Overturned", "Partially overturned") and its decision letter `letter_id`.
    """

    __tablename__ = "appeals"

    appeal_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    claim_number: Mapped[str | None] = mapped_column(String(20))
    subscriber_id: Mapped[str] = mapped_column(String(32))
    appellant_name: Mapped[str] = mapped_column(String(128))
    appellant_relationship: Mapped[str] = mapped_column(String(48))
    service_date: Mapped[date] = mapped_column(Date)
    billed_amount: Mapped[float | None] = mapped_column(Float)
    reason_category: Mapped[str] = mapped_column(String(64))
    explanation: Mapped[str] = mapped_column(Text)
    requested_outcome: Mapped[str] = mapped_column(String(64))
    attested: Mapped[bool]
    status: Mapped[str] = mapped_column(String(24))
    decision_due: Mapped[date] = mapped_column(Date)
    submitted_by: Mapped[str] = mapped_column(String(64))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
    level: Mapped[str] = mapped_column(String(20), default="1")
    kind: Mapped[str] = mapped_column(String(24), default="Formal appeal")
    service_type: Mapped[str] = mapped_column(String(16), default="Post-service")
    precert_reference: Mapped[str | None] = mapped_column(String(20))
    prior_appeal_id: Mapped[str | None] = mapped_column(String(20))
    decision: Mapped[str | None] = mapped_column(String(24))
    decided_on: Mapped[date | None] = mapped_column(Date)
    decision_reason: Mapped[str] = mapped_column(Text, default="")
    letter_id: Mapped[str | None] = mapped_column(String(20))


class DmeRequest(Base):
    """A DME request with its qualifying facts and its evaluation."""

    __tablename__ = "dme_requests"

    request_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    subscriber_id: Mapped[str] = mapped_column(String(32))
    patient_name: Mapped[str] = mapped_column(String(128))
    hcpcs_code: Mapped[str] = mapped_column(String(10))
    quantity: Mapped[int] = mapped_column(Integer)
    diagnosis_codes: Mapped[list] = mapped_column(JSON)
    ordering_npi: Mapped[str] = mapped_column(String(10))
    # None for an authorization on file whose equipment was not billed yet (supplier unknown).
    supplier_npi: Mapped[str | None] = mapped_column(String(10))
    face_to_face_date: Mapped[date] = mapped_column(Date)
    order_date: Mapped[date] = mapped_column(Date)
    ahi: Mapped[float | None] = mapped_column(Float)
    spo2_rest: Mapped[int | None] = mapped_column(Integer)
    spo2_exertion: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    decision_reason: Mapped[str] = mapped_column(Text)
    authorization_number: Mapped[str | None] = mapped_column(String(20))
    approved_months: Mapped[int | None] = mapped_column(Integer)
    submitted_by: Mapped[str] = mapped_column(String(64))
    submitted_at: Mapped[datetime] = mapped_column(DateTime)
    # "Contracted", or "Out of network" for a non-contracted supplier on a plan that allows one.
    supplier_network: Mapped[str] = mapped_column(String(16), default="Contracted")
    # Clinical facts of Keystone's PAP and oxygen criteria (dme_clinical.py).
    request_kind: Mapped[str] = mapped_column(String(24), default="Initial")
    sleep_test_date: Mapped[date | None] = mapped_column(Date)
    comorbidities: Mapped[list] = mapped_column(JSON, default=list)
    spo2_on_oxygen: Mapped[int | None] = mapped_column(Integer)
    pao2: Mapped[int | None] = mapped_column(Integer)
    oxygen_conditions: Mapped[list] = mapped_column(JSON, default=list)
    hematocrit: Mapped[float | None] = mapped_column(Float)
    # Home oxygen: the qualifying test's date, who performed it and the member's state at testing.
    oxygen_test_date: Mapped[date | None] = mapped_column(Date)
    oxygen_test_by: Mapped[str | None] = mapped_column(String(48))
    oxygen_test_state: Mapped[str | None] = mapped_column(String(48))
    # Hospital bed: the qualifying condition and, for a semi-electric bed, the need for position changes (dme_bed.py).
    bed_indication: Mapped[str | None] = mapped_column(String(64))
    bed_position_changes: Mapped[str | None] = mapped_column(String(64))
    # Continued coverage: the approved trial it continues (and the adherence download); a replacement: the
    # request of the item replaced.
    initial_request_id: Mapped[str | None] = mapped_column(String(20))
    device_setup_date: Mapped[date | None] = mapped_column(Date)
    adherence_start: Mapped[date | None] = mapped_column(Date)
    nights_4h: Mapped[int | None] = mapped_column(Integer)
    # The supplier's delivery of the approved equipment (from its claim): the useful lifetime counts from it.
    delivered_on: Mapped[date | None] = mapped_column(Date)
    # A replacement: why, its planned delivery, and the HCPCS modifier it is billed with (RA).
    replacement_reason: Mapped[str | None] = mapped_column(String(48))
    replacement_date: Mapped[date | None] = mapped_column(Date)
    modifier: Mapped[str | None] = mapped_column(String(2))
    # "Portal" for a request made here, "On file" for an authorization made before the portal's history.
    source: Mapped[str] = mapped_column(String(16), default="Portal")


class Attachment(StoredFileColumns, Base):
    """An uploaded PDF attached to a precert ("precert"), appeal ("appeal") or DME request ("dme")."""

    __tablename__ = "attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_type: Mapped[str] = mapped_column(String(16))
    owner_id: Mapped[str] = mapped_column(String(20))
    document_type: Mapped[str] = mapped_column(String(48))
    uploaded_by: Mapped[str] = mapped_column(String(64))
    uploaded_at: Mapped[datetime] = mapped_column(DateTime)


class SessionActivity(Base):
    """Page views per user since the last "Stay signed in" (drives the timeout warning)."""

    __tablename__ = "session_activity"

    username: Mapped[str] = mapped_column(String(64), primary_key=True)
    page_views_since_ack: Mapped[int] = mapped_column(Integer)
    warnings_acknowledged: Mapped[int] = mapped_column(Integer)
    last_acknowledged_at: Mapped[datetime | None] = mapped_column(DateTime)
