"""Keystone Mutual's DME request evaluation, from the stored DME requirements.

Checked in order, first match decides:

1. Duplicate (same or similar equipment): an Approved or Pended DME request, or a
   precertification on file, for the subscriber and a code of the same medical policy
   (E0601 and E0470 are both PAP devices), dated (delivered, when the supplier delivered it)
   within the equipment's 5-year reasonable useful lifetime before the order date. An older
   one does not block a new request.
2. Denied: coverage not active on the order date.
3. Denied: no diagnosis code under the policy's covered diagnoses.
4. Denied: the face-to-face evaluation is more than `face_to_face_days` (6 months)
   before the order date.
5. Qualifying test: value missing -> Pended; then the clinical criteria of the
   requirement's `clinical_rule` (dme_clinical.py: PAP sleep test and comorbidities,
   oxygen Group I at rest / with exertion and Group II) -> Denied quoting the failed one.
   Oxygen also needs the test's date, performer and setting (pended without them), and
   denies a supplier's test, one outside chronic stable state or one more than 30 days
   before the order date; Group II is pended until clinical notes (documenting the Group II
   finding) are attached, and approved for 3 months (retest between day 61 and day 90).
   A PAP continued-coverage request skips the duplicate check (it continues an approved
   trial) and is decided on the trial's re-evaluation visit and adherence (dme_clinical.py),
   pended until the adherence report is attached.
   A hospital bed (`clinical_rule: bed`) needs its qualifying condition (and, semi-electric,
   the need for position changes): pended without them, denied when none is documented.
   A replacement (modifier RA) of equipment Keystone approved and the supplier delivered
   skips the duplicate check and the qualifying test (the item qualified when first
   approved). Its reasonable useful lifetime is 5 years from the delivery date (not the
   order date): before it ends on the planned replacement delivery, only loss, theft or
   irreparable damage from a specific incident is covered (wear and tear is repaired, not
   replaced: "useful lifetime ended" is denied), pended until the police, fire or
   insurance report or the supplier's statement of irreparable damage is attached; after
   it, the new order needs a face-to-face evaluation within 6 months (rule 4).
6. Pended: a document type the policy requires (besides the detailed written order,
   which the form itself requires) is not attached.
7. Approved for the requirement's rental months (0 = purchase). A non-contracted supplier
   is refused on an HMO plan (no out-of-network DME benefit) and processed out of network
   on the other plans (see views/dme.py, which records `supplier_network`).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import DmeRequest, DmeRequirement, MedicalPolicy, PrecertRequest, Subscriber
from admindesk.envs.payer_portal_b.rules.dme_bed import bed_problem
from admindesk.envs.payer_portal_b.rules.dme_clinical import (
    GROUP_II_MONTHS,
    GROUP_II_RETEST,
    oxygen_group,
    oxygen_problem,
    oxygen_test_problem,
    pap_continued_problem,
    pap_initial_problem,
)
from admindesk.envs.payer_portal_b.rules.precert_determination import ACTIVE_STATUSES, diagnosis_covered

TEST_LABELS = {"ahi": "Apnea-Hypopnea Index (AHI)", "spo2_rest": "Resting SpO2 (%)"}
_OPERATORS = {">=": operator.ge, "<=": operator.le}
SAME_OR_SIMILAR_YEARS = 5
PAP_CONTINUED_MONTHS = 10  # the rest of the 13-month rental after the 3-month trial
ADHERENCE_REPORT = "PAP adherence report"
GROUP_II_NOTES = "Clinical notes"
USEFUL_LIFETIME_YEARS = 5
LIFETIME_ENDED = "Reasonable useful lifetime ended"
INCIDENT_REPORT = "Loss, theft or damage report"


@dataclass(frozen=True)
class DmeSubmission:
    """The facts of a DME request the evaluation looks at."""

    subscriber_id: str
    hcpcs_code: str
    diagnosis_codes: tuple[str, ...]
    face_to_face_date: date
    order_date: date
    test_values: dict
    document_types: frozenset[str]
    # Clinical facts: sleep_test_date, comorbidities, spo2_exertion, spo2_on_oxygen, pao2,
    # oxygen_conditions, hematocrit, oxygen_test_date, oxygen_test_by, oxygen_test_state; continued coverage: device_setup_date, adherence_start, nights_4h;
    # hospital bed: bed_indication, bed_position_changes.
    clinical: dict = field(default_factory=dict)
    request_kind: str = "Initial"
    # A replacement: the delivery date of the item replaced (from Keystone's own request on file).
    prior_delivered_on: date | None = None


@dataclass(frozen=True)
class DmeDecision:
    """Status, its reason, and the approved rental months when approved."""

    status: str
    reason: str
    approved_months: int | None = None


def requirement_text(requirement: DmeRequirement) -> str:
    """The qualifying test in words, e.g. 'Apnea-Hypopnea Index (AHI) >= 15'."""
    if not requirement.test_field:
        return "No qualifying test value"
    return f"{TEST_LABELS[requirement.test_field]} {requirement.test_operator} {requirement.test_threshold:g}"


def useful_lifetime_end(delivered: date) -> date:
    """The day the equipment's reasonable useful lifetime ends: 5 years after its delivery."""
    if delivered.month == 2 and delivered.day == 29:
        return date(delivered.year + USEFUL_LIFETIME_YEARS, 3, 1)
    return delivered.replace(year=delivered.year + USEFUL_LIFETIME_YEARS)


