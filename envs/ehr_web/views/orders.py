"""Orders tab, order detail, the order's authorization section and its comments."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.ehr_web import auth_changes
from admindesk.envs.ehr_web.forms import AuthorizationForm, NoteForm
from admindesk.envs.ehr_web.forms_changes import AuthorizationChangeForm
from admindesk.envs.ehr_web.models import DiagnosisCode, Document, Encounter, Order, OrderAuthorization, ProcedureCode
from admindesk.envs.ehr_web.models_work import WorkItem
from admindesk.envs.ehr_web.notes import add_note, notes_for
from admindesk.envs.ehr_web.order_authorizations import authorization_form, save_authorization
from admindesk.envs.ehr_web.registration import coverage as coverage_registration
from admindesk.envs.ehr_web.views.chart_base import render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404

orders = Blueprint("orders", __name__)


@orders.get("/patients/<mrn>/orders")
def orders_tab(mrn: str):
    """All orders of the patient, newest first, with their authorization status."""
    patient = patient_or_404(mrn)
    rows = list(db().scalars(select(Order).where(Order.mrn == mrn).order_by(Order.ordered_on.desc(), Order.id.desc())))
    return render_chart(patient, "orders", "chart_orders.html", orders=rows)


def _authorization_form(order: Order) -> AuthorizationForm:
    """The form filled with what the order's authorization section holds now."""
    auth = order.authorization
    return authorization_form(
        formdata=None, status=auth.status if auth else "Not Started", payer_id=(auth.payer_id if auth else "") or "",
        auth_number=auth.auth_number if auth else "", reference_number=auth.reference_number if auth else "",
        approved_units=str(auth.approved_units) if auth and auth.approved_units else "",
        approved_code=(auth.approved_code or "") if auth else "",
        start_date=auth.start_date if auth else None, end_date=auth.end_date if auth else None)


def _render_order(order: Order, auth_form: AuthorizationForm | None = None, comment_form: NoteForm | None = None,
                  status: int = 200, change_form: AuthorizationChangeForm | None = None, coverage_form=None):
    session = db()
    patient = patient_or_404(order.mrn)
    diagnoses = [(code, session.get(DiagnosisCode, code)) for code in order.diagnosis_list]
    documents = list(session.scalars(select(Document).where(Document.order_id == order.id)
                                     .order_by(Document.document_date, Document.id)))
    items = list(session.scalars(select(WorkItem).where(WorkItem.order_id == order.id).order_by(WorkItem.id)))
    return render_chart(patient, "orders", "order_detail.html", status=status, order=order,
                        procedure=session.get(ProcedureCode, order.code), diagnoses=diagnoses, documents=documents,
                        items=items, auth_form=auth_form or _authorization_form(order),
                        stay=_stay(session, order),
                        change_form=change_form or AuthorizationChangeForm(formdata=None),
                        coverage_form=coverage_form or coverage_registration.order_form(patient, order, formdata=None),
                        auth_history=auth_changes.history(session, order.id),
                        comment_form=comment_form or NoteForm(formdata=None), comments=notes_for("order", order.id))


def _stay(session, order: Order) -> Encounter | None:
    """The inpatient encounter an inpatient care order belongs to (None for other orders)."""
    encounter = session.get(Encounter, order.encounter_id)
    return encounter if encounter is not None and encounter.admitted_at is not None else None


@orders.get("/orders/<order_id>")
def order_detail(order_id: str):
    """Code, units, diagnoses, provider, site and dates; authorization; comments."""
    order = get_or_404(Order, order_id)
    describe(record_type="order", record_id=order.id)
    return _render_order(order)


@orders.post("/orders/<order_id>/authorization")
def update_authorization(order_id: str):
    """Save the authorization section; on errors nothing changes and the form says why."""
    order = get_or_404(Order, order_id)
    form = authorization_form()
    auth = save_authorization(order, form)
    if auth is None:
        return _render_order(order, auth_form=form, status=422)
    flash(f"Authorization for order {order.id} saved: {auth.status}.", "success")
    return redirect(url_for("orders.order_detail", order_id=order.id))  # no #fragment: the saved message at the top stays in view


@orders.post("/orders/<order_id>/authorization/changes")
def change_authorization(order_id: str):
    """Record an extension, units increase, date change, cancellation or withdrawal."""
    order = get_or_404(Order, order_id)
    form = AuthorizationChangeForm()
    describe(action="change_authorization", record_type="order", record_id=order.id, change=form.change.data)
    auth = db().get(OrderAuthorization, order.id)
    valid = form.validate()
    if auth is None:
        form.change.errors = list(form.change.errors) + ["This order has no authorization on file to change."]
        valid = False
    elif valid:
        for field, message in auth_changes.change_problems(auth, form, clock.today()):
            if not field.errors:
                field.errors = list(field.errors) + [message]
            valid = False
    if not valid:
        return _render_order(order, change_form=form, status=422)
    before = auth.status
    auth_changes.apply_change(auth, form)
    auth.updated_at, auth.updated_by = clock.now(), current_username()
    auth_changes.record_event(db(), auth, form.change.data, current_username(), form.note.data or "")
    db().commit()
    describe(status_before=before, status_after=auth.status, auth_number=auth.auth_number,
             end_date=auth.end_date.isoformat() if auth.end_date else None, approved_units=auth.approved_units)
    flash(f"{form.change.data} recorded for order {order.id}: {auth.status}.", "success")
    return redirect(url_for("orders.order_detail", order_id=order.id) + "#auth-history")


@orders.post("/orders/<order_id>/coverage")
def change_coverage(order_id: str):
    """Bill the order to another of the patient's coverages (in force on its planned date)."""
    order = get_or_404(Order, order_id)
    patient = patient_or_404(order.mrn)
    form = coverage_registration.order_form(patient, order)
    chosen = coverage_registration.change_order_coverage(patient, order, form)
    if chosen is None:
        return _render_order(order, coverage_form=form, status=422)
    flash(f"Order {order.id} is billed to {chosen.payer.name} ({chosen.member_id}).", "success")
    return redirect(url_for("orders.order_detail", order_id=order.id))


@orders.post("/orders/<order_id>/comments")
def add_comment(order_id: str):
    """Add an order comment (a note on the order)."""
    order = get_or_404(Order, order_id)
    form = NoteForm()
    if add_note(form, order.mrn, "order", order.id) is None:
        return _render_order(order, comment_form=form, status=422)
    flash("Comment added to the order.", "success")
    return redirect(url_for("orders.order_detail", order_id=order.id) + "#comments")

