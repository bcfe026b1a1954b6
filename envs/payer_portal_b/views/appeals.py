"""Provider appeals on Keystone Mutual's appeal form: file (post- and pre-service), list, detail.

The filing rules (levels, kinds, windows, one open appeal) are appeal_rules'.
"""
from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.forms import NO_ATTACHMENT_NEEDED, AppealBasics, AppealForm
from admindesk.envs.payer_portal_b.models import Appeal, Claim, ExplanationOfBenefits, PrecertRequest
from admindesk.envs.payer_portal_b.numbering import next_appeal_id
from admindesk.envs.payer_portal_b.portal import (
    attachment_response,
    attachments_of,
    check_uploads,
    has_errors,
    payer,
    requested_page_size,
    status_counts,
    store_attachment,
)
from admindesk.envs.payer_portal_b.rules.appeal_rules import (
    DECIDED,
    IN_REVIEW,
    appeals_of,
    decision_due,
    filing_problems,
    first_level_deadline,
)
from admindesk.envs.payer_portal_b.rules.recovery_rules import RECOVERY_DISPUTE, hold_for_dispute
from admindesk.envs.payer_portal_b.workflow_models import Correspondence

appeals = Blueprint("appeals", __name__, url_prefix="/appeals")
SORT_COLUMNS = {"appeal": Appeal.appeal_id, "claim": Appeal.claim_number, "status": Appeal.status,
                "submitted": Appeal.submitted_at, "due": Appeal.decision_due}


def _check_against_claim(form) -> Claim | None:
    """The form must name a processed claim, match its DOS and billed amount, and be on time."""
    session = db()
    number = form.claim_number.data.strip().upper()
    claim = session.get(Claim, number)
    if claim is None:
        form.claim_number.errors.append(f"No claim {number} is on file with Keystone Mutual.")
        return None
    eob = session.scalars(select(ExplanationOfBenefits).where(ExplanationOfBenefits.claim_number == number)).first()
    if eob is None:
        form.claim_number.errors.append(f"Claim {number} is still in process; appeal it after its EOB is issued.")
        return None
    if not form.kind.errors and not form.level.errors:  # the rules need a valid level and kind
        problems, form.prior_appeal = filing_problems(session, form.level.data, form.kind.data, clock.today(),
                                                      claim=claim,
                                                      recovery_dispute=form.reason_category.data == RECOVERY_DISPUTE)
        form.level.errors = list(form.level.errors) + problems
    if form.service_date.data and not form.service_date.errors and form.service_date.data != claim.service_date:
        form.service_date.errors.append(f"The date of service does not match our records for claim {number}.")
    if form.billed_amount.data is not None and abs(float(form.billed_amount.data) - claim.billed_amount) > 0.005:
        form.billed_amount.errors.append(f"The billed amount does not match our records for claim {number}.")
    return claim


@appeals.route("/new", methods=["GET", "POST"])
def new():
    """The appeal form; on success an appeal id is issued and the form's PDFs are kept."""
    form = AppealForm()
    form.prior_appeal = None
    if request.method == "GET" and request.args.get("claim"):
        form.claim_number.data = request.args["claim"][:20]
    if not form.is_submitted():
        describe(record_type="appeal", tab="appeal_form", claim_number=form.claim_number.data or "")
        return _render_new(form)
    valid = form.validate()
    claim = _check_against_claim(form) if not form.claim_number.errors else None
    uploads = _check_attachments(form, [(form.document_type_2.data, request.files.get("attachment_2"),
                                          form.attachment_2)],
                                 required=form.reason_category.data not in NO_ATTACHMENT_NEEDED)
    if not valid or has_errors(form):
        describe(action="file_appeal_rejected", record_type="appeal", tab="appeal_form")
        return _render_new(form, 422)
    appeal = _file(form, uploads, claim_number=claim.claim_number, subscriber_id=claim.subscriber_id,
                   service_date=form.service_date.data, billed_amount=float(form.billed_amount.data),
                   reason_category=form.reason_category.data, requested_outcome=form.requested_outcome.data,
                   service_type="Post-service")
    if appeal.reason_category == RECOVERY_DISPUTE:
        hold_for_dispute(db(), appeal)
        db().commit()
    flash(f"Appeal {appeal.appeal_id} ({_level_text(appeal)}) received for claim {claim.claim_number}. "
          f"Status: In Review; decision due {appeal.decision_due.strftime(DATE_FORMAT)}.", "success")
    return redirect(url_for("appeals.detail", appeal_id=appeal.appeal_id))


PRE_SERVICE_ROWS = 10


def _render_new(form, status=200):
    """The post-service form, with the latest denied precertifications a pre-service appeal can open."""
    denied = db().scalars(select(PrecertRequest).where(PrecertRequest.status == "Denied")
                          .order_by(PrecertRequest.updated_at.desc(), PrecertRequest.reference_number)
                          .limit(PRE_SERVICE_ROWS))
    return render_template("appeal_form.html", form=form, payer=payer(), denied_precerts=list(denied)), status


