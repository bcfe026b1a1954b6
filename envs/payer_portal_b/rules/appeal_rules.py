"""Keystone Mutual's appeal rules: levels, kinds, filing windows, decisions and their effects.

Keystone never decides an appeal at once. A filed appeal stays "In Review" until its
decision is recorded, due 30 days after filing for a pre-service appeal (a denied
precertification) and 60 days for a post-service appeal (a claim).

Filing rules, checked by `filing_problems`:

- One open appeal per claim or precertification.
- Level 1 (a "Reconsideration", "Formal appeal" or "Clinical appeal") within the EOB's
  appeal filing limit (post-service) or 60 days after the precertification denial.
- Level 2 only after a level-1 decision that did not fully overturn the denial, within 60
  days of that decision letter; a reconsideration is level 1 only.
- External review only after a level-2 decision, within 120 days of it, and only for a
  clinical (medical necessity) appeal.
- A dispute of an overpayment recovery (recovery_rules) at level 1, while the recovery
  is pending and before its notice's dispute date.

A decision (`decide`) writes the decision letter to the correspondence area; an
overturned post-service appeal reprocesses the claim (Keystone's fee schedule allows the
contract's share of billed charges, `contract_share`, on every overturned line) and issues a "Reprocessed" EOB with the
payment; an overturned pre-service appeal approves the precertification.
"""
from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.letters import issue_letter
from admindesk.envs.payer_portal_b.models import (
    Appeal,
    Claim,
    ClaimLine,
    ExplanationOfBenefits,
    PayerProfile,
    PrecertRequest,
)
from admindesk.envs.payer_portal_b.numbering import next_authorization_number
from admindesk.envs.payer_portal_b.rules.recovery_rules import dispute_problems

LEVELS = ("1", "2", "External review")
KINDS = ("Reconsideration", "Formal appeal", "Clinical appeal")
DECISIONS = ("Upheld", "Overturned", "Partially overturned")
IN_REVIEW = "In Review"
DECIDED = "Decided"
DECISION_DAYS = {"Pre-service": 30, "Post-service": 60}
PRE_SERVICE_FILING_DAYS = 60
NEXT_LEVEL_DAYS = {"2": 60, "External review": 120}


def contract_share(session: Session) -> float:
    """The share of billed charges the practice's contract allows (the reimbursement page's)."""
    return session.scalars(select(PayerProfile.allowed_share)).one()


def level_label(level: str) -> str:
    return level if level == "External review" else f"level {level}"


def appeals_of(session: Session, *, claim_number: str | None = None,
               precert_reference: str | None = None) -> list[Appeal]:
    """Every appeal of one claim or one precertification, oldest first."""
    stmt = select(Appeal).order_by(Appeal.submitted_at, Appeal.appeal_id)
    if claim_number is not None:
        stmt = stmt.where(Appeal.claim_number == claim_number)
    else:
        stmt = stmt.where(Appeal.precert_reference == precert_reference)
    return list(session.scalars(stmt))


def first_level_deadline(session: Session, *, claim: Claim | None = None,
                         precert: PrecertRequest | None = None) -> date | None:
    """The last day to file level 1: the EOB's filing limit, or 60 days after the precert denial."""
    if claim is not None:
        eob = session.scalars(select(ExplanationOfBenefits).where(
            ExplanationOfBenefits.claim_number == claim.claim_number,
            ExplanationOfBenefits.kind == "Original")).first()
        return eob.appeal_deadline if eob else None
    denied_on = precert.denied_on or precert.updated_at.date()
    return denied_on + timedelta(days=PRE_SERVICE_FILING_DAYS)


def filing_problems(session: Session, level: str, kind: str, today: date, *, claim: Claim | None = None,
                    precert: PrecertRequest | None = None,
                    recovery_dispute: bool = False) -> tuple[list[str], Appeal | None]:
    """The reasons Keystone refuses this filing (empty when accepted) and the prior-level appeal.
    A dispute of an overpayment recovery is filed in the notice's dispute period, not the EOB's."""
    subject = f"claim {claim.claim_number}" if claim else f"precertification {precert.reference_number}"
    history = appeals_of(session, claim_number=claim.claim_number if claim else None,
                         precert_reference=None if claim else precert.reference_number)
    open_appeal = next((a for a in history if a.status == IN_REVIEW), None)
    if open_appeal is not None:
        return [f"Appeal {open_appeal.appeal_id} ({level_label(open_appeal.level)}) is still in review for "
                f"{subject}. Keystone Mutual accepts one open appeal at a time."], None
    same_level = next((a for a in history if a.level == level), None)
    if same_level is not None:
        return [f"A {level_label(level)} appeal ({same_level.appeal_id}) was already filed for {subject}."], None
    problems: list[str] = []
    if kind == "Reconsideration" and level != "1":
        problems.append("A reconsideration is a level 1 review. Choose a formal or clinical appeal.")
    if level == "External review" and kind != "Clinical appeal":
        problems.append("External review is available only for clinical (medical necessity) appeals.")
    if recovery_dispute:
        if level != "1":
            problems.append("An overpayment recovery is disputed at level 1.")
        return problems + dispute_problems(session, claim, today), None
    if level == "1":
        deadline = first_level_deadline(session, claim=claim, precert=precert)
        if deadline is not None and deadline < today:
            problems.append(f"The level 1 appeal filing limit for {subject} ended on "
                            f"{deadline.strftime(DATE_FORMAT)}. Late appeals are not accepted.")
        return problems, None
    prior_level = LEVELS[LEVELS.index(level) - 1]
    prior = next((a for a in reversed(history) if a.level == prior_level), None)
    if prior is None or prior.status != DECIDED:
        problems.append(f"A {level_label(level)} appeal can be filed only after the {level_label(prior_level)} "
                        f"decision for {subject}.")
        return problems, None
    if prior.decision == "Overturned":
        problems.append(f"The {level_label(prior_level)} appeal {prior.appeal_id} overturned the denial; "
                        "there is nothing left to appeal.")
    last_day = prior.decided_on + timedelta(days=NEXT_LEVEL_DAYS[level])
    if last_day < today:
        problems.append(f"The {level_label(level)} filing window ended on {last_day.strftime(DATE_FORMAT)} "
                        f"({NEXT_LEVEL_DAYS[level]} days after the {level_label(prior_level)} decision of "
                        f"{prior.decided_on.strftime(DATE_FORMAT)}).")
    return problems, prior


