"""Billing: the patient's claims, a claim's lines and denial, its remittance (EOB)."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import also_viewed, describe
from admindesk.envs.common.code_sets import CARC, RARC
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.ehr_web import balance_transfers, claim_rebill
from admindesk.envs.ehr_web.forms import NoteForm, options
from admindesk.envs.ehr_web.forms_changes import BillOtherPayerForm, PatientTransferForm, ResubmitClaimForm
from admindesk.envs.ehr_web.models import AdjustmentCode, Facility, Provider
from admindesk.envs.ehr_web.models_work import Claim, WorkItem
from admindesk.envs.ehr_web.notes import add_note, notes_for
from admindesk.envs.ehr_web.views.chart_base import render_chart
from admindesk.envs.ehr_web.views.common import patient_or_404
from admindesk.envs.ehr_web.vocab import NON_DENIAL_CARCS

billing = Blueprint("billing", __name__)


def code_descriptions(claim: Claim) -> tuple[dict[str, str], dict[str, str]]:
    """CARC and RARC descriptions of every code on the claim."""
    session = db()
    carcs = {a.carc_code for line in claim.lines for a in line.adjustments}
    rarcs = {a.rarc_code for line in claim.lines for a in line.adjustments if a.rarc_code}
    carc = {code: row.description for code in carcs
            if (row := session.get(AdjustmentCode, {"code_set": CARC, "code": code}))}
    rarc = {code: row.description for code in rarcs
            if (row := session.get(AdjustmentCode, {"code_set": RARC, "code": code}))}
    return carc, rarc


def denials(claim: Claim) -> list:
    """The denial adjustments of the claim (unpaid lines, not contractual or patient share)."""
    return [(line, adj) for line in claim.lines if line.paid == 0 for adj in line.adjustments
            if adj.carc_code not in NON_DENIAL_CARCS]


@billing.get("/patients/<mrn>/billing")
def billing_tab(mrn: str):
    """Claims of the patient, newest service first, with denial and deadline flags."""
    patient = patient_or_404(mrn)
    claims = list(db().scalars(select(Claim).where(Claim.mrn == mrn)
                               .order_by(Claim.service_date.desc(), Claim.claim_number)))
    return render_chart(patient, "billing", "chart_billing.html", claims=claims,
                        denied={c.claim_number for c in claims if denials(c)}, today=clock.today())


def bill_form(claim: Claim, **form_args) -> BillOtherPayerForm:
    """The Bill another payer form offering the patient's coverages; `form_args` as FlaskForm takes them."""
    form = BillOtherPayerForm(**form_args)
    coverages = patient_or_404(claim.mrn).coverages
    form.coverage_id.choices = options([("", "- Select coverage -")] + [
        (c.id, f"{c.rank_label}: {c.payer.name} - {c.plan.name} ({c.member_id}), "
               f"{c.effective_date:%m/%d/%Y} to {c.termination_date.strftime('%m/%d/%Y') if c.termination_date else 'open'}")
        for c in coverages])
    return form


def _render_claim(claim: Claim, form: NoteForm | None = None, status: int = 200,
                  rebill_form: BillOtherPayerForm | None = None, transfer_form: PatientTransferForm | None = None,
                  resubmit_form: ResubmitClaimForm | None = None):
    carc, rarc = code_descriptions(claim)
    session = db()
    billed = list(session.scalars(select(Claim).where(Claim.billed_from == claim.claim_number)))
    items = list(session.scalars(select(WorkItem).where(WorkItem.claim_number == claim.claim_number)
                                 .order_by(WorkItem.id)))
    return render_chart(patient_or_404(claim.mrn), "billing", "claim_detail.html", status=status, claim=claim,
                        carc=carc, rarc=rarc, denials=denials(claim), items=items,
                        rendering=session.get(Provider, claim.rendering_npi),
                        facility=session.get(Facility, claim.facility_id), today=clock.today(),
                        notes=notes_for("claim", claim.claim_number), form=form or NoteForm(formdata=None),
                        billed=billed, rebill_form=rebill_form or bill_form(claim, formdata=None),
                        transfer_form=transfer_form or PatientTransferForm(formdata=None),
                        transfer_closed=balance_transfers.claim_problem(claim),
                        resubmit_form=resubmit_form or ResubmitClaimForm(formdata=None),
                        resubmit_closed=claim_rebill.resubmit_problem(claim),
                        identity_denied=claim_rebill.identity_denied(claim),
                        resubmit_member=claim_rebill.resubmitted_member_id(claim))


