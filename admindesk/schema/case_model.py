"""The `case:` section of a task file: the task's situation, in domain terms.

A case names a patient (and look-alikes), coverages (with what each payer has on file,
which may differ from the EHR), orders, chart documents with typed facts, the payer's
history (requests and appeals on file), claims with their adjustments and remittances, and faxes
waiting in the inbox. The world's generators (admindesk.envs.world.cases) turn it into
rows in every app.

This module imports pydantic (and the id slots of case_ids) only: the harness, the verifiers and the app kit all read
task files, and none of them should pull in the world (Faker) or an app to do so.
Checks that need the world (a payer exists, a code is in the code set) are made when
the case is built.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from admindesk.schema.case_ids import SLOTS

Key = str
Sex = Literal["F", "M"]
Suffix = Literal["Jr", "Sr", "II", "III"]
YesNo = Literal["yes", "no"]


class CaseModel(BaseModel):
    """Base of every case part: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PatientSpec(CaseModel):
    """The patient the task is about; unset contact details are drawn from the case's seed."""

    first_name: str = Field(min_length=1)
    last_name: str = Field(min_length=1)
    suffix: Suffix | None = None
    dob: date
    sex: Sex
    address: str | None = None
    city: str | None = None
    zip: str | None = Field(default=None, pattern=r"^\d{5}$")
    phone: str | None = Field(default=None, pattern=r"^\d{10}$")
    language: str = "English"


class LookalikeSpec(CaseModel):
    """Another patient easily confused with the case's: unset fields copy the patient's."""

    first_name: str | None = None
    last_name: str | None = None
    suffix: Suffix | None = None
    dob: date | None = None
    sex: Sex | None = None
    # The look-alike's member id at the patient's primary payer (e.g. the subscriber whose id,
    # without the dependent's suffix, the patient was billed under); unset: one from the case range.
    member_id: str | None = Field(default=None, min_length=4)


class PayerRecordSpec(CaseModel):
    """What the payer has on file where it differs from the EHR's coverage."""

    member_id: str | None = Field(default=None, min_length=4)
    effective: date | None = None
    termination: date | None = None
    # The payer enrolls the patient as a dependent of someone registration does not name.
    relationship: Literal["Self", "Spouse", "Child"] | None = None
    subscriber_name: str | None = None


class TherapyBenefitSpec(CaseModel):
    """A member's outpatient therapy visit limit as the payer's benefit accumulator shows it, before
    any claim is denied: `visits_allowed` per benefit period (a year from `period_start`), the visits
    applied so far (`counted`, every one in the period, none after the task's day), and whether the
    group's limit is `soft` (visits past it can be precertified) or `hard` (not covered at all)."""

    benefit: str = "Outpatient rehabilitation (PT/OT/ST combined)"
    visits_allowed: int = Field(ge=1)
    period_start: date
    limit: Literal["soft", "hard"]
    counted: list["CountedVisitSpec"] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_visit_a_day_within_the_period(self):
        days = [v.service_date for v in self.counted]
        end = self.period_start.replace(year=self.period_start.year + 1)
        if len(set(days)) != len(days) or any(not self.period_start <= day < end for day in days):
            raise ValueError("counted: one visit a date of service, each within the benefit period")
        return self


class CoverageSpec(CaseModel):
    """An enrollment as the EHR records it; `at_payer` overrides what the payer holds."""

    key: Key
    payer: str = Field(description="payer id, e.g. PYR-NWH")
    plan: str | None = Field(default=None, description="plan id; default: the payer's first plan")
    rank: Literal[1, 2] = 1
    effective: date
    termination: date | None = None
    member_id: str | None = Field(default=None, min_length=4)
    relationship: Literal["Self", "Spouse", "Child"] = "Self"
    subscriber_name: str | None = None
    at_payer: PayerRecordSpec | None = None
    pcp: str | None = Field(default=None, description="the member's primary care physician of record (a clinician's "
                                                       "NPI or a specialty), as the payer and the EHR hold it")
    therapy_benefit: TherapyBenefitSpec | None = Field(default=None, description="the therapy visit limit and the "
                                                       "visits applied so far, as the payer's accumulator shows them")
    registered: bool = Field(default=True, description="false: the payer enrolls the patient but registration does "
                                                       "not hold the coverage yet (the member's new card, in the "
                                                       "chart's documents, is all the EHR has of it)")


class OrderSpec(CaseModel):
    """A service ordered in the EHR; providers are an NPI or a specialty (its first clinician)."""

    key: Key
    code: str
    units: int = Field(default=1, ge=1)
    laterality: Literal["left", "right", "bilateral"] | None = None
    diagnoses: list[str] = Field(min_length=1)
    ordering_provider: str
    facility: str = Field(description="facility id, e.g. FAC-OPI")
    supplier: str | None = Field(default=None, description="DME supplier id, e.g. SUP-BRH")
    coverage: Key
    ordered_on: date
    planned_date: date
    status: Literal["Ordered", "Scheduled", "Completed", "Cancelled"] = "Ordered"
    priority: Literal["Routine", "Urgent"] = "Routine"
    needs_auth: bool = True
    description: str | None = None
    visit: bool = Field(default=True, description="false: signed outside a visit (an Orders Only encounter), so "
                                                 "the order's date is no face-to-face evaluation")

    @model_validator(mode="after")
    def _planned_after_ordered(self):
        if self.planned_date < self.ordered_on:
            raise ValueError("planned_date is before ordered_on")
        return self