@appeals.route("/precertification/<reference>", methods=["GET", "POST"])
def new_pre_service(reference: str):
    """Appeal a denied precertification before the service (due in 30 days)."""
    item = get_or_404(PrecertRequest, reference)
    form = AppealBasics()
    form.kind.data = form.kind.data or ("Clinical appeal" if not form.is_submitted() else "")
    history = appeals_of(db(), precert_reference=reference)
    deadline = first_level_deadline(db(), precert=item) if item.status == "Denied" else None
    if not form.is_submitted():
        describe(record_type="precert", record_id=reference, tab="pre_service_appeal")
        return _render_pre_service(form, item, history, deadline)
    valid = form.validate()
    if item.status != "Denied":
        form.level.errors = [f"Precertification {reference} is {item.status}; only a denied request can be appealed."]
    elif not form.kind.errors and not form.level.errors:  # the rules need a valid level and kind
        problems, form.prior_appeal = filing_problems(db(), form.level.data, form.kind.data, clock.today(),
                                                      precert=item)
        form.level.errors = list(form.level.errors) + problems
    uploads = _check_attachments(form, [])
    if not valid or has_errors(form):
        describe(action="file_pre_service_appeal_rejected", record_type="precert", record_id=reference)
        return _render_pre_service(form, item, history, deadline, 422)
    appeal = _file(form, uploads, claim_number=None, subscriber_id=item.subscriber_id, service_date=item.start_date,
                   billed_amount=None, reason_category="Medical necessity",
                   requested_outcome="Overturn the denial and approve the service", service_type="Pre-service",
                   precert_reference=reference)
    flash(f"Pre-service appeal {appeal.appeal_id} received for {reference}. Status: In Review; decision due "
          f"{appeal.decision_due.strftime(DATE_FORMAT)}.", "success")
    return redirect(url_for("appeals.detail", appeal_id=appeal.appeal_id))


def _render_pre_service(form, item, history, deadline, status=200):
    return render_template("appeal_pre_service.html", form=form, item=item, history=history, deadline=deadline,
                           payer=payer()), status


def _check_attachments(form, extra_slots, required: bool = True):
    """The form's PDFs; the first is required unless the appeal disputes the payment amount or a
    recovery (Keystone reviews those from its own claim records)."""
    uploads = check_uploads([(form.document_type_1.data, request.files.get("attachment_1"), form.attachment_1),
                             *extra_slots])
    if required and not form.attachment_1.errors and not request.files.get("attachment_1"):
        form.attachment_1.errors = ["Attach the appeal letter or supporting document (PDF)."]
    return uploads


def _level_text(appeal: Appeal) -> str:
    return appeal.level if appeal.level == "External review" else f"level {appeal.level}"


def _file(form, uploads, **facts) -> Appeal:
    """Store the appeal "In Review" with its due date and attachments, and commit."""
    session = db()
    now = clock.now()
    appeal = Appeal(
        appeal_id=next_appeal_id(session), appellant_name=form.appellant_name.data.strip(),
        appellant_relationship=form.appellant_relationship.data, explanation=form.explanation.data.strip(),
        attested=True, status=IN_REVIEW, decision_due=decision_due(facts["service_type"], now.date()),
        submitted_by=current_username(), submitted_at=now, level=form.level.data, kind=form.kind.data,
        prior_appeal_id=form.prior_appeal.appeal_id if form.prior_appeal else None, decision_reason="", **facts)
    session.add(appeal)
    for document_type, upload in uploads:
        store_attachment("appeal", appeal.appeal_id, document_type, upload)
    session.commit()
    describe(action="file_appeal", record_type="appeal", record_id=appeal.appeal_id,
             claim_number=appeal.claim_number or "", precert_reference=appeal.precert_reference or "",
             level=appeal.level)
    return appeal


@appeals.get("")
def status_list():
    """Appeals filed through the portal, searchable by appeal id, claim number or Subscriber ID."""
    query = request.args.get("q", "").strip()[:40]
    status = request.args.get("status", "")
    stmt = select(Appeal)
    if query:
        stmt = stmt.where(or_(Appeal.appeal_id.ilike(f"%{query}%"), Appeal.claim_number.ilike(f"%{query}%"),
                              Appeal.subscriber_id.ilike(f"%{query}%")))
    tabs = status_counts(Appeal.status, (IN_REVIEW, DECIDED))
    if status in dict(tabs):
        stmt = stmt.where(Appeal.status == status)
    stmt = apply_sort(stmt, SORT_COLUMNS, "appeal")
    page = paginate(db(), stmt, per_page=requested_page_size())
    describe(record_type="appeal", tab="status_list", query=query, status=status)
    return render_template("appeal_list.html", page=page, query=query, status=status, tabs=tabs)


@appeals.get("/<appeal_id>")
def detail(appeal_id: str):
    appeal = get_or_404(Appeal, appeal_id)
    describe(record_type="appeal", record_id=appeal_id, tab="detail", claim_number=appeal.claim_number)
    letter = db().get(Correspondence, appeal.letter_id) if appeal.letter_id else None
    chain = appeals_of(db(), claim_number=appeal.claim_number) if appeal.claim_number else appeals_of(
        db(), precert_reference=appeal.precert_reference)
    return render_template("appeal_detail.html", appeal=appeal, attachments=attachments_of("appeal", appeal_id),
                           letter=letter, chain=chain, payer=payer())


@appeals.get("/<appeal_id>/attachments/<int:attachment_id>")
def attachment(appeal_id: str, attachment_id: int):
    describe(action="download_attachment", record_type="appeal", record_id=appeal_id, tab="attachments",
             attachment_id=attachment_id)
    return attachment_response("appeal", appeal_id, attachment_id)
