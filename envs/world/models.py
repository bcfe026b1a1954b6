"""Record types of the synthetic world.

Every record is a frozen, slotted dataclass holding plain values (str, int, float,
date, datetime, tuple, None) so the four apps can copy them into their own databases
without importing anything but this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from admindesk.envs.world.identifiers import request_channel

Facts = tuple[tuple[str, str], ...]

_FROZEN = dict(frozen=True, slots=True)


@dataclass(**_FROZEN)
class Payer:
    """An insurer. `portal` says which payer portal serves it ("a" or "b")."""

    id: str
    name: str
    portal: str
    payer_code: str
    phone: str
    pa_fax: str
    appeals_fax: str
    timely_appeal_days: int
    # The share of billed charges the practice's contract lets the payer allow on a paid line,
    # where the payer publishes it (Keystone's fee schedule); None: priced case by case.
    allowed_share: float | None = None


@dataclass(**_FROZEN)
class Plan:
    """A benefit plan (product) sold by a payer."""

    id: str
    payer_id: str
    name: str
    product: str
    group_prefix: str


@dataclass(**_FROZEN)
class Patient:
    """A synthetic patient, identified across apps by `mrn`."""

    mrn: str
    first_name: str
    last_name: str
    dob: date
    sex: str
    address: str
    city: str
    state: str
    zip: str
    phone: str
    email: str
    language: str

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"


@dataclass(**_FROZEN)
class Coverage:
    """A patient's enrollment in a plan; `rank` 1 is primary, 2 secondary."""

    id: str
    mrn: str
    plan_id: str
    payer_id: str
    rank: int
    member_id: str
    group_number: str
    subscriber_name: str
    relationship: str
    effective: date
    termination: date | None
    # The primary care physician of record the plan holds (an HMO's referrals come from them).
    pcp_npi: str | None = None
    # The outpatient therapy visit limit and the visits applied so far, as the payer counts them.
    therapy_accumulator: BenefitAccumulator | None = None

    def active_on(self, day: date) -> bool:
        return self.effective <= day and (self.termination is None or day <= self.termination)


@dataclass(**_FROZEN)
class Facility:
    """A site of care of the health system."""

    id: str
    name: str
    address: str
    city: str
    state: str
    zip: str
    npi: str
    tax_id: str
    phone: str
    fax: str
    place_of_service: str
    # A site outside the health system (a case's): what it performs and its next open appointment.
    services: tuple[str, ...] = ()
    next_available: date | None = None


@dataclass(**_FROZEN)
class Provider:
    """A clinician who orders services and signs documents."""

    npi: str
    first_name: str
    last_name: str
    credentials: str
    specialty: str
    facility_id: str
    phone: str
    fax: str

    @property
    def display_name(self) -> str:
        return f"{self.first_name} {self.last_name}, {self.credentials}"


@dataclass(**_FROZEN)
class Supplier:
    """A durable medical equipment supplier that receives order packets by fax."""

    id: str
    name: str
    npi: str
    phone: str
    fax: str
    address: str
    city: str
    state: str
    zip: str
    categories: tuple[str, ...]


@dataclass(**_FROZEN)
class Procedure:
    """A CPT or HCPCS code number with a description written for this project."""

    code: str
    system: str
    description: str
    category: str


@dataclass(**_FROZEN)
class CodeSets:
    """Code systems: ICD-10-CM, CPT/HCPCS, claim adjustment reason and remark codes."""

    icd10: dict[str, str]
    procedures: dict[str, Procedure]
    carc: dict[str, str]
    rarc: dict[str, str]


@dataclass(**_FROZEN)
class StaffAccount:
    """A login for one app (synthetic test credentials)."""

    username: str
    password: str
    display_name: str
    role: str
    app: str


@dataclass(**_FROZEN)
class Encounter:
    """A visit in the EHR."""

    id: str
    mrn: str
    date: date
    provider_npi: str
    facility_id: str
    kind: str
    reason: str
    diagnosis_codes: tuple[str, ...]
    # An inpatient stay (kind "Inpatient Admission"): when and how it began, where the patient lies,
    # and when and where to the patient left (None while still in hospital).
    admitted_at: datetime | None = None
    admission_type: str | None = None
    unit: str | None = None
    bed: str | None = None
    discharged_on: date | None = None
    disposition: str | None = None


@dataclass(**_FROZEN)
class InpatientNotice:
    """An inpatient admission notified to the payer: `approved_days` days approved from the admit
    date, next review on `next_review` (admit date + approved days); `recorded`: the desk recorded
    the approval on the stay's order."""

    case_number: str
    payer_id: str
    member_id: str
    mrn: str
    order_id: str
    encounter_id: str
    admitted_at: datetime
    admission_type: str
    facility_id: str
    attending_npi: str
    diagnosis_codes: tuple[str, ...]
    notified_at: datetime
    approved_days: int
    next_review: date
    recorded: bool = False