def _replacement_decision(submission: DmeSubmission) -> DmeDecision | None:
    """A replacement's lifetime and incident rule; None when the general checks decide."""
    facts, delivered = submission.clinical, submission.prior_delivered_on
    end = useful_lifetime_end(delivered)
    if facts["replacement_date"] >= end:
        return None
    if facts["replacement_reason"] == LIFETIME_ENDED:
        return DmeDecision("Denied", f"The reasonable useful lifetime of the equipment delivered on "
                           f"{delivered.strftime(DATE_FORMAT)} runs until {end.strftime(DATE_FORMAT)}. Before then a "
                           "replacement is covered only for loss, theft or irreparable damage from a specific "
                           "incident; wear and tear is repaired, not replaced.")
    if INCIDENT_REPORT not in submission.document_types:
        return DmeDecision("Pended", f"Pended for documentation. Upload: {INCIDENT_REPORT} (the police, fire or "
                           "insurance report, or the supplier's statement of irreparable damage).")
    return None


def same_or_similar_on_file(session: Session, submission: DmeSubmission,
                            requirement: DmeRequirement) -> str | None:
    """The DME request or precertification on file that makes this one a duplicate, named."""
    similar = list(session.scalars(select(DmeRequirement.code).where(
        DmeRequirement.policy_number == requirement.policy_number)))
    since = submission.order_date - timedelta(days=365 * SAME_OR_SIMILAR_YEARS)
    request = session.scalars(
        select(DmeRequest).where(DmeRequest.subscriber_id == submission.subscriber_id,
                                 DmeRequest.hcpcs_code.in_(similar), DmeRequest.status.in_(ACTIVE_STATUSES),
                                 func.coalesce(DmeRequest.delivered_on, DmeRequest.order_date) >= since)
        .order_by(DmeRequest.request_id)).first()
    if request is not None:
        return f"DME request {request.request_id} ({request.status}, {request.hcpcs_code})"
    precert = session.scalars(
        select(PrecertRequest).where(PrecertRequest.subscriber_id == submission.subscriber_id,
                                     PrecertRequest.service_code.in_(similar),
                                     PrecertRequest.status.in_(ACTIVE_STATUSES),
                                     PrecertRequest.end_date >= since)
        .order_by(PrecertRequest.reference_number)).first()
    if precert is not None:
        return f"Precertification {precert.reference_number} ({precert.status}, {precert.service_code})"
    return None


