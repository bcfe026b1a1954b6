"""Staff messages to clinicians: the desk routes work only a clinician can do (a signature, a
payer's peer-to-peer, a missing note) to the clinician's In Basket from the patient's chart
or an order, and keeps what it sent in the In Basket's Sent list."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.ehr_web.forms_desk import StaffMessageForm
from admindesk.envs.ehr_web.models import Order, Provider
from admindesk.envs.ehr_web.models_desk import INBASKET_FOLDERS, StaffMessage
from admindesk.envs.ehr_web.views.chart_base import render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404

staff_messages = Blueprint("staff_messages", __name__)
PER_PAGE = 25


def _form_choices(form: StaffMessageForm, mrn: str) -> None:
    """Clinicians by name (their specialty and NPI shown, as two share a name now and then),
    and the patient's own orders."""
    providers = db().scalars(select(Provider).order_by(Provider.last_name, Provider.first_name, Provider.npi))
    form.to_npi.choices = [("", "Select a clinician...")] + [
        (p.npi, f"{p.display_name} - {p.specialty} (NPI {p.npi})") for p in providers]
    orders = db().scalars(select(Order).where(Order.mrn == mrn).order_by(Order.ordered_on.desc(), Order.id))
    form.order_id.choices = [("", "None")] + [
        (o.id, f"{o.id}: {o.code} {o.description} ({o.ordered_on:%m/%d/%Y}, {o.status})") for o in orders]


@staff_messages.route("/patients/<mrn>/messages/new", methods=["GET", "POST"])
def compose(mrn: str):
    """Write a message to a clinician about this patient; opened from an order, it is about
    that order and addressed to its ordering provider."""
    patient = patient_or_404(mrn)
    form = StaffMessageForm()
    _form_choices(form, mrn)
    if request.method == "GET":
        order = db().get(Order, request.args.get("order_id", ""))
        if order is not None and order.mrn == mrn:
            form.order_id.data, form.to_npi.data = order.id, order.ordering_npi
        describe(record_type="patient", record_id=mrn, tab="messages", action="view_message_form")
        return render_chart(patient, "summary", "message_compose.html", form=form)
    describe(action="send_staff_message", record_type="patient", record_id=mrn, tab="messages")
    if not form.validate():
        return render_chart(patient, "summary", "message_compose.html", status=422, form=form)
    message = StaffMessage(sender=current_username(), to_npi=form.to_npi.data, message_type=form.message_type.data,
                           priority=form.priority.data, subject=form.subject.data, body=form.body.data, mrn=mrn,
                           order_id=form.order_id.data or None, sent_at=clock.now())
    db().add(message)
    db().commit()
    describe(message_id=message.id, to_npi=message.to_npi, order_id=message.order_id)
    flash(f"Message sent to {message.recipient.display_name}.", "success")
    return redirect(url_for("staff_messages.sent_message", message_id=message.id))


@staff_messages.get("/in-basket/sent")
def sent():
    """The messages this user sent, newest first."""
    describe(record_type="inbasket", record_id="Sent")
    stmt = (select(StaffMessage).where(StaffMessage.sender == current_username())
            .order_by(StaffMessage.sent_at.desc(), StaffMessage.id.desc()))
    return render_template("inbasket_sent.html", folders=INBASKET_FOLDERS, page=paginate(db(), stmt, per_page=PER_PAGE))


@staff_messages.get("/in-basket/sent/<int:message_id>")
def sent_message(message_id: int):
    """One sent message (only its sender's: the In Basket is personal)."""
    message = get_or_404(StaffMessage, message_id)
    if message.sender != current_username():
        abort(404)
    describe(record_type="staff_message", record_id=str(message.id), mrn=message.mrn)
    return render_template("inbasket_sent_message.html", message=message)
