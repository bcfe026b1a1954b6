"""Transferring a denied claim's balance to the patient (self-pay), from the claim page: the
payer denied for eligibility and no coverage was in force on the date of service to bill
instead (billing another coverage is the claim page's Bill another payer, claim_rebill.py).

Rules (a refused transfer writes nothing and says why):
- Only a denied claim with nothing paid, and only once: a claim already transferred, or
  already billed to another payer, is not transferred.
- Only when the payer denied for eligibility (CARC 26 or 27: the patient was not covered on
  the date of service). Any other contractual denial may not be billed to the patient.
- A reason is required; the claim's panel shows it with who transferred the balance and when.
"""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms_changes import PatientTransferForm
from admindesk.envs.ehr_web.models_work import BalanceTransfer, Claim
from admindesk.envs.ehr_web.vocab import ELIGIBILITY_CARCS


def claim_problem(claim: Claim) -> str | None:
    """Why this claim's balance cannot be transferred to the patient at all, or None."""
    if claim.transfer is not None:
        return (f"This claim's balance was already transferred to the patient on {claim.transfer.at:%m/%d/%Y}; "
                "it cannot be transferred again.")
    if claim.status != "Denied" or claim.paid_amount > 0:
        return "Only a denied claim with nothing paid can be transferred to the patient."
    billed = db().scalar(select(Claim.claim_number).where(Claim.billed_from == claim.claim_number))
    if billed is not None:
        return f"This service is billed to another payer on claim {billed}; its balance is not the patient's."
    return None


def _denial_carcs(claim: Claim) -> set[str]:
    return {a.carc_code for line in claim.lines for a in line.adjustments if a.group_code == "CO"}


def transfer_to_patient(claim: Claim, form: PatientTransferForm) -> BalanceTransfer | None:
    """Check the filled form and transfer the claim's balance to the patient; None, with
    nothing written and the reasons as field errors, when refused."""
    describe(action="transfer_to_patient", record_type="claim", record_id=claim.claim_number)
    valid = form.validate()
    problem = claim_problem(claim) or (
        None if _denial_carcs(claim) & ELIGIBILITY_CARCS else
        "Only a denial for eligibility (CARC 26 or 27) can be billed to the patient; this contractual denial cannot.")
    if problem:
        form.reason.errors = list(form.reason.errors) + [problem]
        return None
    if not valid:
        return None
    transfer = BalanceTransfer(claim_number=claim.claim_number, mrn=claim.mrn, amount=claim.balance,
                               reason=form.reason.data.strip(), at=clock.now(), username=current_username())
    db().add(transfer)
    db().commit()
    describe(amount=transfer.amount)
    return transfer
