"""Corrected claim submission (frequency 7 replacement, 8 void) and its status page."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.documents.uploads import UploadError, read_pdf_upload
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.payer_portal_a.corrected_claims import correction_refusal, file_correction
from admindesk.envs.payer_portal_a.lifecycle_forms import CorrectedClaimForm
from admindesk.envs.payer_portal_a.lifecycle_models import CorrectedClaim
from admindesk.envs.payer_portal_a.models import Claim, ProcedureCode
from admindesk.envs.payer_portal_a.validation import parse_diagnoses

corrected_claims = Blueprint("corrected_claims", __name__, url_prefix="/claims")


def _form(claim: Claim) -> CorrectedClaimForm:
    if request.method == "POST":
        return CorrectedClaimForm()
    lines = [{"code": ln.code, "modifiers": ", ".join(ln.modifiers), "units": ln.units, "charge": ln.charge,
              "diagnosis_codes": ", ".join(ln.diagnosis_codes)} for ln in claim.lines]
    return CorrectedClaimForm(data={"lines": lines, "auth_number": claim.auth_number or ""})


def _checked_lines(form: CorrectedClaimForm) -> list[dict] | None:
    """The lines as rows, or None after putting each bad code on its field."""
    session, rows = db(), []
    for entry in form.lines:
        line = entry.form
        code = line.code.data.strip().upper()
        if session.get(ProcedureCode, code) is None:
            line.code.errors.append("This CPT/HCPCS code is not in the code set.")
        diagnoses, error = parse_diagnoses(session, line.diagnosis_codes.data)
        if error:
            line.diagnosis_codes.errors.append(error)
        modifiers = [m.strip().upper() for m in (line.modifiers.data or "").split(",") if m.strip()]
        rows.append({"code": code, "modifiers": modifiers, "units": line.units.data,
                     "charge": float(line.charge.data), "diagnosis_codes": diagnoses})
    return None if any(e.form.code.errors or e.form.diagnosis_codes.errors for e in form.lines) else rows


@corrected_claims.route("/<claim_number>/corrected", methods=["GET", "POST"])
def new(claim_number: str):
    """Replace or void a paid or denied claim within the payer's corrected-claim limit."""
    claim = get_or_404(Claim, claim_number)
    describe(record_type="claim", record_id=claim.claim_number, tab="corrected_claim")
    form, refusal = _form(claim), correction_refusal(db(), claim, clock.today())

    def page(status: int, message: str | None = refusal):
        return render_template("claims/corrected_new.html", section="claims", claim=claim, form=form,
                               refusal=message), status

    if not form.is_submitted():
        return page(200)
    if refusal:
        return page(422)
    valid = form.validate()
    lines = _checked_lines(form) if valid else None
    eob = None
    storage = request.files.get(form.primary_eob.name)
    if storage is not None and storage.filename:
        try:
            eob = read_pdf_upload(storage)
        except UploadError as exc:
            form.primary_eob.errors = [str(exc)]
    if lines is None or form.primary_eob.errors:
        return page(422, None)
    corrected = file_correction(
        db(), claim, frequency_code=form.frequency_code.data, reason=form.correction_reason.data.strip(),
        auth_number=(form.auth_number.data or "").strip().upper() or None,
        primary_paid=float(form.primary_paid_amount.data) if form.primary_paid_amount.data is not None else None,
        primary_eob=eob, lines=lines, username=current_username())
    db().commit()
    describe(action="submit_corrected_claim", corrected_claim_number=corrected.corrected_claim_number,
             status=corrected.status)
    flash(f"Corrected claim {corrected.corrected_claim_number} submitted: {corrected.status}.", "success")
    return redirect(url_for("corrected_claims.detail", number=corrected.corrected_claim_number))


@corrected_claims.get("/corrected/<number>")
def detail(number: str):
    corrected = db().scalar(select(CorrectedClaim).where(CorrectedClaim.corrected_claim_number == number))
    if corrected is None:
        abort(404)
    describe(record_type="corrected_claim", record_id=number, tab="corrected_claim")
    return render_template("claims/corrected_detail.html", section="claims", corrected=corrected)