class DocumentFacts(CaseModel):
    """The clinical facts a document states, typed; each one is written into its text."""

    conservative_therapy_weeks: int | None = Field(default=None, ge=0)
    physical_therapy_weeks: int | None = Field(default=None, ge=0)
    physical_therapy_sessions: int | None = Field(default=None, ge=0)
    nsaid_trial: str | None = None
    red_flags: str | None = None
    prior_imaging_date: date | None = None
    # A therapy record's own dates (first and last visit) and the body site treated: the weeks of
    # therapy a payer counts are computed from these, not from a note's summary of them.
    therapy_site: str | None = None
    therapy_first_visit: date | None = None
    therapy_last_visit: date | None = None
    # An imaging report's study and what it shows (e.g. a radiographic osteoarthritis grade).
    imaging_study: str | None = None
    imaging_findings: str | None = None
    joint_injection: str | None = None
    mcmurray_test: Literal["positive", "negative"] | None = None
    symptom_duration_months: int | None = Field(default=None, ge=0)
    focal_neurologic_deficit: str | None = None
    able_to_exercise: YesNo | None = None
    baseline_ecg: Literal["normal sinus rhythm", "left bundle branch block", "nonspecific ST changes"] | None = None
    study_date: date | None = None
    ahi: float | None = Field(default=None, ge=0)
    lowest_spo2: int | None = Field(default=None, ge=50, le=100)
    epworth_score: int | None = Field(default=None, ge=0, le=24)
    stop_bang_score: int | None = Field(default=None, ge=0, le=8)
    qualifying_symptoms: str | None = None
    cardiopulmonary_comorbidity: str | None = None
    face_to_face_date: date | None = None
    length_of_need: str | None = None
    spo2_rest: int | None = Field(default=None, ge=50, le=100)
    spo2_exertion: int | None = Field(default=None, ge=50, le=100)
    # An oximetry report: the exercise test repeated on oxygen, the test's date, who performed it
    # and the patient's state at testing (what a home-oxygen policy asks of the qualifying test).
    spo2_on_oxygen: int | None = Field(default=None, ge=50, le=100)
    test_date: date | None = None
    tested_by: str | None = None
    test_conditions: str | None = None
    # A police, fire or insurance report (or a supplier's damage statement): when, and what it names.
    incident_date: date | None = None
    reported_item: str | None = None
    hba1c: float | None = Field(default=None, ge=3, le=20)
    insulin_injections_per_day: int | None = Field(default=None, ge=0)
    can_use_cane_safely: YesNo | None = None
    tb_screen: Literal["negative", "positive", "indeterminate"] | None = None
    tb_screen_date: date | None = None
    prior_therapy: str | None = None
    prior_therapy_weeks: int | None = Field(default=None, ge=0)
    prior_therapy_start: date | None = None
    # When the drug was stopped (the medication history's stop date; a step-therapy trial's weeks run to it).
    prior_therapy_stop: date | None = None
    prior_therapy_outcome: str | None = None
    # Reactions to earlier infusions of a drug (what happened, when, how it was treated; or "none").
    infusion_reaction: str | None = None
    # Germline genetic testing: pre-test counseling (done when and by whom, or only referred), the
    # member's own cancers, the pedigree's relatives, earlier germline tests, what the result changes.
    genetic_counseling: str | None = None
    personal_cancer_history: str | None = None
    family_history: str | None = None
    prior_genetic_testing: str | None = None
    management_impact: str | None = None
    # Spinal injections: a procedure note's procedure (level, region, approach, code) and the pain score
    # before it; a follow-up note's injection (its date), pain score at the visit, percent relief and
    # how many weeks the relief lasted (the measure a repeat-injection policy reads).
    injection_procedure: str | None = None
    injection_followed_up: date | None = None
    pain_score_before: int | None = Field(default=None, ge=0, le=10)
    pain_score_after: int | None = Field(default=None, ge=0, le=10)
    relief_percent: int | None = Field(default=None, ge=0, le=100)
    relief_weeks: int | None = Field(default=None, ge=0)
    functional_change: str | None = None
    # A hospital day's findings (inpatient progress notes, H&P, discharge summary), each one sentence.
    vital_signs: str | None = None
    oxygen: str | None = None
    iv_medications: str | None = None
    response_to_treatment: str | None = None
    discharge_plan: str | None = None
    # A therapy re-evaluation: the visits of the benefit period through its date (the payer's accumulator
    # counts the same), and the further visits its plan of care asks for.
    therapy_visits_used: int | None = Field(default=None, ge=0)
    visits_planned: int | None = Field(default=None, ge=1)
    # A PAP adherence report (the supplier's download): the set-up night and each night's minutes of use since.
    device_setup_date: date | None = None
    # An injury: when and how it happened (the patient's words at intake), whether it happened at work,
    # and, on a first report of injury, the employer and the workers' compensation carrier and claim.
    injury_date: date | None = None
    injury_cause: str | None = None
    work_related: YesNo | None = None
    employer: str | None = None
    wc_carrier: str | None = None
    wc_claim_number: str | None = None
    nightly_minutes: list[int] | None = Field(default=None, min_length=1, max_length=400)
    # The treating physician's opinion of how soon the service is needed, starting "urgent" or
    # "routine", with the clinical reason (what an expedited prior-auth review asks the physician to attest).
    clinical_urgency: str | None = Field(default=None, pattern=r"^(urgent|routine)\b")

    @model_validator(mode="after")
    def _minutes_fit_a_night(self):
        if any(not 0 <= minutes <= 1440 for minutes in self.nightly_minutes or ()):
            raise ValueError("nightly_minutes are minutes of use in one night, 0 to 1440")
        if (self.nightly_minutes is None) != (self.device_setup_date is None):
            raise ValueError("an adherence report gives both device_setup_date and nightly_minutes")
        if (self.therapy_first_visit is None) != (self.therapy_last_visit is None):
            raise ValueError("a therapy record gives both therapy_first_visit and therapy_last_visit")
        if self.therapy_first_visit is not None and self.therapy_first_visit > self.therapy_last_visit:
            raise ValueError("a therapy record's therapy_first_visit is on or before its therapy_last_visit")
        if self.prior_therapy_stop is not None and (self.prior_therapy_start is None
                                                     or self.prior_therapy_stop < self.prior_therapy_start):
            raise ValueError("a prior therapy's prior_therapy_stop follows its prior_therapy_start")
        return self


