"""Submitted requests: status inquiry, case detail, pended-case documents, drafts."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload
from wtforms import SelectField, StringField
from wtforms.validators import Length, Optional, Regexp

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_a.forms import MEMBER_ID_FORMAT, AttachmentForm
from admindesk.envs.payer_portal_a.lifecycle_models import AuthAppeal, AuthChange, PeerToPeer
from admindesk.envs.payer_portal_a.models import Letter, PaAttachment, PaRequest
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.preservice_decisions import settle_due_preservice_appeals
from admindesk.envs.payer_portal_a.submission import reevaluate_after_documents
from admindesk.envs.payer_portal_a.web import attachment_form, payer_choices

pa_cases = Blueprint("pa_cases", __name__, url_prefix="/authorizations")
CASE_TABS = ("summary", "documents", "history", "letters")
SORTS = {"case": PaRequest.case_number, "status": PaRequest.status, "submitted": PaRequest.submitted_at,
         "member": PaRequest.member_name}


class StatusInquiryForm(FlaskForm):
    """Search by case number, or by payer + member id (a GET form: no CSRF needed)."""

    class Meta:
        csrf = False

    case_number = StringField("Case number", validators=[
        Optional(), Length(max=24, message="A case number is at most 24 characters."),
        Regexp(r"^\s*[A-Za-z0-9-]+\s*$", message="A case number has letters, digits and dashes only.")])
    payer_id = SelectField("Payer", validators=[Optional()], validate_choice=False)
    member_id = StringField("Member ID", validators=[Optional(), *MEMBER_ID_FORMAT])


@pa_cases.get("/status")
def status():
    """Auth status inquiry: one case by number, or every case of a member."""
    form = StatusInquiryForm(request.args)
    form.payer_id.choices = payer_choices()
    describe(tab="status_inquiry")
    searched = bool(request.args.get("case_number") or request.args.get("member_id") or request.args.get("search"))
    page = None
    if searched and form.validate():
        # Each row shows its primary service line.
        stmt = select(PaRequest).where(PaRequest.status != "Draft").options(selectinload(PaRequest.lines))
        if form.case_number.data:
            case = db().scalar(stmt.where(func.upper(PaRequest.case_number) == form.case_number.data.strip().upper()))
            if case is not None:
                return redirect(url_for("pa_cases.case_detail", case_number=case.case_number))
            form.case_number.errors.append("No case was found with this number. Check the number on the "
                                           "confirmation or letter.")
        elif not form.member_id.data or not form.payer_id.data:
            form.member_id.errors.append("Enter a case number, or select the payer and enter the member ID.")
        else:
            describe(record_type="member", record_id=form.member_id.data.strip().upper())
            stmt = stmt.where(PaRequest.payer_id == form.payer_id.data,
                              func.upper(PaRequest.member_id) == form.member_id.data.strip().upper())
            page = paginate(db(), apply_sort(stmt, SORTS, "submitted"), per_page=15)
    # A member with no requests is an answer, not a mistake in the search: it is shown as a
    # result, not as a field error.
    return render_template("pa/status.html", section="auth", subsection="status", form=form, page=page,
                           searched=searched)


def _case(case_number: str) -> PaRequest:
    pa = db().scalar(select(PaRequest).where(PaRequest.case_number == case_number))
    if pa is None:
        abort(404)
    return pa


@pa_cases.get("/cases/<case_number>")
def case_detail(case_number: str):
    """A case: determination, lines, answers, documents, history and letters (tabs)."""
    settle_due_preservice_appeals(db())  # an appeal due by now is decided before the case is shown
    pa = _case(case_number)
    tab = request.args.get("tab", "summary")
    tab = tab if tab in CASE_TABS else "summary"
    describe(record_type="pa_case", record_id=pa.case_number, tab=tab)
    return _render_case(pa, tab, attachment_form())


def _render_case(pa: PaRequest, tab: str, form: AttachmentForm, status_code: int = 200):
    letters = list(db().scalars(select(Letter).where(Letter.case_number == pa.case_number).order_by(Letter.id)))
    questionnaire = load_policy().questionnaire(pa.questionnaire or "")
    session = db()
    follow_ups = {"changes": list(session.scalars(select(AuthChange).where(AuthChange.request_id == pa.id))),
                  "calls": list(session.scalars(select(PeerToPeer).where(PeerToPeer.request_id == pa.id))),
                  "appeals": list(session.scalars(select(AuthAppeal).where(AuthAppeal.request_id == pa.id)))}
    return render_template("pa/case.html", section="auth", subsection="status", pa=pa, tab=tab, letters=letters,
                           questionnaire=questionnaire, form=form, follow_ups=follow_ups), status_code


@pa_cases.post("/cases/<case_number>/documents")
def add_documents(case_number: str):
    """Answer a pend: attach the requested document, then the case is reviewed again."""
    pa = _case(case_number)
    describe(action="add_pended_documents", record_type="pa_case", record_id=pa.case_number, tab="documents")
    if pa.status != "Pended":
        flash("Documents can only be added to a pended case.", "error")
        return redirect(url_for("pa_cases.case_detail", case_number=pa.case_number, tab="documents"))
    form = attachment_form()
    upload = None
    if form.validate():
        try:
            upload = read_pdf_upload(request.files.get("file"))
        except UploadError as exc:
            form.file.errors = [str(exc)]
    if upload is None:
        return _render_case(pa, "documents", form, 422)
    session = db()
    pa.attachments.append(PaAttachment(
        document_type=form.document_type.data, **stored_file_values(upload), stage="Additional information",
        uploaded_at=clock.now(), uploaded_by=current_username()))
    session.flush()
    reevaluate_after_documents(session, pa, 1)
    describe(file_name=upload.filename, sha256=upload.sha256, status=pa.status)
    flash(f"{upload.filename} added. The case was reviewed again: {pa.status}.", "success")
    return redirect(url_for("pa_cases.case_detail", case_number=pa.case_number))


@pa_cases.get("/requests/<int:request_id>/attachments/<int:attachment_id>")
def attachment(request_id: int, attachment_id: int):
    """Download an attached PDF."""
    row = get_or_404(PaAttachment, attachment_id)
    if row.request_id != request_id:
        abort(404)
    pa = row.request
    describe(action="download_attachment", record_type="pa_case" if pa.case_number else "pa_request",
             record_id=pa.case_number or str(pa.id), tab="documents", file_name=row.file_name)
    return Response(row.content, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{row.file_name}"'})


@pa_cases.get("/drafts")
def drafts():
    """Requests started and not yet submitted."""
    describe(tab="drafts")
    stmt = (select(PaRequest).where(PaRequest.status == "Draft").order_by(PaRequest.id.desc())
            .options(selectinload(PaRequest.lines)))
    page = paginate(db(), stmt, per_page=20)
    return render_template("pa/drafts.html", section="auth", subsection="drafts", page=page)


@pa_cases.post("/requests/<int:request_id>/delete")
def delete_draft(request_id: int):
    """Discard a draft (confirmed in a dialog); submitted cases cannot be deleted."""
    pa = get_or_404(PaRequest, request_id)
    if pa.status != "Draft":
        abort(404)
    describe(action="delete_pa_draft", record_type="pa_request", record_id=str(pa.id), tab="drafts")
    session = db()
    session.delete(pa)
    session.commit()
    flash(f"Draft #{request_id} was deleted.", "success")
    return redirect(url_for("pa_cases.drafts"))