@dataclass(**_FROZEN)
class Accident:
    """An accident or injury registration recorded for a patient (kind Employment, Auto or Other):
    a workers' compensation or liability claim's employer, carrier and claim number, open or closed."""

    mrn: str
    kind: str
    injury_date: date
    description: str
    employer: str | None
    carrier: str | None
    claim_number: str | None
    status: str
    closed_on: date | None


@dataclass(**_FROZEN)
class ProviderEnrollment:
    """A clinician's enrollment with a payer (see EnrollmentSpec): the application's days, the
    payer's status and the participation date its directory gives."""

    npi: str
    payer_id: str
    submitted_on: date
    received_on: date | None
    status: str
    effective: date | None
    welcome_letter_on: date | None


@dataclass(**_FROZEN)
class Order:
    """A service ordered in the EHR; `needs_auth` places it on the PA work queue."""

    id: str
    mrn: str
    encounter_id: str
    code: str
    description: str
    category: str
    units: int
    diagnosis_codes: tuple[str, ...]
    ordering_npi: str
    facility_id: str
    place_of_service: str
    ordered_on: date
    planned_date: date
    priority: str
    status: str
    coverage_id: str
    needs_auth: bool


@dataclass(**_FROZEN)
class Document:
    """A chart document. `facts` repeats, as key/value strings, what `text` states."""

    id: str
    mrn: str
    encounter_id: str | None
    order_id: str | None
    kind: str
    title: str
    author_npi: str | None
    date: date
    text: str
    facts: Facts

    def fact(self, key: str) -> str | None:
        return dict(self.facts).get(key)


@dataclass(**_FROZEN)
class Adjustment:
    """One CAS adjustment on a claim line (group code + CARC, optional RARC)."""

    group: str
    carc: str
    rarc: str | None
    amount: float


@dataclass(**_FROZEN)
class ClaimLine:
    """A service line of a claim."""

    line_no: int
    code: str
    modifiers: tuple[str, ...]
    units: int
    charge: float
    diagnosis_codes: tuple[str, ...]
    paid: float
    adjustments: tuple[Adjustment, ...]


@dataclass(**_FROZEN)
class Recoupment:
    """The payer's notice that it paid a claim twice and will take the payment back by offset
    unless the office disputes by `dispute_by`. `payer_error`: on purpose, the claim it names
    as the first payment is a different service."""

    duplicate_of: str
    amount: float
    notice_on: date
    dispute_by: date
    payer_error: bool


@dataclass(**_FROZEN)
class CountedVisit:
    """A visit a payer's benefit accumulator applied to a visit limit; `provider` is the
    rendering provider's name as the payer shows it."""

    on: date
    code: str
    provider: str


@dataclass(**_FROZEN)
class BenefitAccumulator:
    """A member's visit limit as the payer counts it (period `period_start`..`period_end`) and
    the visits it applied before the claim it denied as over the limit (CARC 119), or, on a
    coverage, so far. `payer_error`: on purpose, some counted visits do not belong in the period's
    count. `limit_type`: "Hard" (visits past the limit are not covered) or "Soft" (they can be
    precertified)."""

    benefit: str
    visits_allowed: int
    period_start: date
    period_end: date
    counted: tuple[CountedVisit, ...]
    payer_error: bool
    limit_type: str = "Hard"

    def visits_in_period(self) -> int:
        """The distinct dates of service counted that fall in the benefit period."""
        return len({v.on for v in self.counted if self.period_start <= v.on <= self.period_end})


@dataclass(**_FROZEN)
class ClaimSubmission:
    """One transmission of a claim through the clearinghouse: its batch, the clearinghouse's file
    acknowledgement (999, accepted whenever the file could be read) and the payer front end's
    claim acknowledgement (277CA): accepted with the payer's claim control number, or rejected
    (`rejection`: status category:code and text), in which case the payer never received it."""

    transmitted_on: date
    batch_id: str
    payer_control_number: str | None
    rejection: str | None
    report_document_id: str
    note: str | None = None

    @property
    def payer_status(self) -> str:
        return "Rejected" if self.rejection else "Accepted"


