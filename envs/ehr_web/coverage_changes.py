"""Coverage work: recording an eligibility check, and the order of benefits
(coordination of benefits) the coordinator sets.

Rules (a refused change writes nothing and says why):
- Verification: a coverage terminated before today, or not yet effective, cannot be
  recorded as verified Active today.
- Order of benefits: ranks are 1 (primary), 2 (secondary), 3 (tertiary). Two coverages
  with the same rank cannot be in force on the same date (their effective spans overlap):
  in particular no two primaries (pairs the change does not touch are left as they are).
  A coverage terminated before today cannot be made
  primary, since the rank governs current dates of service.
- Correction (a coverage set to the payer's enrollment: member id, subscriber, the patient's
  relationship to them, effective date): something must change; the member id is not another of
  the patient's registered coverages'; Self names the patient as subscriber and another
  relationship someone else; the effective date is not after the termination date. The
  verification starts over: the corrected coverage has not been verified yet.
Every accepted action leaves one `coverage_history` row per coverage it changed (a correction,
one per field it changed). The Coverage tab and the FHIR API (`$verify` on a Coverage) verify
through `verify_coverage`.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import options
from admindesk.envs.ehr_web.forms_changes import CorrectCoverageForm, VerifyCoverageForm
from admindesk.envs.ehr_web.models import COVERAGE_RANKS, Coverage, Patient
from admindesk.envs.ehr_web.models_history import CoverageEvent
from admindesk.envs.ehr_web.vocab import VERIFICATION_RESULTS


def _fmt(day: date | None) -> str:
    return day.strftime("%m/%d/%Y") if day else "open-ended"


def verification_problem(coverage: Coverage, result: str, today: date) -> str | None:
    """Why `result` cannot be recorded for the coverage today, or None."""
    if result != "Active":
        return None
    if coverage.termination_date is not None and coverage.termination_date < today:
        return (f"{coverage.payer.name} coverage ended on {_fmt(coverage.termination_date)}; it cannot be verified "
                "active today. Record Inactive, or correct the termination date first.")
    if coverage.effective_date > today:
        return (f"{coverage.payer.name} coverage starts on {_fmt(coverage.effective_date)}; it cannot be verified "
                "active before then.")
    return None


def record_verification(session: Session, coverage: Coverage, result: str, reference: str | None, note: str,
                        username: str) -> None:
    """Set the coverage's verification and append the history row."""
    before = coverage.verification_status
    coverage.verification_status = VERIFICATION_RESULTS[result]
    coverage.verified_on, coverage.verified_by = clock.today(), username
    coverage.verification_reference = reference or None
    session.add(CoverageEvent(coverage_id=coverage.id, mrn=coverage.mrn, event="Verification", old_value=before,
                              new_value=coverage.verification_status, reference=reference or None,
                              note=note.strip(), at=clock.now(), username=username))


def verification_form(patient: Patient, **form_args) -> VerifyCoverageForm:
    """The Verify coverage form offering the patient's coverages; `form_args` as FlaskForm
    takes them (none: bound to the request; `formdata=None`: empty, for display)."""
    form = VerifyCoverageForm(**form_args)
    form.coverage_id.choices = options(
        (c.id, f"{c.rank_label}: {c.payer.name} - {c.plan.name} ({c.member_id})") for c in patient.coverages)
    return form


def verify_coverage(patient: Patient, form: VerifyCoverageForm) -> Coverage | None:
    """Check the filled form and record the verification it gives on the chosen coverage; None,
    with nothing written and the reasons as field errors, when refused."""
    describe(action="verify_coverage", record_type="patient", record_id=patient.mrn,
             coverage_id=form.coverage_id.data)
    valid = form.validate()
    chosen = next((c for c in patient.coverages if c.id == form.coverage_id.data), None)
    if valid and chosen is not None:
        problem = verification_problem(chosen, form.result.data, clock.today())
        if problem:
            form.result.errors = list(form.result.errors) + [problem]
            valid = False
    if not valid:
        return None
    record_verification(db(), chosen, form.result.data, form.reference.data, form.note.data or "",
                        current_username())
    db().commit()
    describe(result=chosen.verification_status)
    return chosen


def _overlap(a: Coverage, b: Coverage) -> bool:
    """The two coverages are in force on at least one common date."""
    a_end, b_end = a.termination_date or date.max, b.termination_date or date.max
    return a.effective_date <= b_end and b.effective_date <= a_end


def rank_problems(coverages: list[Coverage], ranks: dict[str, int], today: date) -> dict[str, str]:
    """Coverage id -> why the proposed ranks (`ranks`, coverage id -> rank) are refused."""
    problems: dict[str, str] = {}
    for coverage in coverages:
        rank = ranks[coverage.id]
        if rank == 1 and rank != coverage.rank and coverage.termination_date and coverage.termination_date < today:
            problems[coverage.id] = (f"{coverage.payer.name} ended on {_fmt(coverage.termination_date)}; a "
                                     "terminated coverage cannot be primary for current dates of service.")
    for index, coverage in enumerate(coverages):
        for other in coverages[index + 1:]:
            changed = ranks[coverage.id] != coverage.rank or ranks[other.id] != other.rank
            if changed and ranks[coverage.id] == ranks[other.id] and _overlap(coverage, other) \
                    and other.id not in problems:
                label = COVERAGE_RANKS[ranks[other.id]].lower()
                problems[other.id] = (f"{coverage.payer.name} and {other.payer.name} would both be {label} while "
                                      "both are in force; each date of service has one coverage per rank.")
    return problems


