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
Every accepted action leaves one `coverage_history` row per coverage it changed. The
Coverage tab and the FHIR API (`$verify` on a Coverage) verify through `verify_coverage`.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import options
from admindesk.envs.ehr_web.forms_changes import VerifyCoverageForm
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
