"""Coverage tab: every coverage with its verification, registration's accident / injury
information, the Verify coverage action, the Correct coverage action (member id, subscriber,
relationship, effective date), Add coverage and End coverage (a new card, a coverage the payer
ended), the order of benefits (coordination of benefits) and the coverage history."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web import coverage_changes
from admindesk.envs.ehr_web.forms_changes import RANK_CHOICES, CoordinationOfBenefitsForm
from admindesk.envs.ehr_web.models import AccidentRecord, Patient
from admindesk.envs.ehr_web.models_history import CoverageEvent
from admindesk.envs.ehr_web.registration import coverage as coverage_registration
from admindesk.envs.ehr_web.views.chart_base import render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404

# How registration's accident kinds read (the claim's "condition related to" indicators).
ACCIDENT_KINDS = {"Employment": "Employment (workers' compensation)", "Auto": "Auto accident",
                  "Other": "Other accident (liability)"}

coverage = Blueprint("coverage", __name__, url_prefix="/patients/<mrn>/coverage")


def render_coverage(patient: Patient, status: int = 200, verify_form=None, cob_form=None,
                    rank_errors: dict[str, str] | None = None, proposed: dict[str, int] | None = None,
                    correct_form=None, add_form=None, end_form=None):
    """The Coverage tab (the chart's GET and the re-render of a refused action)."""
    events = list(db().scalars(select(CoverageEvent).where(CoverageEvent.mrn == patient.mrn)
                               .order_by(CoverageEvent.at.desc(), CoverageEvent.id.desc())))
    accidents = list(db().scalars(select(AccidentRecord).where(AccidentRecord.mrn == patient.mrn)
                                  .order_by(AccidentRecord.injury_date.desc(), AccidentRecord.id)))
    verify_form = verify_form or coverage_changes.verification_form(patient, formdata=None)
    return render_chart(patient, "coverage", "chart_coverage.html", status=status, coverages=patient.coverages,
                        today=clock.today(), verify_form=verify_form,
                        correct_form=correct_form or coverage_changes.correction_form(patient, formdata=None),
                        add_form=add_form or coverage_registration.add_form(formdata=None),
                        end_form=end_form or coverage_registration.end_form(patient, formdata=None),
                        cob_form=cob_form or CoordinationOfBenefitsForm(formdata=None), rank_choices=RANK_CHOICES,
                        rank_errors=rank_errors or {}, proposed=proposed or {}, events=events,
                        accidents=accidents, accident_kinds=ACCIDENT_KINDS)


@coverage.post("/verify")
def verify(mrn: str):
    """Record the result of an eligibility check on one coverage."""
    patient = patient_or_404(mrn)
    form = coverage_changes.verification_form(patient)
    chosen = coverage_changes.verify_coverage(patient, form)
    if chosen is None:
        return render_coverage(patient, 422, verify_form=form)
    flash(f"{chosen.payer.name} coverage: {chosen.verification_status} on {clock.today():%m/%d/%Y}.", "success")
    return redirect(url_for("chart.coverage", mrn=patient.mrn))


@coverage.post("/correct")
def correct(mrn: str):
    """Correct one coverage's member id, subscriber, relationship or effective date to the payer's."""
    patient = patient_or_404(mrn)
    form = coverage_changes.correction_form(patient)
    changes = coverage_changes.correct_coverage(patient, form)
    if changes is None:
        return render_coverage(patient, 422, correct_form=form)
    flash("Coverage corrected: " + "; ".join(changes) + ". Verify it with the payer.", "success")
    return redirect(url_for("chart.coverage", mrn=patient.mrn))


@coverage.post("/add")
def add(mrn: str):
    """Register a new coverage from the member's card."""
    patient = patient_or_404(mrn)
    form = coverage_registration.add_form()
    added = coverage_registration.add_coverage(patient, form)
    if added is None:
        return render_coverage(patient, 422, add_form=form)
    flash(f"Coverage added: {added.payer.name} - {added.plan.name} ({added.member_id}), {added.rank_label.lower()} "
          f"from {added.effective_date:%m/%d/%Y}. Verify it with the payer.", "success")
    return redirect(url_for("chart.coverage", mrn=patient.mrn))


@coverage.post("/end")
def end(mrn: str):
    """Set the last day a coverage is in force."""
    patient = patient_or_404(mrn)
    form = coverage_registration.end_form(patient)
    ended = coverage_registration.end_coverage(patient, form)
    if ended is None:
        return render_coverage(patient, 422, end_form=form)
    flash(f"{ended.payer.name} coverage ({ended.member_id}) ends {ended.termination_date:%m/%d/%Y}.", "success")
    return redirect(url_for("chart.coverage", mrn=patient.mrn))


@coverage.post("/ranks")
def set_ranks(mrn: str):
    """Set the order of benefits of all the patient's coverages at once."""
    patient = patient_or_404(mrn)
    describe(action="set_coverage_ranks", record_type="patient", record_id=patient.mrn)
    form = CoordinationOfBenefitsForm()
    coverages = list(patient.coverages)
    ranks, errors = {}, {}
    for c in coverages:
        value = request.form.get(f"rank-{c.id}", "")
        if value not in {choice.value for choice in RANK_CHOICES}:
            errors[c.id] = "Choose Primary, Secondary or Tertiary."
        else:
            ranks[c.id] = int(value)
    valid = form.validate()
    if not errors:
        errors = coverage_changes.rank_problems(coverages, ranks, clock.today())
    if errors or not valid:
        return render_coverage(patient, 422, cob_form=form, rank_errors=errors, proposed=ranks)
    changes = coverage_changes.apply_ranks(db(), coverages, ranks, form.reason.data, current_username())
    db().commit()
    describe(changes=changes)
    flash("Order of benefits updated: " + "; ".join(changes) + "." if changes else "Order of benefits: nothing changed.",
          "success" if changes else "info")
    return redirect(url_for("chart.coverage", mrn=patient.mrn))