DocumentType = Literal["progress_note", "pt_note", "imaging_report", "sleep_study", "face_to_face",
                       "written_order", "lab_result", "medication_history", "addendum", "adherence_report", "oximetry_report",
                       "incident_report", "injury_report", "financial_form",
                       "history_and_physical", "hospital_progress_note", "discharge_summary",
                       "clearinghouse_report", "insurance_card"]
# Documents of a hospital stay: they belong to the case's admission (its inpatient encounter).
HOSPITAL_DOCUMENTS = ("history_and_physical", "hospital_progress_note", "discharge_summary")


class DocumentSpec(CaseModel):
    """A chart document. An addendum `corrects` an earlier one; `contradicts` marks a
    document whose facts disagree with another's on purpose (a trap for the reader)."""

    key: Key
    type: DocumentType
    date: date
    author: str | None = Field(default=None, description="NPI or specialty; none for unsigned reports")
    title: str | None = None
    order: Key | None = None
    facts: DocumentFacts = Field(default_factory=DocumentFacts)
    narrative: str | None = Field(default=None, description="extra sentences written into the text")
    corrects: Key | None = None
    contradicts: Key | None = None
    coverage: Key | None = Field(default=None, description="an insurance card's coverage: the card scanned at "
                                                           "check-in, front and back, as the payer issued it")

    @model_validator(mode="after")
    def _addendum_corrects(self):
        if (self.type == "insurance_card") != (self.coverage is not None):
            raise ValueError("an insurance card (and only one) names the `coverage` it is the card of")
        if (self.type == "addendum") != (self.corrects is not None):
            raise ValueError("an addendum (and only an addendum) names the document it `corrects`")
        if (self.type == "adherence_report") != (self.facts.nightly_minutes is not None):
            raise ValueError("an adherence report (and only one) gives facts.nightly_minutes and device_setup_date")
        if self.type == "injury_report":
            facts = self.facts
            if None in (facts.injury_date, facts.injury_cause, facts.employer, facts.wc_carrier, facts.wc_claim_number):
                raise ValueError("a first report of injury gives injury_date, injury_cause, employer, wc_carrier and "
                                 "wc_claim_number")
            if facts.injury_date > self.date:
                raise ValueError("a first report of injury's injury_date is on or before the report's date")
        if self.type == "oximetry_report":
            facts = self.facts
            if None in (facts.test_date, facts.tested_by, facts.test_conditions) or \
                    (facts.spo2_rest is None and facts.spo2_exertion is None):
                raise ValueError("an oximetry report gives its SpO2 and its test_date, tested_by and test_conditions")
            if facts.test_date > self.date:
                raise ValueError("an oximetry report's test_date is on or before the report's date")
        # A therapy record is written after the visits it counts (the weeks are computed from them).
        if self.facts.therapy_last_visit is not None and self.facts.therapy_last_visit > self.date:
            raise ValueError("a therapy record's therapy_last_visit is on or before the record's date")
        return self


class AccidentSpec(CaseModel):
    """An accident or injury registration recorded for the patient (the Coverage tab's Accident / injury
    panel): what the claims for it are billed under. A workers' compensation claim (`kind` Employment)
    names the employer, the carrier and its claim number; a closed one its closing day."""

    key: Key
    kind: Literal["Employment", "Auto", "Other"]
    injury_date: date
    description: str = Field(min_length=1, description="how the injury happened, as registration recorded it")
    employer: str | None = None
    carrier: str | None = None
    claim_number: str | None = None
    status: Literal["Open", "Closed"] = "Open"
    closed_on: date | None = None

    @model_validator(mode="after")
    def _closed_has_a_day(self):
        if (self.status == "Closed") != (self.closed_on is not None):
            raise ValueError("a Closed accident record (and only one) gives closed_on")
        if self.closed_on is not None and self.closed_on < self.injury_date:
            raise ValueError("closed_on is before injury_date")
        return self


