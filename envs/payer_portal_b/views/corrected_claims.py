"""Corrected claims: the form on a claim (replacement or void) and the corrected claim's page.

The rules are claim_rules'; a refusal re-renders the form with the rule quoted (422) and
writes nothing.
"""
from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_b.claim_models import CorrectedClaim
from admindesk.envs.payer_portal_b.fields import split_codes
from admindesk.envs.payer_portal_b.forms_claims import CorrectedClaimForm
from admindesk.envs.payer_portal_b.models import Claim, ClaimLine, ProcedureCode, Subscriber
from admindesk.envs.payer_portal_b.numbering import next_corrected_claim_number
from admindesk.envs.payer_portal_b.portal import (
    attachment_response,
    attachments_of,
    check_uploads,
    has_errors,
    store_attachment,
)
from admindesk.envs.payer_portal_b.precert_service import check_diagnoses
from admindesk.envs.payer_portal_b.rules.claim_rules import (
    CorrectedClaimFacts,
    adjudicate,
    apply_to_original,
    correction_problem,
)

corrected_claims = Blueprint("corrected_claims", __name__, url_prefix="/claims")


def _prefilled(claim: Claim) -> CorrectedClaimForm:
    """The form filled from the original claim, so the provider changes only what is wrong."""
    form = CorrectedClaimForm(formdata=None)
    lines = list(db().scalars(select(ClaimLine).where(ClaimLine.claim_number == claim.claim_number)
                              .order_by(ClaimLine.line_no)))
    form.authorization_number.data = claim.authorization_number or ""
    form.diagnosis_codes.data = ", ".join(dict.fromkeys(code for line in lines
                                                        for code in split_codes(line.diagnosis_codes)))
    for slot, line in zip(form.lines, lines):
        slot.code.data, slot.modifiers.data, slot.units.data = line.code, line.modifiers, line.units
        slot.charge.data = line.billed
    return form


def _render(claim: Claim, form: CorrectedClaimForm, status: int = 200, refusal: str = ""):
    return render_template("corrected_claim_form.html", claim=claim, form=form, refusal=refusal,
                           subscriber=db().get(Subscriber, claim.subscriber_id)), status


@corrected_claims.route("/<claim_number>/correct", methods=["GET", "POST"])
def new(claim_number: str):
    """Submit a replacement (7) or void (8) of this claim."""
    claim = get_or_404(Claim, claim_number)
    if request.method == "GET":
        describe(record_type="claim", record_id=claim_number, tab="corrected_claim_form")
        return _render(claim, _prefilled(claim))
    session = db()
    form = CorrectedClaimForm()
    valid = form.validate()
    problem = correction_problem(session, claim, form.frequency_code.data, clock.today())
    lines = form.entered_lines() if valid else []
    unknown = [line["code"] for line in lines if session.get(ProcedureCode, line["code"]) is None]
    if unknown:
        form.frequency_code.errors.append(f"Unknown procedure code(s): {', '.join(unknown)}.")
    if not form.diagnosis_codes.errors:
        check_diagnoses(session, form.diagnosis_codes)
    uploads = check_uploads([("Primary payer EOB", request.files.get("primary_eob"), form.primary_eob)])
    if problem is not None or not valid or has_errors(form):
        describe(action="submit_corrected_claim_rejected", record_type="claim", record_id=claim_number)
        return _render(claim, form, 422, problem or "")
    facts = CorrectedClaimFacts(
        frequency_code=form.frequency_code.data, lines=tuple(lines),
        authorization_number=(form.authorization_number.data or "").strip().upper() or None,
        primary_payer=(form.primary_payer.data or "").strip() or None,
        primary_paid_amount=float(form.primary_paid_amount.data) if form.primary_paid_amount.data is not None else None,
        has_primary_eob=bool(uploads), clearinghouse_report_number=(form.clearinghouse_report_number.data or "").strip() or None,
        clearinghouse_accepted_on=form.clearinghouse_accepted_on.data)
    outcome = adjudicate(session, claim, session.get(Subscriber, claim.subscriber_id), facts, clock.today())
    item = CorrectedClaim(
        corrected_claim_number=next_corrected_claim_number(session), original_claim_number=claim_number,
        frequency_code=facts.frequency_code, subscriber_id=claim.subscriber_id, service_date=claim.service_date,
        authorization_number=facts.authorization_number, diagnosis_codes=split_codes(form.diagnosis_codes.data),
        lines=list(facts.lines), correction_reason=form.correction_reason.data.strip(),
        billed_amount=round(sum(line["charge"] for line in facts.lines), 2), primary_payer=facts.primary_payer,
        primary_paid_amount=facts.primary_paid_amount, clearinghouse_report_number=facts.clearinghouse_report_number,
        clearinghouse_accepted_on=facts.clearinghouse_accepted_on, status=outcome.status,
        group_code=outcome.group_code, carc=outcome.carc, decision_reason=outcome.reason,
        allowed_amount=outcome.allowed, paid_amount=outcome.paid, submitted_by=current_username(),
        submitted_at=clock.now())
    session.add(item)
    for document_type, upload in uploads:
        store_attachment("corrected_claim", item.corrected_claim_number, document_type, upload)
    apply_to_original(claim, outcome)
    session.commit()
    describe(action="submit_corrected_claim", record_type="claim", record_id=claim_number,
             corrected_claim_number=item.corrected_claim_number, status=item.status)
    flash(f"Corrected claim {item.corrected_claim_number} received: {item.status}.", "success")
    return redirect(url_for("corrected_claims.detail", number=item.corrected_claim_number))


@corrected_claims.get("/corrected/<number>")
def detail(number: str):
    """One corrected claim: what was sent and how Keystone processed it."""
    item = get_or_404(CorrectedClaim, number)
    describe(record_type="corrected_claim", record_id=number, tab="detail")
    return render_template("corrected_claim_detail.html", item=item,
                           attachments=attachments_of("corrected_claim", number))


@corrected_claims.get("/corrected/<number>/attachments/<int:attachment_id>")
def attachment(number: str, attachment_id: int):
    describe(action="download_attachment", record_type="corrected_claim", record_id=number,
             attachment_id=attachment_id)
    return attachment_response("corrected_claim", number, attachment_id)
