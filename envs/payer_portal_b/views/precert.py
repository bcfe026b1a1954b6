"""Precertification: requirement lookup, the long request form, status list and detail."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.payer_portal_b.forms import AdditionalInfoForm, PrecertForm, RequirementLookupForm
from admindesk.envs.payer_portal_b.forms_workflow import ChangeForm, PeerToPeerForm, PeerToPeerOutcomeForm, WithdrawForm
from admindesk.envs.payer_portal_b.models import Appeal, MedicalPolicy, PrecertRequest, ProcedureCode, Provider
from admindesk.envs.payer_portal_b.portal import (
    attachment_response,
    attachments_of,
    payer,
    read_upload,
    requested_page_size,
    status_counts,
)
from admindesk.envs.payer_portal_b.precert_service import add_information, submit_request_form
from admindesk.envs.payer_portal_b.rules.precert_determination import policy_for_code
from admindesk.envs.payer_portal_b.rules.precert_rules import slot_choices
from admindesk.envs.payer_portal_b.rules.site_of_care import site_of_care_policy
from admindesk.envs.payer_portal_b.rules.therapy_limit import THERAPY_CODES, VISIT_LIMIT_POLICY
from admindesk.envs.payer_portal_b.workflow_models import PeerToPeer, PrecertEvent, PrecertLine

precert = Blueprint("precert", __name__, url_prefix="/precertification")
STATUSES = ("Approved", "Partially Approved", "Pended", "Denied", "Duplicate", "Not Required", "Cancelled",
            "Withdrawn")
SORT_COLUMNS = {"reference": PrecertRequest.reference_number, "subscriber": PrecertRequest.subscriber_id,
                "code": PrecertRequest.service_code, "start": PrecertRequest.start_date,
                "status": PrecertRequest.status, "submitted": PrecertRequest.submitted_at}


@precert.get("/requirements")
def requirements():
    """Is precertification required for a code, and may it be requested online?"""
    form = RequirementLookupForm(request.args)
    code = policy = site_policy = visit_limit_policy = None
    if request.args and form.validate():
        code = db().get(ProcedureCode, form.code.data.strip().upper())
        if code is None:
            form.code.errors.append("Keystone Mutual does not recognize this CPT/HCPCS code.")
        else:
            policy = policy_for_code(db(), code.code)
            site_policy = site_of_care_policy(db(), code.code)
            if code.code in THERAPY_CODES:
                visit_limit_policy = db().get(MedicalPolicy, VISIT_LIMIT_POLICY)
    describe(record_type="service_code", record_id=code.code if code else None, tab="requirements",
             fax_only=bool(policy and policy.fax_only))
    status = 422 if form.errors else 200
    return render_template("precert_requirements.html", form=form, code=code, policy=policy,
                           site_policy=site_policy, visit_limit_policy=visit_limit_policy, payer=payer()), status


@precert.route("/new", methods=["GET", "POST"])
def new():
    """The one long request form. Fax-only services are refused with the fax instructions."""
    form = PrecertForm()
    if request.method == "GET" and request.args.get("subscriber_id"):
        form.subscriber_id.data = request.args["subscriber_id"][:20]
    if form.is_submitted():
        session = db()
        submission = submit_request_form(session, form, request.files)
        created = submission.created
        if created is not None:
            session.commit()
            describe(action="submit_precert", record_type="precert", record_id=created.reference_number,
                     status=created.status, service_code=created.service_code)
            flash(f"Request {created.reference_number} received: {created.status}.", "success")
            return redirect(url_for("precert.detail", reference=created.reference_number))
        session.rollback()
        describe(action="submit_precert_rejected", record_type="precert", tab="request_form",
                 fax_only=submission.fax_policy is not None)
        return render_template("precert_form.html", form=form, fax_policy=submission.fax_policy, payer=payer()), 422
    describe(record_type="precert", tab="request_form")
    return render_template("precert_form.html", form=form, fax_policy=None, payer=payer())


@precert.get("")
def status_list():
    """All requests on file, searchable by reference number or Subscriber ID, by status."""
    query = request.args.get("q", "").strip()[:40]
    status = request.args.get("status", "")
    stmt = select(PrecertRequest)
    if query:
        stmt = stmt.where(or_(PrecertRequest.reference_number.ilike(f"%{query}%"),
                              PrecertRequest.subscriber_id.ilike(f"%{query}%"),
                              PrecertRequest.authorization_number.ilike(f"%{query}%"),
                              PrecertRequest.patient_name.ilike(f"%{query}%")))
    if status in STATUSES:
        stmt = stmt.where(PrecertRequest.status == status)
    if "sort" in request.args:
        stmt = apply_sort(stmt, SORT_COLUMNS, "submitted")
    else:  # newest first until the user picks a column
        stmt = stmt.order_by(PrecertRequest.submitted_at.desc(), PrecertRequest.reference_number.desc())
    page = paginate(db(), stmt, per_page=requested_page_size())
    describe(record_type="precert", tab="status_list", query=query, status=status)
    return render_template("precert_list.html", page=page, query=query, status=status, statuses=STATUSES,
                           tabs=status_counts(PrecertRequest.status, STATUSES))


@precert.get("/<reference>")
def detail(reference: str):
    """One request: what was asked, the determination, attachments, and (if pended) the reply form."""
    item = get_or_404(PrecertRequest, reference)
    describe(record_type="precert", record_id=item.reference_number, tab="detail")
    return render_detail(item)


def render_detail(item: PrecertRequest, status: int = 200, refusal: str = "", **forms):
    """The detail page with its action forms (blank, or the one that was just refused)."""
    session = db()
    providers = {npi: session.get(Provider, npi) for npi in (item.rendering_npi, item.referring_npi) if npi}
    code = session.get(ProcedureCode, item.service_code)
    p2p_form = forms.get("p2p_form") or PeerToPeerForm(formdata=None)
    p2p_form.slot.choices = slot_choices(clock.today())
    ref = item.reference_number
    return render_template(
        "precert_detail.html", item=item, refusal=refusal, code=code, providers=providers, attachments=attachments_of("precert", ref),
        info_form=forms.get("info_form") or AdditionalInfoForm(formdata=None),
        withdraw_form=forms.get("withdraw_form") or WithdrawForm(formdata=None),
        change_form=forms.get("change_form") or ChangeForm(formdata=None), p2p_form=p2p_form,
        outcome_form=forms.get("outcome_form") or PeerToPeerOutcomeForm(formdata=None),
        lines=list(session.scalars(select(PrecertLine).where(PrecertLine.reference_number == ref)
                                   .order_by(PrecertLine.line_no))),
        events=list(session.scalars(select(PrecertEvent).where(PrecertEvent.reference_number == ref)
                                    .order_by(PrecertEvent.at, PrecertEvent.id))),
        reviews=list(session.scalars(select(PeerToPeer).where(PeerToPeer.precert_reference == ref)
                                     .order_by(PeerToPeer.p2p_id))),
        appeals=list(session.scalars(select(Appeal).where(Appeal.precert_reference == ref)
                                     .order_by(Appeal.appeal_id)))), status


@precert.post("/<reference>/additional-information")
def additional_information(reference: str):
    """Send a document (and corrected answers) for a pended request; it is decided again."""
    item = get_or_404(PrecertRequest, reference)
    if item.status != "Pended":
        abort(404)
    form = AdditionalInfoForm()
    errors: list[str] = []
    valid = form.validate()
    upload = read_upload(request.files.get("attachment"), errors)
    if upload is None and not errors:
        errors.append("Choose a PDF document to send.")
    form.attachment.errors = list(form.attachment.errors) + errors
    if not valid or errors:
        describe(action="add_information_rejected", record_type="precert", record_id=reference)
        return render_detail(item, 422, info_form=form)
    session = db()
    add_information(session, item, form.clinical_answers(), form.document_type.data, upload)
    session.commit()
    describe(action="add_information", record_type="precert", record_id=reference, status=item.status)
    flash(f"Information received for {reference}. Status: {item.status}.", "success")
    return redirect(url_for("precert.detail", reference=reference))


@precert.get("/<reference>/attachments/<int:attachment_id>")
def attachment(reference: str, attachment_id: int):
    describe(action="download_attachment", record_type="precert", record_id=reference, tab="attachments",
             attachment_id=attachment_id)
    return attachment_response("precert", reference, attachment_id)
