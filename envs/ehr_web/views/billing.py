"""Billing: the patient's claims, a claim's lines and denial, its remittance (EOB)."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, url_for
from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.code_sets import CARC, RARC
from admindesk.envs.common.web import db, get_or_404
from admindesk.envs.ehr_web import balance_transfers
from admindesk.envs.ehr_web.forms import NoteForm
from admindesk.envs.ehr_web.models import AdjustmentCode, Facility, Provider
from admindesk.envs.ehr_web.models_work import BalanceTransfer, Claim, WorkItem
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


def _render_claim(claim: Claim, form: NoteForm | None = None, status: int = 200, transfer_form=None):
    carc, rarc = code_descriptions(claim)
    session = db()
    patient = patient_or_404(claim.mrn)
    items = list(session.scalars(select(WorkItem).where(WorkItem.claim_number == claim.claim_number)
                                 .order_by(WorkItem.id)))
    rebilled_from = session.scalar(select(BalanceTransfer).where(BalanceTransfer.new_claim_number == claim.claim_number))
    transfer_form = transfer_form or balance_transfers.transfer_form(claim, list(patient.coverages), formdata=None)
    return render_chart(patient, "billing", "claim_detail.html", status=status, claim=claim,
                        carc=carc, rarc=rarc, denials=denials(claim), items=items,
                        rendering=session.get(Provider, claim.rendering_npi),
                        facility=session.get(Facility, claim.facility_id), today=clock.today(),
                        notes=notes_for("claim", claim.claim_number), form=form or NoteForm(formdata=None),
                        transfer_form=transfer_form, transfer_closed=balance_transfers.claim_problem(claim),
                        rebilled_from=rebilled_from)


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
    carc, rarc = code_descriptions(claim)
    return render_chart(patient_or_404(claim.mrn), "billing", "remittance.html", claim=claim, era=claim.remittance,
                        carc=carc, rarc=rarc, denials=denials(claim))


@billing.post("/claims/<claim_number>/balance-transfer")
def transfer_balance(claim_number: str):
    """Rebill the denied claim to another coverage, or transfer its balance to self-pay."""
    claim = get_or_404(Claim, claim_number)
    coverages = list(patient_or_404(claim.mrn).coverages)
    form = balance_transfers.transfer_form(claim, coverages)
    transfer = balance_transfers.move_balance(claim, coverages, form)
    if transfer is None:
        return _render_claim(claim, status=422, transfer_form=form)
    flash(f"Claim {transfer.new_claim_number} created for the other coverage." if transfer.new_claim_number
          else f"Balance {claim.balance:,.2f} transferred to self-pay.", "success")
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
