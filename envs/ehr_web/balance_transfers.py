"""Moving a denied claim's balance off the payer that denied it, from the claim page:
rebill it to another of the patient's coverages (a new claim to that payer) or transfer it
to the patient (self-pay).

Rules (a refused transfer writes nothing and says why):
- Only a denied claim with nothing paid, and only once (a claim already moved is not moved again).
- Rebill: to another of the patient's coverages, one the registration shows in force on the
  claim's date of service. The new claim carries the same lines to that payer, under its member
  id, submitted today and pending adjudication; the denied claim keeps the payer's decision.
- Self-pay: only when the payer denied for eligibility (CARC 26 or 27: the patient was not
  covered on the date of service). Any other contractual denial may not be billed to the patient.
- A reason is required; the claim's panel shows it with who moved the balance and when.
"""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import options
from admindesk.envs.ehr_web.forms_changes import BalanceTransferForm
from admindesk.envs.ehr_web.models import Coverage
from admindesk.envs.ehr_web.models_work import BalanceTransfer, Claim, ClaimLine
from admindesk.envs.ehr_web.vocab import ELIGIBILITY_CARCS, REBILL, SELF_PAY


def transfer_form(claim: Claim, coverages: list[Coverage], **form_args) -> BalanceTransferForm:
    """The transfer form offering the patient's other coverages; `form_args` as FlaskForm takes them."""
    form = BalanceTransferForm(**form_args)
    form.coverage_id.choices = options([("", "- Select coverage -"), *(
        (c.id, f"{c.rank_label}: {c.payer.name} - {c.plan.name} ({c.member_id}), "
               f"{c.effective_date:%m/%d/%Y} to {c.termination_date.strftime('%m/%d/%Y') if c.termination_date else 'open'}")
        for c in coverages if c.id != claim.coverage_id)])
    return form


def claim_problem(claim: Claim) -> str | None:
    """Why no balance of this claim can be moved at all, or None."""
    if claim.transfer is not None:
        return (f"This claim's balance was already moved ({claim.transfer.kind.lower()} on "
                f"{claim.transfer.at:%m/%d/%Y}); it cannot be moved again.")
    if claim.status != "Denied" or claim.paid_amount > 0:
        return "Only a denied claim with nothing paid can be rebilled or transferred to self-pay."
    return None


def _denial_carcs(claim: Claim) -> set[str]:
    return {a.carc_code for line in claim.lines for a in line.adjustments if a.group_code == "CO"}


def transfer_problems(claim: Claim, form: BalanceTransferForm, coverage: Coverage | None) -> list[tuple[object, str]]:
    """(field, message) for each rule the filled form breaks."""
    problems = []
    if form.kind.data == REBILL:
        if coverage is None:
            problems.append((form.coverage_id, "Choose the coverage to bill."))
        elif not coverage.active_on(claim.service_date):
            problems.append((form.coverage_id, f"{coverage.payer.name} coverage is not in force on the date of "
                                               f"service {claim.service_date:%m/%d/%Y} (effective "
                                               f"{coverage.effective_date:%m/%d/%Y}); it cannot be billed for this "
                                               "claim."))
    elif form.kind.data == SELF_PAY:
        if form.coverage_id.data:
            problems.append((form.coverage_id, "A self-pay transfer bills no coverage; leave the coverage blank."))
        if not _denial_carcs(claim) & ELIGIBILITY_CARCS:
            problems.append((form.kind, "Only a denial for eligibility (CARC 26 or 27) can be billed to the patient; "
                                        "this contractual denial cannot."))
    return problems


def _rebill(claim: Claim, coverage: Coverage) -> str:
    """The new claim to `coverage`: the same lines, pending at that payer. Returns its number."""
    session = db()
    earlier = session.scalar(select(BalanceTransfer.id).where(BalanceTransfer.mrn == claim.mrn)
                             .order_by(BalanceTransfer.id.desc()).limit(1)) or 0
    number = f"{claim.claim_number}-R{earlier + 1}"
    session.add(Claim(claim_number=number, mrn=claim.mrn, payer_id=coverage.payer_id, coverage_id=coverage.id,
                      member_id=coverage.member_id, service_date=claim.service_date, billing_npi=claim.billing_npi,
                      rendering_npi=claim.rendering_npi, facility_id=claim.facility_id, submitted_on=clock.today(),
                      total_charge=claim.total_charge, paid_amount=0.0, status="Pending", order_id=claim.order_id,
                      auth_number=None))
    for line in claim.lines:
        session.add(ClaimLine(claim_number=number, line_no=line.line_no, code=line.code, modifiers=line.modifiers,
                              units=line.units, charge=line.charge, diagnosis_codes=line.diagnosis_codes, paid=0.0))
    return number


def move_balance(claim: Claim, coverages: list[Coverage], form: BalanceTransferForm) -> BalanceTransfer | None:
    """Check the filled form and move the claim's balance; None, with nothing written and the
    reasons as field errors, when refused."""
    describe(action="transfer_balance", record_type="claim", record_id=claim.claim_number, kind=form.kind.data)
    valid = form.validate()
    coverage = next((c for c in coverages if c.id == form.coverage_id.data and c.id != claim.coverage_id), None)
    problem = claim_problem(claim)
    if problem:
        form.kind.errors = list(form.kind.errors) + [problem]
        return None
    for field, message in transfer_problems(claim, form, coverage) if valid else ():
        field.errors = list(field.errors) + [message]
        valid = False
    if not valid:
        return None
    new_claim = _rebill(claim, coverage) if form.kind.data == REBILL else None
    transfer = BalanceTransfer(claim_number=claim.claim_number, mrn=claim.mrn, kind=form.kind.data,
                               from_coverage_id=claim.coverage_id, to_coverage_id=coverage.id if new_claim else None,
                               new_claim_number=new_claim, amount=claim.balance, reason=form.reason.data.strip(),
                               at=clock.now(), username=current_username())
    db().add(transfer)
    db().commit()
    describe(new_claim_number=new_claim, amount=transfer.amount)
    return transfer
