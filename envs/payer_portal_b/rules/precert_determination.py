"""Keystone Mutual's precertification determinations, computed from the stored policy.

The outcome of a request is a pure function of what was submitted and what is on file:

1. Duplicate: an Approved or Pended request for the same subscriber and service code
   whose dates overlap is already on file; the new request is recorded as "Duplicate".
2. Denied: the subscriber's coverage is not active on the first date of service.
3. Therapy visit limit (rules/therapy_limit.py): a therapy code with visits remaining in the
   member's benefit period is Not Required; past a hard limit it is Denied; past a soft limit
   policy KM-REHAB-801 governs it (its cap of visits and days). Otherwise Not Required: no
   medical policy governs the code.
   A continuation request (one naming the approval it continues) is judged by the drug's
   continuation policy instead of its initial one (rules/continuation.py, KM-RX-520).
4. Denied: none of the diagnosis codes falls under the policy's covered diagnoses
   (prefix match, so "M51" covers "M51.26").
5. The policy's clinical rules are alternatives; each is a list of conditions on the
   clinical fields. One alternative fully met: criteria met. Otherwise, if some
   alternative fails only for lack of an answer: "Pended" naming what is missing;
   else "Denied" for criteria not met.
6. Pended: a drug under the site-of-care policy (KM-RX-510) asked for in a hospital
   outpatient department (place of service 19 or 22) without one of the policy's reasons
   (rules/site_of_care.py).
7. Pended: a required document type is not attached.
8. Approved: units capped at the code's limit (drugs: in billing units, see
   precert_rules.unit_limit), dates capped at `approval_days`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import MedicalPolicy, PolicyCode, PrecertRequest, Subscriber
from admindesk.envs.payer_portal_b.rules.continuation import continuation_policy
from admindesk.envs.payer_portal_b.rules.genetic_testing import HEREDITARY_CRITERIA
from admindesk.envs.payer_portal_b.rules.precert_rules import unit_limit
from admindesk.envs.payer_portal_b.rules.site_of_care import site_of_care_problem
from admindesk.envs.payer_portal_b.rules.step_therapy import CONVENTIONAL_AGENTS, PREFERRED_BIOLOGICS, STEP_EXCEPTIONS
from admindesk.envs.payer_portal_b.rules.therapy_limit import VISIT_LIMIT_POLICY, visit_limit

ACTIVE_STATUSES = ("Approved", "Pended")
# The answer lists a policy condition names (`one_of:` in data/policies.yaml).
NAMED_ANSWERS = {"HEREDITARY_CRITERIA": HEREDITARY_CRITERIA, "CONVENTIONAL_AGENTS": CONVENTIONAL_AGENTS,
                 "PREFERRED_BIOLOGICS": PREFERRED_BIOLOGICS, "STEP_EXCEPTIONS": STEP_EXCEPTIONS}


@dataclass(frozen=True)
class Determination:
    """The outcome of a request and, when approved, what was approved."""

    status: str
    reason: str
    approved_units: int | None = None
    approved_start: date | None = None
    approved_end: date | None = None
    duplicate_of: str | None = None


@dataclass(frozen=True)
class Submission:
    """What a precertification request asks for (from the form, or a stored request)."""

    subscriber_id: str
    service_code: str
    units: int
    diagnosis_codes: tuple[str, ...]
    start_date: date
    end_date: date
    clinical: dict = field(default_factory=dict)
    document_types: frozenset[str] = frozenset()
    place_of_service: str | None = None
    received_on: date | None = None  # when the payer received the request (None: its first date of service)


def policy_for_code(session: Session, code: str) -> MedicalPolicy | None:
    """The medical policy governing `code`, or None when no precertification is required."""
    link = session.get(PolicyCode, code)
    return session.get(MedicalPolicy, link.policy_number) if link else None


def find_duplicate(session: Session, submission: Submission, exclude: str | None = None) -> PrecertRequest | None:
    """An active request on file for the same subscriber, code and overlapping dates."""
    stmt = (select(PrecertRequest)
            .where(PrecertRequest.subscriber_id == submission.subscriber_id,
                   PrecertRequest.service_code == submission.service_code,
                   PrecertRequest.status.in_(ACTIVE_STATUSES),
                   PrecertRequest.start_date <= submission.end_date,
                   PrecertRequest.end_date >= submission.start_date)
            .order_by(PrecertRequest.submitted_at, PrecertRequest.reference_number))
    if exclude:
        stmt = stmt.where(PrecertRequest.reference_number != exclude)
    return session.scalars(stmt).first()


def diagnosis_covered(policy: MedicalPolicy, codes) -> bool:
    """True when the policy lists no diagnoses or any code starts with a covered prefix."""
    prefixes = policy.covered_diagnoses or []
    return not prefixes or any(code.startswith(prefix) for code in codes for prefix in prefixes)


def _condition_state(condition: dict, clinical: dict) -> str:
    """'met', 'failed' or 'missing' for one condition against the answers given."""
    value = clinical.get(condition["field"])
    if value is None or value == "":
        return "missing"
    if "min" in condition:
        return "met" if float(value) >= condition["min"] else "failed"
    if "max" in condition:
        return "met" if float(value) <= condition["max"] else "failed"
    if "one_of" in condition:
        return "met" if value in NAMED_ANSWERS[condition["one_of"]] else "failed"
    return "met" if value == condition["equals"] else "failed"


def check_clinical_rules(rules: list, clinical: dict) -> tuple[str, str]:
    """('met' | 'missing' | 'failed', explanation) for the policy's alternatives."""
    if not rules:
        return "met", ""
    missing_labels: list[str] = []
    for alternative in rules:
        states = [_condition_state(condition, clinical) for condition in alternative]
        if all(state == "met" for state in states):
            return "met", ""
        if "failed" not in states and not missing_labels:
            missing_labels = [c["label"] for c, s in zip(alternative, states) if s == "missing"]
    if missing_labels:
        return "missing", "; ".join(missing_labels)
    options = [" and ".join(c["label"] for c in alternative) for alternative in rules]
    return "failed", " or ".join(options)