@billing.get("/claims/<claim_number>")
def claim_detail(claim_number: str):
    """Claim header, service lines, adjustments with CARC/RARC, denial and appeal deadline."""
    claim = get_or_404(Claim, claim_number)
    describe(record_type="claim", record_id=claim.claim_number)
    return _render_claim(claim)


@billing.get("/claims/<claim_number>/remittance")
def remittance(claim_number: str):
    """The remittance advice (EOB) for the claim, laid out like a payer's ERA."""
    claim = get_or_404(Claim, claim_number)
    if claim.remittance is None:
        describe(record_type="claim", record_id=claim.claim_number, action="view_remittance_missing")
        flash("No remittance has been received for this claim yet.", "info")
        return redirect(url_for("billing.claim_detail", claim_number=claim.claim_number))
    describe(record_type="remittance", record_id=claim.remittance.id, claim_number=claim.claim_number)
    # The EOB repeats the claim's header and lines: the access log counts the claim as seen.
    also_viewed(record_type="claim", record_id=claim.claim_number, shown_on="remittance")
    carc, rarc = code_descriptions(claim)
    return render_chart(patient_or_404(claim.mrn), "billing", "remittance.html", claim=claim, era=claim.remittance,
                        carc=carc, rarc=rarc, denials=denials(claim))


@billing.post("/claims/<claim_number>/transfer-to-patient")
def transfer_to_patient(claim_number: str):
    """Transfer the balance of a claim denied for eligibility to the patient (self-pay)."""
    claim = get_or_404(Claim, claim_number)
    form = PatientTransferForm()
    transfer = balance_transfers.transfer_to_patient(claim, form)
    if transfer is None:
        return _render_claim(claim, status=422, transfer_form=form)
    flash(f"Balance {transfer.amount:,.2f} transferred to the patient (self-pay).", "success")
    return redirect(url_for("billing.claim_detail", claim_number=claim.claim_number))


@billing.post("/claims/<claim_number>/resubmit")
def resubmit_claim(claim_number: str):
    """Send a claim again as an original claim: one the payer has no record of, or one it could not
    identify the member of (CARC 31) after registration's correction."""
    claim = get_or_404(Claim, claim_number)
    form = ResubmitClaimForm()
    sent = claim_rebill.resubmit(claim, form)
    if sent is None:
        return _render_claim(claim, status=422, resubmit_form=form)
    flash(f"Claim {claim.claim_number} resubmitted as an original claim (frequency {sent.frequency_code}).", "success")
    return redirect(url_for("billing.claim_detail", claim_number=claim.claim_number))


@billing.post("/claims/<claim_number>/notes")
def add_claim_note(claim_number: str):
    """Add a note to the claim (disposition, calls with the payer)."""
    claim = get_or_404(Claim, claim_number)
    form = NoteForm()
    if add_note(form, claim.mrn, "claim", claim.claim_number) is None:
        return _render_claim(claim, form, status=422)
    flash("Note added to the claim.", "success")
    return redirect(url_for("billing.claim_detail", claim_number=claim.claim_number) + "#notes")


@billing.post("/claims/<claim_number>/bill-other-payer")
def bill_other_payer(claim_number: str):
    """Bill a denied claim's service to another coverage of the patient as a new claim."""
    claim = get_or_404(Claim, claim_number)
    form = bill_form(claim)
    describe(action="bill_other_payer", record_type="claim", record_id=claim.claim_number,
             coverage_id=form.coverage_id.data)
    valid = form.validate()
    coverage = next((c for c in patient_or_404(claim.mrn).coverages if c.id == form.coverage_id.data), None)
    if coverage is None:
        form.coverage_id.errors = list(form.coverage_id.errors) + ["Choose the coverage to bill."]
        valid = False
    elif valid and (problem := claim_rebill.bill_problem(db(), claim, coverage, bool(denials(claim)))):
        form.coverage_id.errors = list(form.coverage_id.errors) + [problem]
        valid = False
    if not valid:
        return _render_claim(claim, status=422, rebill_form=form)
    new = claim_rebill.bill_other_payer(db(), claim, coverage, form.reason.data, clock.today())
    db().commit()
    describe(new_claim=new.claim_number)
    flash(f"New claim {new.claim_number} billed to {coverage.payer.name} (member {coverage.member_id}).", "success")
    return redirect(url_for("billing.claim_detail", claim_number=new.claim_number))
