"""Appeals and reconsiderations: file one on a claim, list them, open one."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.stored_files import stored_file_values
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.forms import AppealForm
from admindesk.envs.payer_portal_a.letters import appeal_acknowledgement
from admindesk.envs.payer_portal_a.lifecycle_models import ClaimEvent
from admindesk.envs.payer_portal_a.models import Appeal, AppealAttachment, Claim, Remittance
from admindesk.envs.payer_portal_a.rules.appeal_decisions import (
    IN_REVIEW,
    LEVELS,
    OVERTURNED,
    claim_appeals,
    decide_at_filing,
    filing_refusal,
    prior_reference,
    record_decision,
    review_due,
)
from admindesk.envs.payer_portal_a.web import document_type_choices

appeals = Blueprint("appeals", __name__, url_prefix="/appeals")
SORTS = {"reference": Appeal.reference_number, "claim": Appeal.claim_number, "type": Appeal.appeal_type,
         "status": Appeal.status, "submitted": Appeal.submitted_at}


@appeals.get("")
def index():
    """Appeal status list."""
    describe(tab="appeals")
    page = paginate(db(), apply_sort(select(Appeal), SORTS, "submitted"), per_page=20)
    return render_template("appeals/index.html", section="appeals", page=page, levels=LEVELS,
                           appealable=_appealable_denials())


APPEALABLE_SHOWN = 10


def _appealable_denials() -> list[Claim]:
    """Denied claims whose appeal window is still open and that have no appeal yet, soonest deadline first."""
    appealed = select(Appeal.claim_number)
    return list(db().scalars(select(Claim).join(Remittance, (Remittance.claim_number == Claim.claim_number)
                                                & (Remittance.kind == "Original"))
                             .where(Claim.status == "Denied", Remittance.appeal_deadline >= clock.today(),
                                    Claim.claim_number.not_in(appealed))
                             .order_by(Remittance.appeal_deadline, Claim.claim_number).limit(APPEALABLE_SHOWN)
                             .options(selectinload(Claim.remittance), selectinload(Claim.payer))))


def _appeal_form() -> AppealForm:
    form = AppealForm()
    form.attachment_type.choices = document_type_choices()
    return form


def _next_level(claim: Claim) -> str:
    """The level a new appeal on this claim would be: after the last decided level."""
    decided = [a.level for a in claim_appeals(db(), claim.claim_number) if a.decision]
    return {"1": "2", "2": "External"}.get(decided[-1], "External") if decided else "1"


def _read_optional_pdf(file_field) -> tuple[object | None, bool]:
    """(upload or None, ok): no file chosen is fine; a bad file puts its error on the field."""
    storage = request.files.get(file_field.name)
    if storage is None or not storage.filename:
        return None, True
    try:
        return read_pdf_upload(storage), True
    except UploadError as exc:
        file_field.errors = [str(exc)]
        return None, False


@appeals.route("/new", methods=["GET", "POST"])
def new():
    """Find the claim, then the appeal form; the payer's filing rules refuse what they do
    not accept (past the window, a level before the one below is decided, a second open
    appeal) and its appeal rules decide at once or leave the appeal in review."""
    claim_number = (request.args.get("claim_number") or "").strip().upper()
    describe(tab="new_appeal")
    if not claim_number:
        return render_template("appeals/find_claim.html", section="appeals", error=None, claim_number="")
    claim = db().scalar(select(Claim).where(func.upper(Claim.claim_number) == claim_number))
    if claim is None:
        return render_template("appeals/find_claim.html", section="appeals", claim_number=claim_number,
                               error="No claim was found with this number."), 422
    describe(record_type="claim", record_id=claim.claim_number, tab="new_appeal")
    form = _appeal_form()
    if not form.is_submitted():
        form.level.data = request.args.get("level") if request.args.get("level") in LEVELS else _next_level(claim)
        # Before a type is chosen, ask whether the level takes any appeal (external review: clinical ones only).
        kind = form.appeal_type.data or ("Clinical Appeal" if form.level.data == "External" else "Formal Appeal")
        refusal = filing_refusal(db(), claim, kind, form.level.data, clock.today())
        return render_template("appeals/new.html", section="appeals", claim=claim, form=form, refusal=refusal)
    valid = form.validate()
    letter_upload, letter_ok = _read_optional_pdf(form.letter_file)
    support_upload, support_ok = _read_optional_pdf(form.attachment_file)
    if valid and letter_ok and not letter_upload and not (form.letter_text.data or "").strip():
        form.letter_text.errors.append("Type the appeal letter or upload it as a PDF.")
    if support_upload and not form.attachment_type.data:
        form.attachment_type.errors.append("Select the type of the supporting document.")
    if not (valid and letter_ok and support_ok) or form.letter_text.errors or form.attachment_type.errors:
        return render_template("appeals/new.html", section="appeals", claim=claim, form=form, refusal=None), 422
    refusal = filing_refusal(db(), claim, form.appeal_type.data, form.level.data, clock.today())
    if refusal:
        return render_template("appeals/new.html", section="appeals", claim=claim, form=form, refusal=refusal), 422
    appeal = _file_appeal(claim, form, letter_upload, support_upload)
    flash(f"{appeal.appeal_type} submitted. Reference number {appeal.reference_number}. "
          + (f"Decision: {appeal.decision}." if appeal.decision else f"In review; decision due {appeal.decision_due:%m/%d/%Y}."),
          "success")
    return redirect(url_for("appeals.detail", reference_number=appeal.reference_number))


def _file_appeal(claim: Claim, form: AppealForm, letter_upload, support_upload) -> Appeal:
    """Store the appeal, acknowledge it, and apply the decision the payer's rules give."""
    session = db()
    level = form.level.data
    appeal = Appeal(
        reference_number=numbering.appeal_reference(session), claim_number=claim.claim_number,
        payer_id=claim.payer_id, member_id=claim.member_id, appeal_type=form.appeal_type.data, level=level,
        prior_reference=prior_reference(session, claim, level), reason=form.reason.data,
        cited_auth_number=(form.cited_auth_number.data or "").strip().upper() or None,
        proof_of_filing_date=form.proof_of_filing_date.data, contact_name=form.contact_name.data.strip(),
        contact_phone="".join(ch for ch in form.contact_phone.data if ch.isdigit()),
        letter_text=(form.letter_text.data or "").strip() or None, status=IN_REVIEW, submitted_at=clock.now(),
        submitted_by=current_username(), decision_due=review_due(claim, level))
    for upload, kind in ((letter_upload, "Appeal letter"), (support_upload, form.attachment_type.data)):
        if upload is not None:
            appeal.attachments.append(AppealAttachment(document_type=kind, **stored_file_values(upload)))
    session.add(appeal)
    session.flush()
    appeal.claim = claim
    session.add(ClaimEvent(claim_number=claim.claim_number, at=clock.now(), status="Appeal filed",
                           note=f"{LEVELS[level]} {appeal.appeal_type.lower()} {appeal.reference_number} filed: "
                                f"{appeal.reason}.", username=current_username()))
    appeal_acknowledgement(session, appeal, claim.payer, claim.patient_name, clock.now())
    outcome = decide_at_filing(session, appeal, claim)
    if outcome.decision:
        record_decision(session, appeal, outcome)
    session.commit()
    describe(action="submit_appeal", record_type="claim", record_id=claim.claim_number, tab="new_appeal",
             appeal_reference=appeal.reference_number, decision=appeal.decision or IN_REVIEW)
    return appeal


@appeals.get("/<reference_number>")
def detail(reference_number: str):
    appeal = db().scalar(select(Appeal).where(Appeal.reference_number == reference_number))
    if appeal is None:
        abort(404)
    describe(record_type="appeal", record_id=appeal.reference_number, tab="appeal_detail")
    next_level = None
    if appeal.decision and appeal.decision != OVERTURNED and appeal.level != "External":
        later = [a for a in claim_appeals(db(), appeal.claim_number) if a.id > appeal.id]
        next_level = None if later else {"1": "2", "2": "External"}[appeal.level]
    return render_template("appeals/detail.html", section="appeals", appeal=appeal, levels=LEVELS,
                           next_level=next_level)


@appeals.get("/<reference_number>/attachments/<int:attachment_id>")
def attachment(reference_number: str, attachment_id: int):
    """Download a PDF filed with an appeal."""
    row = get_or_404(AppealAttachment, attachment_id)
    appeal = db().get(Appeal, row.appeal_id)
    if appeal.reference_number != reference_number:
        abort(404)
    describe(action="download_attachment", record_type="appeal", record_id=reference_number,
             file_name=row.file_name)
    return Response(row.content, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{row.file_name}"'})