class EnrollmentSpec(CaseModel):
    """A clinician's enrollment (credentialing) with a payer, as the practice's credentialing record
    and the payer's network directory hold it. A clinician the case lists here is enrolled with no
    payer the case does not list (a new clinician); every other clinician participates with every
    payer. `received_on` is the day the payer logged the complete application (the payer's rules
    date participation from it); `effective` is the participation date the payer's directory and its
    welcome letter give (the day the record was loaded), set once the status is Participating."""

    provider: str = Field(pattern=r"^\d{10}$", description="the clinician's NPI")
    payer: str = Field(description="payer id, e.g. PYR-NWH")
    submitted_on: date = Field(description="the day the practice's credentialing team sent the application")
    received_on: date | None = Field(default=None, description="the day the payer logged the complete application")
    status: Literal["Participating", "In process", "Denied"]
    effective: date | None = None
    welcome_letter_on: date | None = None

    @model_validator(mode="after")
    def _dates_follow_the_application(self):
        if (self.status == "Participating") != (self.effective is not None):
            raise ValueError("a Participating enrollment (and only one) gives effective")
        if self.received_on is not None and self.received_on < self.submitted_on:
            raise ValueError("received_on is before submitted_on")
        if self.effective is not None and (self.received_on is None or self.effective < self.received_on):
            raise ValueError("effective needs received_on and is on or after it")
        if self.welcome_letter_on is not None and (self.effective is None or self.welcome_letter_on < self.effective):
            raise ValueError("a welcome letter follows the effective date of a Participating enrollment")
        return self


class SiteSpec(CaseModel):
    """A facility outside the health system that an order may send a service to (its `facility`), as
    the payers' facility directories list it: where it is, the services it performs (portal A's directory
    services), its next open appointment, and the payers it is in network with (with no other)."""

    id: str = Field(pattern=r"^EXT-[A-Z0-9]{2,8}$")
    name: str = Field(min_length=3)
    npi: str = Field(pattern=r"^\d{10}$", description="the site's organisational NPI")
    address: str
    city: str
    zip: str = Field(pattern=r"^\d{5}$")
    place_of_service: str = Field(default="22", pattern=r"^\d{2}$")
    services: list[str] = Field(min_length=1)
    next_available: date | None = Field(default=None, description="the next open appointment the site reports; "
                                                                  "default: 2 to 10 days out, from its NPI")
    networks: list[str] = Field(min_length=1, description="payer ids whose network it is in")


class RequestOnFileSpec(CaseModel):
    """A prior-auth request already at the payer, with its determination."""

    key: Key
    order: Key
    status: Literal["Approved", "Pended", "Denied", "Cancelled"]
    start: date | None = Field(default=None, description="default: 3 days before the order's planned date")
    end: date | None = Field(default=None, description="default: 90 days after the start")
    units: int | None = Field(default=None, ge=1)
    recorded: bool = Field(default=False, description="the desk already recorded this approval on the open order "
                                                      "(status, numbers, units, dates); a completed order's always is")
    delivered: date | None = Field(default=None, description="DME: the day the supplier delivered the approved "
                                                             "equipment (its useful lifetime counts from it)")
    # A modified (partial) approval: the payer approved fewer units, or another code, than the office asked for.
    approved_units: int | None = Field(default=None, ge=1, description="fewer units than requested were approved")
    approved_code: str | None = Field(default=None, description="the code the payer approved in place of the "
                                                                "requested one (e.g. 72148 for a requested 72158)")

    @model_validator(mode="after")
    def _only_an_approval_is_recorded(self):
        if self.recorded and self.status != "Approved":
            raise ValueError("only an Approved request is `recorded` on the order")
        modified = self.approved_units is not None or self.approved_code is not None
        if modified and self.status != "Approved":
            raise ValueError("only an Approved request has `approved_units` or `approved_code`")
        if modified and (self.recorded or self.delivered is not None):
            raise ValueError("a modified approval is the office's to work: not `recorded` or `delivered`")
        if self.approved_units is not None and self.units is not None and self.approved_units >= self.units:
            raise ValueError("`approved_units` are fewer than the requested `units`")
        if self.delivered is not None and self.status != "Approved":
            raise ValueError("only an Approved request's equipment is `delivered`")
        return self


class ReferralOnFileSpec(CaseModel):
    """A PCP referral to a specialist already approved at the payer (an HMO's referral on file)."""

    key: Key
    order: Key = Field(description="the specialist visit's order: its ordering clinician is the specialist")
    start: date = Field(description="the first day the referral covers; it is valid 90 days")
    visits: int = Field(default=1, ge=1, le=6)


class DischargeSpec(CaseModel):
    """The patient left the hospital: the day and where to."""

    on: date
    disposition: Literal["Home", "Home with home health", "Skilled nursing facility", "Acute rehabilitation"]


class AdmissionSpec(CaseModel):
    """An inpatient stay. Its `order` (an inpatient care code, e.g. CPT 99223) gives the attending
    (the ordering provider), the hospital (the facility) and the admitting diagnosis (its first
    diagnosis); the EHR shows it as an inpatient encounter holding the stay's documents."""

    order: Key
    admitted_at: datetime
    type: Literal["Emergent", "Urgent", "Elective"]
    unit: str = Field(min_length=1, max_length=32)
    bed: str = Field(min_length=1, max_length=16)
    discharge: DischargeSpec | None = None

    @model_validator(mode="after")
    def _discharged_after_admission(self):
        if self.discharge is not None and self.discharge.on < self.admitted_at.date():
            raise ValueError("discharge.on is before the admission")
        return self