@dataclass(**_FROZEN)
class Claim:
    """A professional/facility claim as the payer adjudicated it."""

    claim_number: str
    mrn: str
    payer_id: str
    coverage_id: str
    member_id: str
    service_date: date
    billing_npi: str
    rendering_npi: str
    facility_id: str
    submitted_on: date
    total_charge: float
    status: str
    lines: tuple[ClaimLine, ...]
    order_id: str | None
    auth_number: str | None
    # A CO-18 duplicate names the paid claim it duplicates.
    original_claim_number: str | None = None
    # Payment posting flagged the payment as below what the practice expected: the EHR's
    # Denials queue holds an item for it (a paid claim has none otherwise).
    payment_review: bool = False
    # The payer allowed a line less than its published contract on purpose (an underpayment to
    # find); the audit expects exactly the labelled claims off the contract.
    underpaid: bool = False
    recoupment: Recoupment | None = None
    # Denied CO-27 although the payer's own enrollment covers the date of service, on purpose.
    eligibility_error: bool = False
    benefit_accumulator: BenefitAccumulator | None = None
    # No answer from the payer reached the office 45+ days after billing: the Denials queue holds an
    # accounts-receivable follow-up item for it (in the chart the claim is pending, unremitted).
    no_response: bool = False
    # The clearinghouse history (oldest first), when the case gives one.
    submissions: tuple[ClaimSubmission, ...] = ()

    @property
    def paid_amount(self) -> float:
        return round(sum(line.paid for line in self.lines), 2)


@dataclass(**_FROZEN)
class Remittance:
    """The ERA/EOB for one adjudicated claim."""

    id: str
    claim_number: str
    payer_id: str
    paid_on: date
    check_number: str
    paid_amount: float
    patient_responsibility: float
    appeal_deadline: date


@dataclass(**_FROZEN)
class Referral:
    """A PCP's referral to a specialist approved at the payer: `visits` office visits from `start`
    to `end` (90 days), for the specialist's specialty."""

    number: str
    payer_id: str
    member_id: str
    mrn: str
    referring_npi: str
    specialist_npi: str
    specialty: str
    diagnosis_codes: tuple[str, ...]
    visits: int
    start: date
    end: date
    order_id: str | None


@dataclass(**_FROZEN)
class Authorization:
    """A prior authorization request already on file at the payer.

    `decision_reason` is what the payer wrote (for a denial, the criterion that failed,
    named by `failed_criterion`). A denial that contradicts the payer's own rules exists
    only on purpose and says so in `deliberate_error`. A pended request lists in
    `requested_items` what the payer asked for. `recorded`: the desk entered an approval on
    its open order when it came (a completed order's approval always is).
    """

    auth_number: str
    payer_id: str
    member_id: str
    mrn: str
    code: str
    units: int
    start: date
    end: date
    status: str
    order_id: str | None
    case_number: str
    decision_reason: str = ""
    failed_criterion: str | None = None
    deliberate_error: str | None = None
    requested_items: tuple[str, ...] = ()
    recorded: bool = False
    # DME: the supplier's delivery of the approved equipment, and that supplier's NPI.
    delivered_on: date | None = None
    delivered_by: str | None = None
    # A modified (partial) approval: what the payer approved when it is less than `units` of `code`.
    approved_units: int | None = None
    approved_code: str | None = None

    @property
    def modified(self) -> bool:
        """The payer approved fewer units or another code than requested (the portals' Partially Approved)."""
        return self.approved_units is not None or self.approved_code is not None

    @property
    def granted_units(self) -> int:
        """The units the approval covers."""
        return self.approved_units if self.approved_units is not None else self.units

    @property
    def granted_code(self) -> str:
        """The code the approval covers."""
        return self.approved_code or self.code

    @property
    def channel(self) -> str:
        """How the office filed the request, "Portal" or "Fax" (the fax app's outbox holds the
        faxed ones only)."""
        return request_channel(self.case_number)


@dataclass(**_FROZEN)
class InboundFax:
    """A fax already waiting in the fax inbox.

    The fax server gets the call's facts: `from_number`, `csid` (the station id the sending
    machine transmits, as its owner set it: terse, stale or blank), `to_number`,
    `received_at` and the pages. `from_name`, `kind` and `mrn` are the world's truth about
    the fax (who sent it, what it is, whom it is about), known only by reading its pages."""

    id: str
    from_number: str
    from_name: str
    to_number: str
    received_at: datetime
    csid: str
    kind: str
    mrn: str | None
    pages_text: tuple[str, ...]


@dataclass(**_FROZEN)
class Appeal:
    """An appeal already on file at the payer on an adjudicated claim (only a case makes one).

    `level` is "1", "2" or "external"; `kind` "reconsideration", "formal" or "clinical";
    `status` "in_review" or "decided". A decided appeal has a `decision` ("upheld",
    "overturned" or "partially_overturned"), `decided_on` and the payer's `reason`;
    `paid_lines` are the claim lines an overturn pays. `due_on` None means the payer's
    own review time from `filed_on`. `reference` is in the format of the payer's portal.
    """

    reference: str
    claim_number: str
    payer_id: str
    level: str
    kind: str
    filed_on: date
    status: str
    due_on: date | None
    decision: str | None
    decided_on: date | None
    reason: str
    paid_lines: tuple[int, ...] = ()