def decision_due(service_type: str, filed_on: date) -> date:
    return filed_on + timedelta(days=DECISION_DAYS[service_type])


def decide(session: Session, appeal: Appeal, decision: str, reason: str, decided_on: date,
           overturned_lines: tuple[int, ...] = ()) -> None:
    """Record Keystone's decision: letter, and on overturn the reprocessed claim or approved precert.

    `overturned_lines` names the claim lines a partial overturn pays (all lines on a full one).
    Raises ValueError for an appeal already decided or an unknown decision; caller commits.
    """
    if appeal.status != IN_REVIEW:
        raise ValueError(f"Appeal {appeal.appeal_id} is not in review.")
    if decision not in DECISIONS:
        raise ValueError(f"Unknown appeal decision {decision!r}.")
    if decision == "Partially overturned" and (appeal.service_type != "Post-service" or not overturned_lines):
        raise ValueError("A partial overturn names the claim lines it pays.")
    appeal.status, appeal.decision, appeal.decision_reason, appeal.decided_on = DECIDED, decision, reason, decided_on
    payment = None
    if decision != "Upheld" and appeal.service_type == "Post-service":
        payment = _reprocess_claim(session, appeal, overturned_lines if decision != "Overturned" else (), decided_on)
    elif decision == "Overturned":
        _approve_precert(session, appeal, decided_on)
    letter = issue_letter(
        session, letter_type="Appeal decision", subscriber_id=appeal.subscriber_id, claim_number=appeal.claim_number,
        related_type="appeal", related_id=appeal.appeal_id,
        subject=f"Appeal decision: {decision} ({level_label(appeal.level)}, {appeal.kind})",
        fields=_letter_fields(appeal, payment), body=_letter_body(appeal, decision, reason), issued_on=decided_on)
    appeal.letter_id = letter.letter_id


def _reprocess_claim(session: Session, appeal: Appeal, lines_paid: tuple[int, ...], paid_on: date) -> float:
    claim = session.get(Claim, appeal.claim_number)
    lines = list(session.scalars(select(ClaimLine).where(ClaimLine.claim_number == claim.claim_number)))
    before, share = claim.paid_amount, contract_share(session)
    for line in lines:
        if not lines_paid or line.line_no in lines_paid:
            line.paid = max(line.paid, round(line.billed * share, 2))
    claim.paid_amount = round(sum(line.paid for line in lines), 2)
    claim.status = "Paid" if all(line.paid > 0 for line in lines) else "Partially Paid"
    payment = round(claim.paid_amount - before, 2)
    filing_days = session.scalars(select(PayerProfile.appeal_filing_days)).one()
    session.add(ExplanationOfBenefits(
        eob_id=f"RPR-{appeal.appeal_id}", claim_number=claim.claim_number, paid_on=paid_on,
        check_number=f"EFT{''.join(ch for ch in appeal.appeal_id if ch.isdigit())}", paid_amount=payment,
        patient_responsibility=0.0, appeal_deadline=paid_on + timedelta(days=filing_days), kind="Reprocessed",
        reason=f"Reprocessed after appeal {appeal.appeal_id} ({appeal.decision.lower()})."))
    return payment


def _approve_precert(session: Session, appeal: Appeal, decided_on: date) -> None:
    item = session.get(PrecertRequest, appeal.precert_reference)
    item.status = "Approved"
    item.decision_reason = f"Approved on appeal {appeal.appeal_id}."
    item.authorization_number = item.authorization_number or next_authorization_number(session)
    item.approved_units = item.units
    item.approved_start, item.approved_end = max(item.start_date, decided_on), item.end_date


def _letter_fields(appeal: Appeal, payment: float | None) -> list[tuple[str, str]]:
    fields = [("Appeal ID", appeal.appeal_id), ("Subscriber ID", appeal.subscriber_id),
              ("Appeal level", level_label(appeal.level).capitalize()), ("Appeal type", appeal.kind)]
    if appeal.claim_number:
        fields += [("Claim number", appeal.claim_number),
                   ("Date of service", appeal.service_date.strftime(DATE_FORMAT))]
    else:
        fields.append(("Precertification", appeal.precert_reference))
    fields.append(("Decision", appeal.decision))
    if payment is not None:
        fields.append(("Additional payment", f"${payment:,.2f}"))
    return fields


def _letter_body(appeal: Appeal, decision: str, reason: str) -> str:
    rights = {"1": "If you disagree, you may file a level 2 appeal within 60 days of the date of this letter.",
              "2": "If the denial concerned medical necessity, you may request an external review by an "
                   "independent review organization within 120 days of the date of this letter.",
              "External review": "This external review decision is final and binding on Keystone Mutual."}
    outcome = {"Upheld": "We reviewed your appeal and upheld the original determination.",
               "Overturned": "We reviewed your appeal and overturned the original determination.",
               "Partially overturned": "We reviewed your appeal and overturned the determination in part."}
    next_step = rights[appeal.level] if decision != "Overturned" else "No further action is needed."
    return f"{outcome[decision]}\n\nReason: {reason}\n\n{next_step}"