class NotificationOnFileSpec(CaseModel):
    """The admission already notified to the payer: its nurse approved `approved_days` days counted
    from the admit date, with the next review on the day after them (admit date + approved days)."""

    notified_at: datetime
    approved_days: int = Field(ge=1, le=14)
    recorded: bool = Field(default=False, description="the desk already recorded the approval on the stay's "
                                                      "order (case number, days, admit and next review dates)")


AppealLevel = Literal[1, 2, "external"]
# The level each later level needs decided first.
PRIOR_LEVEL: dict[AppealLevel, AppealLevel] = {2: 1, "external": 2}


class AppealOnFileSpec(CaseModel):
    """An appeal already at the payer on one of the case's adjudicated claims, at any stage.

    In review: it waits for a decision (`due_on` defaults to the payer's review time).
    Decided: `decision` and `decided_on` say how it ended; `reason` is what the payer
    wrote (default: a sentence for the decision). A partial overturn names the claim
    lines it paid (`paid_lines`, numbered from 1); a full one pays every unpaid line.
    Only the portal of the claim's payer holds it, as that portal's own appeal rows.
    """

    key: Key
    claim: Key
    level: AppealLevel
    kind: Literal["reconsideration", "formal", "clinical"]
    filed_on: date
    status: Literal["in_review", "decided"]
    due_on: date | None = None
    decision: Literal["upheld", "overturned", "partially_overturned"] | None = None
    decided_on: date | None = None
    reason: str | None = Field(default=None, min_length=1)
    paid_lines: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _stage_is_consistent(self):
        decided = self.status == "decided"
        for name in ("decision", "decided_on"):
            if decided and getattr(self, name) is None:
                raise ValueError(f"a decided appeal has a `{name}`")
            if not decided and getattr(self, name) is not None:
                raise ValueError(f"an appeal in review has no `{name}` (set status: decided)")
        if not decided and self.reason is not None:
            raise ValueError("an appeal in review has no decision `reason`")
        if self.decided_on is not None and self.decided_on < self.filed_on:
            raise ValueError("decided_on is before filed_on")
        if self.due_on is not None and self.due_on < self.filed_on:
            raise ValueError("due_on is before filed_on")
        if self.kind == "reconsideration" and self.level != 1:
            raise ValueError("a reconsideration is a level 1 request; choose formal or clinical for later levels")
        if self.level == "external" and self.kind != "clinical":
            raise ValueError("an external review is a clinical (medical necessity) appeal")
        if (self.decision == "partially_overturned") != bool(self.paid_lines):
            raise ValueError("a partially overturned appeal (and only one) names the `paid_lines` it paid")
        if any(line < 1 for line in self.paid_lines) or len(set(self.paid_lines)) != len(self.paid_lines):
            raise ValueError("paid_lines are distinct claim line numbers, from 1")
        return self


class PayerHistorySpec(CaseModel):
    """What the payer already holds about this patient beyond enrollment."""

    requests: list[RequestOnFileSpec] = Field(default_factory=list)
    appeals: list[AppealOnFileSpec] = Field(default_factory=list)
    referrals: list[ReferralOnFileSpec] = Field(default_factory=list)
    notification: NotificationOnFileSpec | None = Field(default=None, description="the case's admission, "
                                                        "notified to the payer of the stay's order")


class AdjustmentSpec(CaseModel):
    """One CAS adjustment: group code, CARC, optional RARC; amount defaults to the unpaid rest."""

    group: Literal["CO", "PR", "OA", "PI"]
    carc: str
    rarc: str | None = None
    amount: float | None = Field(default=None, ge=0)


