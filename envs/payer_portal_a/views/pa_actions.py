"""Follow-up actions on a prior-auth case: withdraw, change an approved auth, peer-to-peer
(request, then choose a slot) and pre-service appeal. A refusal shows the payer's rule
and writes nothing."""
from __future__ import annotations

from datetime import datetime

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.uploads import PdfUpload, UploadError, read_pdf_upload
from admindesk.envs.common.web import current_username, db
from admindesk.envs.payer_portal_a import auth_lifecycle as lifecycle
from admindesk.envs.payer_portal_a.lifecycle_forms import (
    AuthChangeForm,
    PeerToPeerForm,
    PreServiceAppealForm,
    SlotForm,
    WithdrawForm,
)
from admindesk.envs.payer_portal_a.lifecycle_models import PeerToPeer
from admindesk.envs.payer_portal_a.models import PaRequest
from admindesk.envs.payer_portal_a.web import document_type_choices

pa_actions = Blueprint("pa_actions", __name__, url_prefix="/authorizations")


def _case(case_number: str) -> PaRequest:
    pa = db().scalar(select(PaRequest).where(PaRequest.case_number == case_number))
    if pa is None:
        abort(404)
    return pa


def _page(pa: PaRequest, title: str, form, submit: str, refusal: str | None, status: int = 200, **context):
    return render_template("pa/action.html", section="auth", subsection="status", pa=pa, title=title, form=form,
                           submit=submit, refusal=refusal, **context), status


def _done(pa: PaRequest, message: str):
    flash(message, "success")
    return redirect(url_for("pa_cases.case_detail", case_number=pa.case_number, tab="history"))


@pa_actions.route("/cases/<case_number>/withdraw", methods=["GET", "POST"])
def withdraw(case_number: str):
    """Withdraw (cancel) a pending request."""
    pa = _case(case_number)
    describe(record_type="pa_case", record_id=pa.case_number, tab="withdraw")
    form, refusal = WithdrawForm(), lifecycle.withdraw_refusal(pa)
    if not form.is_submitted() or refusal or not form.validate():
        status = 422 if form.is_submitted() else 200
        return _page(pa, "Withdraw request", form, "Withdraw request", refusal, status)
    lifecycle.withdraw(db(), pa, form.reason.data.strip(), current_username())
    db().commit()
    describe(action="withdraw_pa_request", status=pa.status)
    return _done(pa, f"Case {pa.case_number} was withdrawn.")


@pa_actions.route("/cases/<case_number>/change", methods=["GET", "POST"])
def change(case_number: str):
    """Extension, date change or units increase of an approved authorization."""
    pa = _case(case_number)
    describe(record_type="pa_case", record_id=pa.case_number, tab="change_auth")
    form = AuthChangeForm()
    form.document_type.choices = document_type_choices()
    approved = [line for line in pa.lines if line.decision == "Approved"]
    form.line_no.choices = {str(line.line_no): f"Line {line.line_no}: {line.code}" for line in approved} or {"": "No approved line"}
    # The page refuses outright when no approved line can change (every one expired, or none approved).
    refusals = [lifecycle.changeable_refusal(pa, line, clock.today()) for line in approved or [None]]
    refusal = None if None in refusals else refusals[0]
    if not form.is_submitted() or refusal:
        return _page(pa, "Change an approved authorization", form, "Request change", refusal,
                     422 if form.is_submitted() else 200)
    upload = _supporting_document(form) if form.validate() else None
    if form.errors:
        return _page(pa, "Change an approved authorization", form, "Request change", None, 422)
    line = next((ln for ln in approved if str(ln.line_no) == form.line_no.data), None)
    args = (form.kind.data, form.new_start.data, form.new_end.data, form.new_units.data)
    refusal = (lifecycle.change_refusal(pa, line, *args, clock.today())
               or lifecycle.document_refusal(form.kind.data, upload is not None))
    if refusal:
        return _page(pa, "Change an approved authorization", form, "Request change", refusal, 422)
    document = (upload, form.document_type.data) if upload is not None else None
    change_row = lifecycle.apply_change(db(), pa, line, *args, form.reason.data.strip(), current_username(), document)
    db().commit()
    describe(action="change_authorization", change_number=change_row.change_number, kind=change_row.kind,
             **({"file_name": upload.filename, "sha256": upload.sha256} if upload is not None else {}))
    return _done(pa, f"{change_row.kind} {change_row.change_number} approved.")