def apply_ranks(session: Session, coverages: list[Coverage], ranks: dict[str, int], reason: str,
                username: str) -> list[str]:
    """Set the checked ranks; one history row per changed coverage. Returns what changed."""
    changes = []
    for coverage in coverages:
        new = ranks[coverage.id]
        if new == coverage.rank:
            continue
        old_label, coverage.rank = coverage.rank_label, new
        changes.append(f"{coverage.payer.name}: {old_label} -> {coverage.rank_label}")
        session.add(CoverageEvent(coverage_id=coverage.id, mrn=coverage.mrn, event="Rank change",
                                  old_value=old_label, new_value=coverage.rank_label, note=reason.strip(),
                                  at=clock.now(), username=username))
    return changes


# ---- correcting a coverage to the payer's enrollment ---------------------------------------
NOT_VERIFIED = "Not Verified"
# Each corrected column, the history event that records it, and how its value reads there.
CORRECTED = (("member_id", "Member ID change", str),
             ("subscriber_name", "Subscriber change", str),
             ("relationship_to_subscriber", "Relationship change", str),
             ("effective_date", "Effective date change", lambda day: f"{day:%m/%d/%Y}"))


def correction_form(patient: Patient, **form_args) -> CorrectCoverageForm:
    """The Correct coverage form offering the patient's coverages; `form_args` as FlaskForm takes them."""
    form = CorrectCoverageForm(**form_args)
    form.coverage_id.choices = options([("", "- Select coverage -")] + [
        (c.id, f"{c.rank_label}: {c.payer.name} - {c.plan.name} ({c.member_id})") for c in patient.coverages])
    return form


def _proposed(form: CorrectCoverageForm) -> dict[str, object]:
    return {"member_id": form.member_id.data.upper(), "subscriber_name": form.subscriber_name.data,
            "relationship_to_subscriber": form.relationship.data, "effective_date": form.effective_date.data}


def subscriber_problems(patient: Patient, subscriber: str, relationship: str) -> dict[str, str]:
    """Form field -> why the subscriber and relationship disagree: Self names the patient (as
    registration names them, "First Last" or "Last, First"), another relationship someone else."""
    names = {f"{patient.first_name} {patient.last_name}".casefold(), patient.full_name.casefold()}
    is_patient = subscriber.casefold() in names
    if relationship == "Self" and not is_patient:
        return {"relationship": "Self means the patient is the subscriber; name the patient or choose the relationship."}
    if relationship != "Self" and is_patient:
        return {"subscriber_name": "The patient is not their own dependent; name the subscriber or choose Self."}
    return {}


def correction_problems(patient: Patient, coverage: Coverage, proposed: dict[str, object]) -> dict[str, str]:
    """Form field -> why the proposed values cannot be saved on `coverage`."""
    problems = {}
    if all(getattr(coverage, column) == proposed[column] for column, _event, _shown in CORRECTED):
        problems["member_id"] = "Nothing differs from the registration; change the fields the payer holds otherwise."
    other = next((c for c in patient.coverages if c.id != coverage.id and c.member_id == proposed["member_id"]), None)
    if other is not None:
        problems["member_id"] = (f"Member ID {other.member_id} is already registered as the patient's "
                                 f"{other.payer.name} {other.rank_label.lower()} coverage.")
    problems.update(subscriber_problems(patient, str(proposed["subscriber_name"]),
                                        str(proposed["relationship_to_subscriber"])))
    effective: date = proposed["effective_date"]
    if coverage.termination_date is not None and effective > coverage.termination_date:
        problems["effective_date"] = (f"The coverage is registered as terminated on "
                                      f"{coverage.termination_date:%m/%d/%Y}; it cannot begin after that.")
    return problems


def apply_correction(session: Session, coverage: Coverage, proposed: dict[str, object], reason: str,
                     username: str) -> list[str]:
    """Set the changed fields, one history row each; the verification starts over. Returns what changed."""
    changes = []
    for column, event, shown in CORRECTED:
        old, new = getattr(coverage, column), proposed[column]
        if old == new:
            continue
        setattr(coverage, column, new)
        changes.append(f"{event}: {shown(old)} -> {shown(new)}")
        session.add(CoverageEvent(coverage_id=coverage.id, mrn=coverage.mrn, event=event, old_value=shown(old),
                                  new_value=shown(new), note=reason.strip(), at=clock.now(), username=username))
    coverage.verification_status, coverage.verified_on, coverage.verified_by = NOT_VERIFIED, None, None
    coverage.verification_reference = None
    return changes


def correct_coverage(patient: Patient, form: CorrectCoverageForm) -> list[str] | None:
    """Check the filled form and correct the chosen coverage; what changed, or None with nothing
    written and the reasons as field errors."""
    describe(action="correct_coverage", record_type="patient", record_id=patient.mrn,
             coverage_id=form.coverage_id.data)
    valid = form.validate()
    chosen = next((c for c in patient.coverages if c.id == form.coverage_id.data), None)
    if chosen is None:
        form.coverage_id.errors = list(form.coverage_id.errors) + ["Choose the coverage to correct."]
        return None
    if valid:
        for field, problem in correction_problems(patient, chosen, _proposed(form)).items():
            getattr(form, field).errors = list(getattr(form, field).errors) + [problem]
            valid = False
    if not valid:
        return None
    changes = apply_correction(db(), chosen, _proposed(form), form.reason.data, current_username())
    db().commit()
    describe(changes=changes)
    return changes
