"""Interruptions of a working day in the chart, each off unless the task turns it on:

- `best_practice_alert`: opening a chart (any tab, an order, a claim) shows a Best
  Practice Advisory that must be acknowledged, or dismissed with a reason, before the
  chart can be used; the answer is a `bpa_responses` row and the alert does not come back
  for that patient.
- `chart_lock`: every chart is open on another user's workstation; it shows read-only
  (edits are refused) until the user takes it over or waits for the other user to close
  it, which is a `chart_lock_events` row.
"""
from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock, interruptions
from admindesk.envs.common.audit import describe
from admindesk.envs.common.state.kit_models import StaffUser
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.models import Order, OrderAuthorization, Patient
from admindesk.envs.ehr_web.models_desk import AlertResponse, ChartLockEvent
from admindesk.envs.ehr_web.models_work import Claim
from admindesk.envs.ehr_web.views.common import patient_or_404

alerts = Blueprint("alerts", __name__, url_prefix="/patients/<mrn>")
DISMISS_REASONS = ("Already addressed", "Not applicable to this patient", "Will address before scheduling",
                   "Patient or payer contacted")
LOCK_ACTIONS = {"take_over": "Took over", "wait": "Waited"}


def best_practice_alert(patient: Patient) -> dict | None:
    """The advisory to show on this chart, or None (off, or already answered)."""
    if not interruptions.enabled("best_practice_alert"):
        return None
    if db().scalar(select(AlertResponse.id).where(AlertResponse.mrn == patient.mrn).limit(1)):
        return None
    unauthorized = db().scalars(select(Order).join(OrderAuthorization, OrderAuthorization.order_id == Order.id)
                                .where(Order.mrn == patient.mrn, Order.status.in_(("Ordered", "Scheduled")),
                                       OrderAuthorization.status == "Not Started")
                                .order_by(Order.planned_date, Order.id)).first()
    if unauthorized is not None:
        return {"name": "prior_auth_missing", "title": "Prior authorization not on file",
                "text": (f"Order {unauthorized.id} ({unauthorized.code} {unauthorized.description}) is planned for "
                         f"{unauthorized.planned_date:%m/%d/%Y} and has no authorization request. Services "
                         "performed without a required authorization are denied (CARC 197).")}
    return {"name": "coverage_review", "title": "Verify coverage before services",
            "text": ("Coverage and order of benefits should be confirmed before any service is scheduled or billed. "
                     "Check eligibility with each payer on the Coverage tab.")}


def chart_locked_by(patient: Patient) -> str | None:
    """The other user's name while the chart is locked for the signed-in user, else None."""
    if not interruptions.enabled("chart_lock"):
        return None
    if db().scalar(select(ChartLockEvent.id).where(ChartLockEvent.mrn == patient.mrn).limit(1)):
        return None
    others = list(db().scalars(select(StaffUser).where(StaffUser.username != current_username())
                               .order_by(StaffUser.username)))
    if not others:
        return None
    # The same colleague holds the same chart in every episode.
    return others[sum(map(ord, patient.mrn)) % len(others)].display_name


def chart_interruptions(patient: Patient) -> dict:
    """What the chart page shows before its content: the advisory and the lock notice."""
    return {"bpa": best_practice_alert(patient), "locked_by": chart_locked_by(patient),
            "dismiss_reasons": DISMISS_REASONS}


def _mrn_of_request() -> str | None:
    args = request.view_args or {}
    if "mrn" in args:
        return args["mrn"]
    if "order_id" in args:
        return db().scalar(select(Order.mrn).where(Order.id == args["order_id"]))
    if "claim_number" in args:
        return db().scalar(select(Claim.mrn).where(Claim.claim_number == args["claim_number"]))
    return None


def refuse_locked_chart_edit(mrn: str | None) -> str | None:
    """Who holds the chart of patient `mrn` when it is read-only for the signed-in user, and the
    edit at hand must be refused (the refusal is audited here, for the screens and the API
    alike); None when the chart may be edited."""
    patient = db().get(Patient, mrn) if mrn else None
    holder = chart_locked_by(patient) if patient else None
    if holder is not None:
        describe(action="refused_locked_chart", record_type="patient", record_id=patient.mrn)
    return holder


def refuse_edits_to_a_locked_chart():
    """before_request of the chart's blueprints (they run after the login check): a chart
    held by another user is read-only, so its edits are refused and write nothing."""
    if request.method != "POST":
        return None
    mrn = _mrn_of_request()
    holder = refuse_locked_chart_edit(mrn)
    if holder is None:
        return None
    flash(f"This chart is read-only: {holder} has it open. Take it over or wait for them to close it.", "error")
    return redirect(url_for("chart.summary", mrn=mrn))


def _back(mrn: str) -> str:
    target = request.form.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") else url_for("chart.summary", mrn=mrn)


@alerts.post("/bpa")
def answer_alert(mrn: str):
    """Acknowledge the advisory, or dismiss it with one of the listed reasons."""
    patient = patient_or_404(mrn)
    alert = best_practice_alert(patient)
    action, reason = request.form.get("action", ""), request.form.get("reason", "")
    describe(action="answer_bpa", record_type="patient", record_id=mrn, answer=action)
    if alert is None:
        flash("There is no open advisory on this chart.", "info")
    elif action == "acknowledge":
        db().add(AlertResponse(mrn=mrn, alert=alert["name"], action="Acknowledged", username=current_username(),
                               at=clock.now()))
        db().commit()
        flash("Advisory acknowledged.", "success")
    elif action == "dismiss" and reason in DISMISS_REASONS:
        db().add(AlertResponse(mrn=mrn, alert=alert["name"], action="Dismissed", reason=reason,
                               username=current_username(), at=clock.now()))
        db().commit()
        flash(f"Advisory dismissed: {reason}.", "success")
    else:
        flash("To dismiss the advisory, choose a reason from the list (or acknowledge it).", "error")
    return redirect(_back(mrn))


@alerts.post("/chart-lock")
def resolve_lock(mrn: str):
    """Take over the chart from the other user, or wait until they close it."""
    patient = patient_or_404(mrn)
    holder = chart_locked_by(patient)
    action = LOCK_ACTIONS.get(request.form.get("action", ""))
    describe(action="resolve_chart_lock", record_type="patient", record_id=mrn, answer=action)
    if holder is None:
        flash("This chart is not locked by another user.", "info")
    elif action is None:
        flash("Choose Take over or Wait.", "error")
    else:
        db().add(ChartLockEvent(mrn=mrn, locked_by=holder, action=action, username=current_username(),
                                at=clock.now()))
        db().commit()
        flash(f"You took over the chart from {holder}." if action == "Took over"
              else f"{holder} closed the chart. You can now edit it.", "success")
    return redirect(_back(mrn))