class ClaimLineSpec(CaseModel):
    """A service line; diagnoses default to the claim's order's."""

    code: str
    units: int = Field(default=1, ge=1)
    modifiers: list[str] = Field(default_factory=list)
    charge: float = Field(gt=0)
    paid: float = Field(default=0.0, ge=0)
    diagnoses: list[str] | None = None
    adjustments: list[AdjustmentSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _paid_within_charge(self):
        if self.paid > self.charge:
            raise ValueError("paid is more than the charge")
        return self


class RemittanceSpec(CaseModel):
    """The remittance (ERA/EOB); the appeal deadline defaults to the payer's filing limit.
    Paid amount and patient responsibility follow from the claim's lines."""

    paid_on: date
    appeal_deadline: date | None = None


class RecoupmentSpec(CaseModel):
    """The payer's post-payment review: it found the claim paid twice (the same service as
    the case's claim `duplicate_of`, paid earlier) and will take its payment back by offset
    unless the office disputes by the notice's deadline. `payer_error`: the payer is wrong on
    purpose (the two claims are different services), a mistake for the office to catch."""

    duplicate_of: Key
    notice_on: date
    payer_error: bool = False


class CountedVisitSpec(CaseModel):
    """A visit the payer's benefit accumulator counts: its date of service, the code it applied and,
    for a visit of another provider, that provider's name (left out: this practice's visit)."""

    service_date: date
    code: str = "97110"
    provider: str | None = None


class BenefitLimitSpec(CaseModel):
    """The visit limit a therapy claim ran into, as the payer's benefit accumulator shows it:
    `visits_allowed` per benefit period (a year from `period_start`), and the visits it counted
    before this claim (`counted`, at least the limit). `payer_error`: on purpose, some counted
    visits do not belong in the period's count (another plan year, the same date twice), so
    the limit was not reached: a mistake for the office to catch."""

    benefit: str = "Outpatient rehabilitation (PT/OT/ST combined)"
    visits_allowed: int = Field(ge=1)
    period_start: date
    counted: list[CountedVisitSpec] = Field(min_length=1)
    payer_error: bool = False

    @model_validator(mode="after")
    def _accumulator_says_limit_reached(self):
        if len(self.counted) < self.visits_allowed:
            raise ValueError("counted: a benefit-limit denial counts at least visits_allowed visits")
        return self


class ClaimSubmissionSpec(CaseModel):
    """One transmission of the claim through the clearinghouse, with the acknowledgement report
    that came back (case document `report`, of type clearinghouse_report, dated the transmission
    day). The clearinghouse accepts every file it can read (999); `rejection` is the payer front
    end's 277CA rejection (status category:code and its text): a rejected claim never reached
    adjudication, so its report proves no filing. Without it the payer accepted the claim."""

    report: Key
    transmitted_on: date
    rejection: str | None = Field(default=None, min_length=1)
    note: str | None = Field(default=None, min_length=1, description="why the desk transmitted it (resubmission)")


class ClaimSpec(CaseModel):
    """A claim as the payer adjudicated it. `auth` names a request on file whose number
    the claim carries; leave it out for a claim sent without one."""

    key: Key
    order: Key | None = None
    coverage: Key
    service_date: date
    submitted_on: date
    status: Literal["Paid", "Denied", "Partially Paid", "Pending"]
    auth: Key | None = None
    lines: list[ClaimLineSpec] = Field(min_length=1)
    remittance: RemittanceSpec | None = None
    # Payment posting flagged a paid claim for review (the EHR's Denials queue gets an item).
    payment_review: bool = False
    # The payer allowed a line below its published contract on purpose: an underpayment to find.
    underpaid: bool = False
    # The payer noticed an overpayment and will recover this claim's payment.
    recoupment: RecoupmentSpec | None = None
    # The payer denied the claim CO-27 (coverage ended) although its own enrollment record covers
    # the date of service, on purpose: a mistake for the office to catch.
    eligibility_error: bool = False
    # The payer denied the claim's visit as over the plan's visit limit (CARC 119).
    benefit_limit: BenefitLimitSpec | None = None
    # The claim's clearinghouse history, oldest first; the last transmission is the one the payer
    # received (`submitted_on`), so the payer accepted it.
    submissions: list[ClaimSubmissionSpec] = Field(default_factory=list)
    # The office has no answer from the payer 45+ days after billing (accounts-receivable
    # follow-up: the EHR's Denials queue holds an item): the chart holds the claim as pending with
    # no remittance, whatever the payer did. `status` and `remittance` are the payer's side: Pending
    # (still in process, or `at_payer` false: never received), or adjudicated with a remittance the
    # office has not posted (in transit, or posted to another claim).
    no_response: bool = False
    at_payer: bool = True

    @model_validator(mode="after")
    def _an_unanswered_claim_is_pending_or_remitted(self):
        if not self.at_payer and not (self.no_response and self.status == "Pending"):
            raise ValueError("at_payer false: only an unanswered (no_response) Pending claim is missing at the payer")
        if self.no_response and (self.status == "Pending") != (self.remittance is None):
            raise ValueError("no_response: a Pending claim has no remittance, an adjudicated one has its remittance")
        return self

    @model_validator(mode="after")
    def _submissions_end_with_the_received_claim(self):
        days = [s.transmitted_on for s in self.submissions]
        if days != sorted(days) or (days and days[0] < self.service_date):
            raise ValueError("submissions: oldest first, none before the service date")
        if self.submissions and (days[-1] != self.submitted_on or self.submissions[-1].rejection is not None):
            raise ValueError("submissions: the last one is the claim the payer received (transmitted_on is "
                             "submitted_on) and accepted (no rejection)")
        return self

    @model_validator(mode="after")
    def _only_paid_claims_are_reviewed_for_payment(self):
        if (self.payment_review or self.underpaid or self.recoupment) and self.status not in ("Paid", "Partially Paid"):
            raise ValueError("payment_review, underpaid and recoupment are for a paid claim")
        if self.recoupment and (self.remittance is None or self.recoupment.notice_on <= self.remittance.paid_on):
            raise ValueError("a recoupment notice follows the claim's payment (recoupment.notice_on after "
                             "remittance.paid_on)")
        return self

    @model_validator(mode="after")
    def _eligibility_error_is_a_co27_denial(self):
        carcs = {a.carc for line in self.lines for a in line.adjustments}
        if self.eligibility_error and (self.status != "Denied" or "27" not in carcs):
            raise ValueError("eligibility_error is for a claim denied CO-27")
        return self

    @model_validator(mode="after")
    def _pending_has_no_remittance(self):
        if (self.status == "Pending") == (self.remittance is not None):
            raise ValueError("a Pending claim has no remittance; an adjudicated claim has one")
        return self


class FaxSpec(CaseModel):
    """A fax in the inbox. `about` makes it the payer's letter on a request on file
    (pages written by the world's fax generator); otherwise give `from_name` (the sending
    organization, as its pages name it), `from_number` and `pages`, or a `supplier` for an
    order confirmation. `csid` is the station id the sending machine transmits (what the fax
    server shows beside the caller's number): set by the sender, terse, stale or blank ("");
    left out, the world's rule for that sender (blank for a `from_number` fax). The fax server
    knows no subject: what a fax is about is on its pages."""

    key: Key
    received_at: datetime
    about: Key | None = None
    supplier: str | None = None
    order: Key | None = None
    from_name: str | None = None
    from_number: str | None = Field(default=None, pattern=r"^\d{10}$")
    csid: str | None = Field(default=None, max_length=20)
    kind: Literal["determination_letter", "request_for_information", "supplier_confirmation", "misc"] = "misc"
    pages: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_source(self):
        sources = [self.about is not None, self.supplier is not None, self.from_number is not None]
        if sum(sources) != 1:
            raise ValueError("a fax is `about` a request on file, from a `supplier`, or from a `from_number`")
        if self.from_number is not None and not (self.from_name and self.pages):
            raise ValueError("a fax from a `from_number` needs `from_name` and `pages`")
        if self.supplier is not None and self.order is None:
            raise ValueError("a supplier's confirmation names the `order` it confirms")
        return self


class Case(CaseModel):
    """A task's situation. Keys name parts within the case; references must resolve."""

    slot: int | None = Field(default=None, ge=0, lt=SLOTS,
                             description="the four-digit id slot (admindesk/schema/case_ids.py); default: from the task id. "
                                         "Generated splits set it so that no two of their cases share ids")
    patient: PatientSpec
    lookalikes: list[LookalikeSpec] = Field(default_factory=list)
    coverages: list[CoverageSpec] = Field(min_length=1)
    orders: list[OrderSpec] = Field(default_factory=list)
    documents: list[DocumentSpec] = Field(default_factory=list)
    payer_history: PayerHistorySpec = Field(default_factory=PayerHistorySpec)
    claims: list[ClaimSpec] = Field(default_factory=list)
    faxes: list[FaxSpec] = Field(default_factory=list)
    admission: AdmissionSpec | None = None
    accidents: list[AccidentSpec] = Field(default_factory=list)
    enrollments: list[EnrollmentSpec] = Field(default_factory=list)
    sites: list[SiteSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_resolve(self):
        coverages = _keys("coverages", self.coverages)
        orders = _keys("orders", self.orders)
        documents = _keys("documents", self.documents)
        requests = _keys("payer_history.requests", self.payer_history.requests)
        _keys("claims", self.claims)
        _keys("faxes", self.faxes)
        _keys("accidents", self.accidents)
        for index, lookalike in enumerate(self.lookalikes):
            if not lookalike.model_fields_set - {"sex"}:
                raise ValueError(f"lookalikes.{index}: change at least the name, suffix or dob")
        _refer("orders", "coverage", self.orders, coverages)
        _refer("documents", "order", self.documents, orders)
        _refer("documents", "corrects", self.documents, documents)
        _refer("documents", "contradicts", self.documents, documents)
        _refer("documents", "coverage", self.documents, coverages)
        _unregistered_coverage_is_carded(self)
        _refer("payer_history.requests", "order", self.payer_history.requests, orders)
        _refer("claims", "coverage", self.claims, coverages)
        _refer("claims", "order", self.claims, orders)
        _refer("claims", "auth", self.claims, requests)
        _refer("faxes", "about", self.faxes, requests)
        _refer("faxes", "order", self.faxes, orders)
        _reports_are_their_submissions(self)
        _appeals_follow_their_claims(self.payer_history.appeals, {c.key: c for c in self.claims})
        _recoupments_name_an_earlier_claim(self.claims)
        _admission_holds_its_documents(self)
        return self


def _unregistered_coverage_is_carded(case: Case) -> None:
    """A coverage registration does not hold is known to the desk only by its card in the chart, and
    nothing is billed to it yet: no order or claim names it, and the case keeps one registered."""
    registered = {c.key for c in case.coverages if c.registered}
    if not registered:
        raise ValueError("coverages: registration holds at least one of them (`registered: false` on all)")
    carded = {d.coverage for d in case.documents if d.type == "insurance_card"}
    for index, coverage in enumerate(case.coverages):
        if not coverage.registered and coverage.key not in carded:
            raise ValueError(f"coverages.{index}.registered: an unregistered coverage has its insurance_card in "
                             "the documents")
    for section, parts in (("orders", case.orders), ("claims", case.claims)):
        for index, part in enumerate(parts):
            if part.coverage not in registered:
                raise ValueError(f"{section}.{index}.coverage: {part.coverage!r} is not registered yet")


def _reports_are_their_submissions(case: Case) -> None:
    """Each claim submission's report is a clearinghouse_report of the case dated its transmission,
    and each such report is one submission's."""
    reports = {d.key: d for d in case.documents if d.type == "clearinghouse_report"}
    named = []
    for c_index, claim in enumerate(case.claims):
        for s_index, submission in enumerate(claim.submissions):
            field = f"claims.{c_index}.submissions.{s_index}.report"
            doc = reports.get(submission.report)
            if doc is None:
                raise ValueError(f"{field}: no clearinghouse_report document {submission.report!r} in this case")
            if doc.date != submission.transmitted_on:
                raise ValueError(f"{field}: the report is dated its transmission day, {submission.transmitted_on}")
            named.append(submission.report)
    for key in reports:
        if named.count(key) != 1:
            raise ValueError(f"documents: the clearinghouse report {key!r} is the report of exactly one claim submission")


def _admission_holds_its_documents(case: Case) -> None:
    """The admission's order exists; hospital documents need an admission and fall within the stay;
    a notification on file needs an admission and follows it."""
    admission = case.admission
    if admission is not None and admission.order not in {o.key for o in case.orders}:
        raise ValueError(f"admission.order: no {admission.order!r} in this case")
    for index, doc in enumerate(case.documents):
        if doc.type not in HOSPITAL_DOCUMENTS:
            continue
        if admission is None:
            raise ValueError(f"documents.{index}.type: a {doc.type} belongs to the case's `admission`")
        last = admission.discharge.on if admission.discharge else None
        if doc.date < admission.admitted_at.date() or (last is not None and doc.date > last):
            raise ValueError(f"documents.{index}.date: outside the admission")
    notification = case.payer_history.notification
    if notification is not None:
        if admission is None:
            raise ValueError("payer_history.notification: a notification is of the case's `admission`")
        if notification.notified_at < admission.admitted_at:
            raise ValueError("payer_history.notification.notified_at: is before the admission")


def _keys(section: str, parts: list) -> set[str]:
    seen: set[str] = set()
    for index, part in enumerate(parts):
        if part.key in seen:
            raise ValueError(f"{section}.{index}.key: {part.key!r} is used twice")
        seen.add(part.key)
    return seen


def _refer(section: str, field: str, parts: list, known: set[str]) -> None:
    for index, part in enumerate(parts):
        value = getattr(part, field)
        if value is not None and value not in known:
            choices = ", ".join(sorted(known)) or "none defined"
            raise ValueError(f"{section}.{index}.{field}: no {value!r} in this case (known: {choices})")


def _recoupments_name_an_earlier_claim(claims: list[ClaimSpec]) -> None:
    """A recoupment's `duplicate_of` is another paid claim of the case, submitted earlier."""
    by_key = {claim.key: claim for claim in claims}
    for index, claim in enumerate(claims):
        if claim.recoupment is None:
            continue
        field = f"claims.{index}.recoupment.duplicate_of"
        other = by_key.get(claim.recoupment.duplicate_of)
        if other is None or other is claim:
            raise ValueError(f"{field}: name another claim of this case (known: {', '.join(sorted(by_key))})")
        if other.status not in ("Paid", "Partially Paid") or other.submitted_on >= claim.submitted_on:
            raise ValueError(f"{field}: claim {other.key!r} must be paid and submitted before {claim.key!r}")


def _appeals_follow_their_claims(appeals: list[AppealOnFileSpec], claims: dict[str, ClaimSpec]) -> None:
    """Each appeal is on an adjudicated claim of the case, after its remittance, and in level
    order: a later level only after the level below was decided (not overturned in full),
    one appeal per level and at most one in review per claim, the open one the last."""
    section = "payer_history.appeals"
    _keys(section, appeals)
    _refer(section, "claim", appeals, set(claims))
    by_claim: dict[str, dict] = {}
    for index, appeal in enumerate(appeals):
        field = f"{section}.{index}"
        claim = claims[appeal.claim]
        if claim.remittance is None:
            raise ValueError(f"{field}.claim: claim {appeal.claim!r} is Pending; only an adjudicated claim is appealed")
        if appeal.filed_on < claim.remittance.paid_on:
            raise ValueError(f"{field}.filed_on: is before the remittance of claim {appeal.claim!r} "
                             f"({claim.remittance.paid_on})")
        if any(line > len(claim.lines) for line in appeal.paid_lines):
            raise ValueError(f"{field}.paid_lines: claim {appeal.claim!r} has {len(claim.lines)} line(s)")
        levels = by_claim.setdefault(appeal.claim, {})
        if appeal.level in levels:
            raise ValueError(f"{field}.level: claim {appeal.claim!r} already has a level {appeal.level} appeal")
        levels[appeal.level] = (index, appeal)
    for levels in by_claim.values():
        for level, (index, appeal) in levels.items():
            field = f"{section}.{index}"
            if level not in PRIOR_LEVEL:
                continue
            below = levels.get(PRIOR_LEVEL[level])
            if below is None or below[1].status != "decided":
                raise ValueError(f"{field}.level: a level {level} appeal needs a decided level "
                                 f"{PRIOR_LEVEL[level]} appeal on claim {appeal.claim!r}")
            if below[1].decision == "overturned":
                raise ValueError(f"{field}.level: {below[1].key!r} overturned the denial in full; "
                                 "there is nothing left to appeal")
            if appeal.filed_on < below[1].decided_on:
                raise ValueError(f"{field}.filed_on: is before the level {PRIOR_LEVEL[level]} decision "
                                 f"({below[1].decided_on})")
