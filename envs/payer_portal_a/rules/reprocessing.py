"""Reprocessing a claim when an appeal overturns its denial: new line payments, the
adjustment rows of a new remittance, the claim's new status and a timeline event."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.lifecycle_models import ClaimEvent
from admindesk.envs.payer_portal_a.models import Claim, ClaimAdjustment, Remittance
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for

PAID_STATUSES = ("Paid", "Partially Paid")


def current_adjustments(claim: Claim, line) -> list[ClaimAdjustment]:
    """The adjustments of the line's latest adjudication (original or reprocessed)."""
    latest = [a.remittance_id for a in line.adjustments if a.remittance_id]
    last = latest[-1] if latest else None
    return [a for a in line.adjustments if a.remittance_id == last]


def reprocess(session: Session, claim: Claim, line_numbers: list[int], appeal_reference: str,
              username: str) -> Remittance:
    """Pay the overturned lines at the payer's allowed rate and issue a remittance for them."""
    rules = rules_for(claim.payer_id)
    remittance = Remittance(id=numbering.remittance_id(session), claim_number=claim.claim_number,
                            kind="Reprocessed", appeal_reference=appeal_reference, paid_on=clock.today(),
                            check_number="", paid_amount=0.0, patient_responsibility=0.0,
                            appeal_deadline=clock.today())
    remittance.check_number = f"EFT-{remittance.id}"
    payment = 0.0
    for line in claim.lines:
        if line.line_no not in line_numbers:
            continue
        allowed = round(line.charge * rules.allowed_percent / 100, 2)
        session.add(ClaimAdjustment(claim_line_id=line.id, claim_number=claim.claim_number, line_no=line.line_no,
                                    group_code="CO", carc="45", rarc=None,
                                    amount=round(line.charge - allowed, 2), remittance_id=remittance.id))
        payment += allowed - line.paid
        line.paid = allowed
    payment = round(payment, 2)
    remittance.paid_amount = payment
    remittance.appeal_deadline = clock.today() + timedelta(days=claim.payer.timely_appeal_days)
    claim.paid_amount = round(claim.paid_amount + payment, 2)
    claim.status = "Paid" if all(line.paid > 0 for line in claim.lines) else "Partially Paid"
    session.add(remittance)
    session.add(ClaimEvent(claim_number=claim.claim_number, at=clock.now(), status=f"Reprocessed - {claim.status}",
                           note=f"Reprocessed on appeal {appeal_reference}: line(s) "
                                f"{', '.join(str(n) for n in line_numbers)} paid ${payment:,.2f} "
                                f"(remittance {remittance.id}).", username=username))
    return remittance