def determine(session: Session, submission: Submission, subscriber: Subscriber,
              exclude: str | None = None) -> Determination:
    """Apply the rules in the module docstring, in order."""
    duplicate = find_duplicate(session, submission, exclude)
    if duplicate is not None:
        return Determination("Duplicate", f"Request {duplicate.reference_number} ({duplicate.status}) is already "
                             "on file for this subscriber, service and dates. No new request was opened.",
                             duplicate_of=duplicate.reference_number)
    if not subscriber.active_on(submission.start_date):
        return Determination("Denied", "Subscriber coverage is not active on the date of service "
                             f"{submission.start_date.strftime(DATE_FORMAT)}.")
    policy = policy_for_code(session, submission.service_code)
    if policy is not None and submission.clinical.get("continuation_of"):
        policy = continuation_policy(session, submission.service_code) or policy
    limit = None if policy else visit_limit(session, submission.subscriber_id, submission.service_code,
                                            submission.start_date)
    if limit is not None:
        if not limit.reached:
            return Determination("Not Required", f"{limit.allowed - limit.applied} of {limit.allowed} therapy visits "
                                 f"remain in the benefit period {limit.period}; precertification is required only for "
                                 f"visits past the limit ({VISIT_LIMIT_POLICY}). Keep this reference number.")
        if limit.limit_type != "Soft":
            return Determination("Denied", f"The benefit period {limit.period} allows {limit.allowed} therapy visits "
                                 f"and {limit.applied} are applied. The member's group has a hard limit: visits past "
                                 f"it are not covered and cannot be precertified ({VISIT_LIMIT_POLICY}).")
        policy = session.get(MedicalPolicy, VISIT_LIMIT_POLICY)
    if policy is None:
        return Determination("Not Required", f"Precertification is not required for {submission.service_code}. "
                             "Keep this reference number for your records.")
    if not diagnosis_covered(policy, submission.diagnosis_codes):
        return Determination("Denied", f"The diagnosis codes {', '.join(submission.diagnosis_codes)} are not "
                             f"covered indications under medical policy {policy.policy_number}.")
    state, detail = check_clinical_rules(policy.clinical_rules, submission.clinical)
    if state == "missing":
        return Determination("Pended", f"Additional clinical information required: {detail}. "
                             "Upload clinical notes that document it.")
    if state == "failed":
        return Determination("Denied", f"Clinical criteria of medical policy {policy.policy_number} are not met: "
                             f"the policy requires {detail}.")
    site_problem = site_of_care_problem(session, submission.service_code, submission.place_of_service,
                                        submission.received_on or submission.start_date,
                                        submission.clinical.get("hospital_site_reason"))
    if site_problem:
        return Determination("Pended", site_problem)
    missing_docs = [kind for kind in policy.required_document_types if kind not in submission.document_types]
    if missing_docs:
        return Determination("Pended", f"Pended for documentation. Upload: {', '.join(missing_docs)}.")
    last_day = min(submission.end_date, submission.start_date + timedelta(days=policy.approval_days - 1))
    most = policy.max_units if limit else unit_limit(session, submission.service_code)[0]
    return Determination("Approved", f"Meets medical policy {policy.policy_number} criteria.",
                         approved_units=min(submission.units, most),
                         approved_start=submission.start_date, approved_end=last_day)
