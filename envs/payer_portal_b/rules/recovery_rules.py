"""Keystone Mutual's overpayment recoveries: the notice, the dispute window and the hold.

A post-payment review that finds a claim paid in error (here: paid twice for one service)
sends an overpayment notice and recovers the payment by offsetting it against later
payments. The office may dispute it through the appeal form (reason "Overpayment
recovery") until the notice's dispute date; a dispute filed in time puts the recovery on
hold while Keystone reviews it. Nothing needs to be done to accept a valid recovery: the
offset happens on its date.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.claim_models import OverpaymentRecovery
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.letters import issue_letter
from admindesk.envs.payer_portal_b.models import Appeal, Claim

RECOVERY_DISPUTE = "Overpayment recovery"
WITHDRAW_RECOVERY = "Withdraw the overpayment recovery"
PENDING_OFFSET = "Pending offset"
ON_HOLD = "On hold - disputed"
DUPLICATE_PAYMENT = "Duplicate payment"


def recovery_of(session: Session, claim_number: str) -> OverpaymentRecovery | None:
    return session.scalars(select(OverpaymentRecovery).where(OverpaymentRecovery.claim_number == claim_number)
                           .order_by(OverpaymentRecovery.notice_on.desc())).first()


def recoveries_of(session: Session, claim_numbers: list[str]) -> dict[str, OverpaymentRecovery]:
    """The recoveries on these claims, by claim number (what a claim list marks)."""
    rows = session.scalars(select(OverpaymentRecovery).where(OverpaymentRecovery.claim_number.in_(claim_numbers)))
    return {row.claim_number: row for row in rows}


def dispute_problems(session: Session, claim: Claim, today: date) -> list[str]:
    """Why Keystone refuses a recovery dispute on this claim (empty when it accepts it)."""
    recovery = recovery_of(session, claim.claim_number)
    if recovery is None:
        return [f"Keystone Mutual is not recovering a payment on claim {claim.claim_number}. Choose the reason "
                "that matches the determination you appeal."]
    if recovery.status != PENDING_OFFSET:
        return [f"The recovery on claim {claim.claim_number} is already {recovery.status.lower()} "
                f"(appeal {recovery.dispute_appeal_id})."]
    if recovery.dispute_by < today:
        return [f"The dispute period for overpayment notice {recovery.letter_id} ended on "
                f"{recovery.dispute_by.strftime(DATE_FORMAT)}; the recovery will be offset as the notice states."]
    return []


def hold_for_dispute(session: Session, appeal: Appeal) -> None:
    """A dispute filed in time holds the claim's recovery until it is decided (caller commits)."""
    recovery = recovery_of(session, appeal.claim_number)
    recovery.status, recovery.dispute_appeal_id = ON_HOLD, appeal.appeal_id


def issue_recovery(session: Session, claim: Claim, *, first_claim: Claim, notice_on: date, dispute_by: date,
                   amount: float) -> OverpaymentRecovery:
    """Send the duplicate-payment notice and open the recovery (caller commits)."""
    letter = issue_letter(
        session, letter_type="Overpayment notice", subscriber_id=claim.subscriber_id,
        claim_number=claim.claim_number, related_type="claim", related_id=claim.claim_number,
        subject=f"Overpayment notice: duplicate payment on claim {claim.claim_number}",
        fields=[("Claim number", claim.claim_number), ("Subscriber ID", claim.subscriber_id),
                ("Patient", claim.patient_name), ("Date of service", claim.service_date.strftime(DATE_FORMAT)),
                ("Amount to be recovered", f"${amount:,.2f}"), ("Claim paid first", first_claim.claim_number),
                ("Dispute by", dispute_by.strftime(DATE_FORMAT))],
        body=(f"Our post-payment review found that claim {claim.claim_number} was paid for the same service as "
              f"claim {first_claim.claim_number} (date of service {first_claim.service_date.strftime(DATE_FORMAT)}), "
              f"which we paid first. The payment of ${amount:,.2f} on claim {claim.claim_number} is an "
              f"overpayment. We will recover it by offsetting it against payments we issue to you on or after "
              f"{dispute_by.strftime(DATE_FORMAT)}. No action is needed if you agree. If you believe the two claims "
              f"are for different services, file a dispute through Provider Appeals (reason: Overpayment "
              f"recovery) by {dispute_by.strftime(DATE_FORMAT)}, explaining how the services differ; we hold the "
              "recovery while we review your dispute."),
        issued_on=notice_on)
    recovery = OverpaymentRecovery(
        recovery_id=letter.letter_id.replace("KLT", "OPR"), claim_number=claim.claim_number,
        subscriber_id=claim.subscriber_id, reason=DUPLICATE_PAYMENT, first_claim_number=first_claim.claim_number,
        amount=amount, letter_id=letter.letter_id, notice_on=notice_on, dispute_by=dispute_by, offset_on=dispute_by,
        status=PENDING_OFFSET)
    session.add(recovery)
    return recovery