def evaluate(session: Session, submission: DmeSubmission, subscriber: Subscriber,
             requirement: DmeRequirement) -> DmeDecision:
    """Apply the rules in the module docstring, in order."""
    policy = session.get(MedicalPolicy, requirement.policy_number)
    if submission.request_kind == "Continued coverage":
        facts = submission.clinical
        problem = pap_continued_problem(facts["device_setup_date"], facts["adherence_start"], facts["nights_4h"],
                                        submission.face_to_face_date, clock.today())
        if problem is not None:
            return DmeDecision("Denied", f"Continued coverage denied: {problem}")
        if ADHERENCE_REPORT not in submission.document_types:
            return DmeDecision("Pended", f"Pended for documentation. Upload: {ADHERENCE_REPORT} (the device's "
                               "nightly usage download).")
        return DmeDecision("Approved", f"Adherence meets medical policy {policy.policy_number}; continued coverage "
                           f"approved for {PAP_CONTINUED_MONTHS} more rental months.", PAP_CONTINUED_MONTHS)
    replacement = submission.request_kind == "Replacement"
    decision = _replacement_decision(submission) if replacement else None
    if decision is not None:
        return decision
    duplicate = None if replacement else same_or_similar_on_file(session, submission, requirement)
    if duplicate is not None:
        return DmeDecision("Duplicate", f"{duplicate} is already on file for this subscriber and the same or "
                           f"similar equipment (policy {requirement.policy_number}) within "
                           f"{SAME_OR_SIMILAR_YEARS} years. No new request was opened.")
    if not subscriber.active_on(submission.order_date):
        return DmeDecision("Denied", "Subscriber coverage is not active on the order date "
                           f"{submission.order_date.strftime(DATE_FORMAT)}.")
    if not diagnosis_covered(policy, submission.diagnosis_codes):
        return DmeDecision("Denied", f"The diagnosis codes {', '.join(submission.diagnosis_codes)} are not covered "
                           f"indications under medical policy {policy.policy_number}.")
    earliest = submission.order_date - timedelta(days=requirement.face_to_face_days)
    if submission.face_to_face_date < earliest:
        return DmeDecision("Denied", f"The face-to-face evaluation on {submission.face_to_face_date.strftime(DATE_FORMAT)} "
                           "is more than 6 months before the order date.")
    if replacement:
        months = requirement.rental_months
        term = f"a {months}-month rental" if months else "purchase"
        return DmeDecision("Approved", f"Replacement ({submission.clinical['replacement_reason']}) meets medical "
                           f"policy {policy.policy_number}; approved for {term}, billed with modifier RA.",
                           approved_months=months)
    if requirement.clinical_rule == "bed":
        problem = bed_problem(submission.hcpcs_code, submission.clinical.get("bed_indication"),
                              submission.clinical.get("bed_position_changes"))
        if problem == "missing":
            return DmeDecision("Pended", "Hospital bed: the qualifying condition is required, and for a semi-electric "
                               "bed whether frequent or immediate changes in body position are needed.")
        if problem is not None:
            return DmeDecision("Denied", problem)
    if requirement.test_field:
        value = submission.test_values.get(requirement.test_field)
        problem = _clinical_problem(requirement, submission, value)
        if problem == "missing":
            return DmeDecision("Pended", f"Qualifying test result required: {requirement_text(requirement)}"
                               + (", with the test date, who performed it and the member's state at testing."
                                  if requirement.clinical_rule == "oxygen" else "."))
        if problem is not None:
            return DmeDecision("Denied", problem)
    missing = [kind for kind in policy.required_document_types if kind not in submission.document_types]
    group = oxygen_group({**submission.test_values, **submission.clinical}) if requirement.clinical_rule == "oxygen" \
        else None
    if group == "II" and GROUP_II_NOTES not in submission.document_types:
        missing.append(f"{GROUP_II_NOTES} (documenting the Group II finding)")
    if missing:
        return DmeDecision("Pended", f"Pended for documentation. Upload: {', '.join(missing)}.")
    if group == "II":
        return DmeDecision("Approved", f"Meets medical policy {policy.policy_number} under Group II; approved for a "
                           f"{GROUP_II_MONTHS}-month rental. Continued coverage needs a retest and a re-evaluation by "
                           f"the treating practitioner between day {GROUP_II_RETEST[0]} and day {GROUP_II_RETEST[1]}.",
                           approved_months=GROUP_II_MONTHS)
    months = requirement.rental_months
    term = f"a {months}-month rental" if months else "purchase"
    return DmeDecision("Approved", f"Meets medical policy {policy.policy_number}; approved for {term}.",
                       approved_months=months)


def _clinical_problem(requirement: DmeRequirement, submission: DmeSubmission, value) -> str | None:
    """The failed criterion, "missing" when the qualifying value is not given, or None."""
    facts = {**submission.test_values, **submission.clinical}
    if requirement.clinical_rule == "oxygen":
        given = [facts.get(key) for key in ("spo2_rest", "spo2_exertion", "pao2")]
        test = [facts.get(key) for key in ("oxygen_test_date", "oxygen_test_by", "oxygen_test_state")]
        if all(v is None for v in given) or not all(test):
            return "missing"
        return oxygen_test_problem(*test, submission.order_date) or oxygen_problem(facts)
    if value is None:
        return "missing"
    if requirement.clinical_rule == "pap":
        if facts.get("sleep_test_date") is None:
            return "missing"
        return pap_initial_problem(value, facts.get("comorbidities") or [], submission.face_to_face_date,
                                   facts["sleep_test_date"])
    if not _OPERATORS[requirement.test_operator](value, requirement.test_threshold):
        return f"The qualifying test value {value:g} does not meet the requirement {requirement_text(requirement)}."
    return None
