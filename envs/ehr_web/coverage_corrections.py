"""Correcting a registered coverage to what the payer holds: the member id (a new card at renewal,
a dependent's own suffix), the subscriber and the patient's relationship to them (a name change,
a newborn under the mother's policy), the effective date.

Rules (a refused correction writes nothing and says why):
- Something must change: a correction that repeats the registration is refused.
- The member id is not another of the patient's registered coverages' (that coverage is the one
  to rank or verify, not a copy).
- Registered Self, the subscriber is the patient; another relationship names someone else.
- The effective date is not after the coverage's termination date.
Every accepted correction leaves one `coverage_history` row per field it changed (old and new
value, the source given, who and when) and resets the verification: the corrected coverage has
not been verified yet.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import options
from admindesk.envs.ehr_web.forms_changes import CorrectCoverageForm
from admindesk.envs.ehr_web.models import Coverage, Patient
from admindesk.envs.ehr_web.models_history import CoverageEvent

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


def correction_problems(patient: Patient, coverage: Coverage, proposed: dict[str, object]) -> dict[str, str]:
    """Form field -> why the proposed values cannot be saved on `coverage`."""
    problems = {}
    if all(getattr(coverage, column) == proposed[column] for column, _event, _shown in CORRECTED):
        problems["member_id"] = "Nothing differs from the registration; change the fields the payer holds otherwise."
    other = next((c for c in patient.coverages if c.id != coverage.id and c.member_id == proposed["member_id"]), None)
    if other is not None:
        problems["member_id"] = (f"Member ID {other.member_id} is already registered as the patient's "
                                 f"{other.payer.name} {other.rank_label.lower()} coverage.")
    # The patient as registration names them, "First Last" or "Last, First".
    names = {f"{patient.first_name} {patient.last_name}".casefold(), patient.full_name.casefold()}
    is_patient = str(proposed["subscriber_name"]).casefold() in names
    if proposed["relationship_to_subscriber"] == "Self" and not is_patient:
        problems["relationship"] = ("Self means the patient is the subscriber; name the patient or choose the "
                                    "relationship.")
    if proposed["relationship_to_subscriber"] != "Self" and is_patient:
        problems["subscriber_name"] = "The patient is not their own dependent; name the subscriber or choose Self."
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