@pa_actions.route("/cases/<case_number>/peer-to-peer", methods=["GET", "POST"])
def peer_to_peer(case_number: str):
    """Ask for a peer-to-peer on a denial; the payer answers with slots to choose from."""
    pa = _case(case_number)
    describe(record_type="pa_case", record_id=pa.case_number, tab="peer_to_peer")
    form, refusal = PeerToPeerForm(), lifecycle.peer_to_peer_refusal(db(), pa, clock.today())
    if not form.is_submitted() or refusal or not form.validate():
        return _page(pa, "Request a peer-to-peer", form, "Request peer-to-peer", refusal,
                     422 if form.is_submitted() else 200)
    phone = "".join(ch for ch in form.callback_phone.data if ch.isdigit())
    call = lifecycle.request_peer_to_peer(db(), pa, form.physician_name.data.strip(), phone, current_username())
    db().commit()
    describe(action="request_peer_to_peer", reference_number=call.reference_number)
    flash(f"Peer-to-peer {call.reference_number} requested. Choose one of the offered times.", "success")
    return redirect(url_for("pa_actions.peer_to_peer_detail", reference_number=call.reference_number))


@pa_actions.route("/peer-to-peer/<reference_number>", methods=["GET", "POST"])
def peer_to_peer_detail(reference_number: str):
    """A peer-to-peer: the offered slots (choose one), then the booking and any outcome."""
    call = db().scalar(select(PeerToPeer).where(PeerToPeer.reference_number == reference_number))
    if call is None:
        abort(404)
    describe(record_type="peer_to_peer", record_id=call.reference_number, tab="peer_to_peer")
    form = SlotForm()
    form.slot.choices = [(slot, clock_text(slot)) for slot in call.offered_slots]
    status = 200
    if form.is_submitted():
        refusal = lifecycle.schedule_refusal(call, form.slot.data or "") if form.validate() else None
        if refusal:
            form.slot.errors = [refusal]
        if form.slot.errors:
            status = 422
        else:
            lifecycle.schedule(db(), call, form.slot.data, current_username())
            db().commit()
            describe(action="schedule_peer_to_peer", scheduled_at=call.scheduled_at.isoformat())
            flash(f"Peer-to-peer scheduled for {call.scheduled_at:%m/%d/%Y %H:%M} with {call.reviewer_name}.",
                  "success")
            return redirect(url_for("pa_actions.peer_to_peer_detail", reference_number=call.reference_number))
    return render_template("pa/peer_to_peer.html", section="auth", subsection="status", call=call, form=form), status


def clock_text(iso: str) -> str:
    """An offered slot as the office reads it."""
    return datetime.fromisoformat(iso).strftime("%A %m/%d/%Y at %I:%M %p")


@pa_actions.route("/cases/<case_number>/appeal", methods=["GET", "POST"])
def preservice_appeal(case_number: str):
    """Appeal a denial before the service (expedited 72 hours or standard 30 days)."""
    pa = _case(case_number)
    describe(record_type="pa_case", record_id=pa.case_number, tab="preservice_appeal")
    form, refusal = PreServiceAppealForm(), lifecycle.preservice_appeal_refusal(db(), pa, clock.today())
    form.document_type.choices = document_type_choices()
    if not form.is_submitted() or refusal:
        return _page(pa, "Pre-service appeal", form, "Submit appeal", refusal, 422 if form.is_submitted() else 200)
    valid, upload = form.validate(), _supporting_document(form)
    if not valid or form.file.errors or form.document_type.errors:
        return _page(pa, "Pre-service appeal", form, "Submit appeal", None, 422)
    document = (upload, form.document_type.data) if upload is not None else None
    appeal = lifecycle.file_preservice_appeal(
        db(), pa, form.urgency.data, form.argument.data.strip(), form.contact_name.data.strip(),
        "".join(ch for ch in form.contact_phone.data if ch.isdigit()), current_username(), document)
    db().commit()
    describe(action="file_preservice_appeal", reference_number=appeal.reference_number)
    if appeal.decision:
        return _done(pa, f"Pre-service appeal {appeal.reference_number} decided: {appeal.decision}.")
    return _done(pa, f"Pre-service appeal {appeal.reference_number} received; decision due "
                     f"{appeal.decision_due_at:%m/%d/%Y %H:%M}.")


def _supporting_document(form: AuthChangeForm | PreServiceAppealForm) -> PdfUpload | None:
    """The optional PDF sent with a change or an appeal (its type is the form's); a form error
    (nothing kept) when the file is no readable PDF or has no type, or a type was chosen
    without a file."""
    storage = request.files.get(form.file.name)
    if storage is None or not storage.filename:
        if form.document_type.data:
            form.file.errors = ["Choose the PDF to send, or clear the document type."]
        return None
    try:
        upload = read_pdf_upload(storage)
    except UploadError as exc:
        form.file.errors = [str(exc)]
        return None
    if not form.document_type.data:
        form.document_type.errors = ["Select the type of the supporting document."]
        return None
    return upload
