"""Provider appeals on Keystone Mutual's appeal form: file, list, detail, attachments."""
from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404

from ..fields import DATE_FORMAT
from ..forms import AppealForm
from ..models import Appeal, Claim, ExplanationOfBenefits
from ..numbering import next_appeal_id
from ..portal import attachment_response, attachments_of, check_uploads, has_errors, payer, store_attachment

appeals = Blueprint("appeals", __name__, url_prefix="/appeals")
OPEN_STATUSES = ("Received", "In Review")
DECISION_DAYS = 30
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
    if eob.appeal_deadline < clock.today():
        form.claim_number.errors.append(f"The appeal filing limit for claim {number} ended on "
                                        f"{eob.appeal_deadline.strftime(DATE_FORMAT)}. Late appeals are not accepted.")
    open_appeal = session.scalars(select(Appeal).where(Appeal.claim_number == number,
                                                       Appeal.status.in_(OPEN_STATUSES))).first()
    if open_appeal is not None:
        form.claim_number.errors.append(f"Appeal {open_appeal.appeal_id} is already open for claim {number}.")
    if form.service_date.data and not form.service_date.errors and form.service_date.data != claim.service_date:
        form.service_date.errors.append(f"The date of service does not match our records for claim {number}.")
    if form.billed_amount.data is not None and abs(float(form.billed_amount.data) - claim.billed_amount) > 0.005:
        form.billed_amount.errors.append(f"The billed amount does not match our records for claim {number}.")
    return claim


@appeals.route("/new", methods=["GET", "POST"])
def new():
    """The appeal form; on success an appeal id is issued and the form's PDFs are kept."""
    form = AppealForm()
    if request.method == "GET" and request.args.get("claim"):
        form.claim_number.data = request.args["claim"][:20]
    if not form.is_submitted():
        describe(record_type="appeal", tab="appeal_form", claim_number=form.claim_number.data or "")
        return render_template("appeal_form.html", form=form, payer=payer())
    valid = form.validate()
    claim = _check_against_claim(form) if not form.claim_number.errors else None
    uploads = check_uploads([(form.document_type_1.data, request.files.get("attachment_1"), form.attachment_1),
                             (form.document_type_2.data, request.files.get("attachment_2"), form.attachment_2)])
    if not form.attachment_1.errors and not request.files.get("attachment_1"):
        form.attachment_1.errors = ["Attach the appeal letter or supporting document (PDF)."]
    if not valid or has_errors(form):
        describe(action="file_appeal_rejected", record_type="appeal", tab="appeal_form")
        return render_template("appeal_form.html", form=form, payer=payer()), 422
    session = db()
    appeal = Appeal(
        appeal_id=next_appeal_id(session), claim_number=claim.claim_number, subscriber_id=claim.subscriber_id,
        appellant_name=form.appellant_name.data.strip(), appellant_relationship=form.appellant_relationship.data,
        service_date=form.service_date.data, billed_amount=float(form.billed_amount.data),
        reason_category=form.reason_category.data, explanation=form.explanation.data.strip(),
        requested_outcome=form.requested_outcome.data, attested=True, status="Received",
        decision_due=clock.today() + timedelta(days=DECISION_DAYS), submitted_by=current_username(),
        submitted_at=clock.now())
    session.add(appeal)
    for document_type, upload in uploads:
        store_attachment("appeal", appeal.appeal_id, document_type, upload)
    session.commit()
    describe(action="file_appeal", record_type="appeal", record_id=appeal.appeal_id, claim_number=claim.claim_number)
    flash(f"Appeal {appeal.appeal_id} received for claim {claim.claim_number}.", "success")
    return redirect(url_for("appeals.detail", appeal_id=appeal.appeal_id))


@appeals.get("")
def status_list():
    """Appeals filed through the portal, searchable by appeal id, claim number or Subscriber ID."""
    query = request.args.get("q", "").strip()[:40]
    stmt = select(Appeal)
    if query:
        stmt = stmt.where(or_(Appeal.appeal_id.ilike(f"%{query}%"), Appeal.claim_number.ilike(f"%{query}%"),
                              Appeal.subscriber_id.ilike(f"%{query}%")))
    stmt = apply_sort(stmt, SORT_COLUMNS, "appeal")
    page = paginate(db(), stmt, per_page=15)
    describe(record_type="appeal", tab="status_list", query=query)
    return render_template("appeal_list.html", page=page, query=query)


@appeals.get("/<appeal_id>")
def detail(appeal_id: str):
    appeal = get_or_404(Appeal, appeal_id)
    describe(record_type="appeal", record_id=appeal_id, tab="detail", claim_number=appeal.claim_number)
    return render_template("appeal_detail.html", appeal=appeal, attachments=attachments_of("appeal", appeal_id),
                           payer=payer())


@appeals.get("/<appeal_id>/attachments/<int:attachment_id>")
def attachment(appeal_id: str, attachment_id: int):
    describe(action="download_attachment", record_type="appeal", record_id=appeal_id, tab="attachments",
             attachment_id=attachment_id)
    return attachment_response("appeal", appeal_id, attachment_id)
