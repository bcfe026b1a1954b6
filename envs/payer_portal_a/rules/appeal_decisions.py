"""The payer's appeal rules: which appeals may be filed (level order, window, one open
appeal per claim), the decision an appeal gets at filing, and recording a decision
(row, decision letter, and on overturn the reprocessed claim and its remittance).

Payers with `immediate_reconsideration` decide a reconsideration at once when the
evidence settles it: a CO-197 denial with a cited auth number (overturned when that
auth covers the member, code and date of service, upheld when it does not) or a CO-29
denial with a proof-of-filing date (overturned when it is within the payer's filing
limit, upheld when the claim was truly late). Everything else stays In Review with a
due date: the payer's review days, or the external review organisation's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_a.letters import add_letter, appeal_rights, external_review_rights
from admindesk.envs.payer_portal_a.models import Appeal, Claim, PaRequest
from admindesk.envs.payer_portal_a.rules.determination import AUTHORIZED_STATUSES
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for, timing
from admindesk.envs.payer_portal_a.rules.reprocessing import current_adjustments, reprocess

KINDS = ("Reconsideration", "Formal Appeal", "Clinical Appeal")
LEVELS = {"1": "Level 1", "2": "Level 2", "External": "External review"}
UPHELD, OVERTURNED, PARTIAL = "Upheld", "Overturned", "Partially Overturned"
IN_REVIEW, DECIDED = "In Review", "Decided"
DECISION_CATEGORY = "Appeal Decision"


@dataclass
class AppealOutcome:
    """A decision (None: stays in review) with its reason and the lines to pay."""

    decision: str | None
    reason: str
    paid_lines: list[int] = field(default_factory=list)


def claim_appeals(session: Session, claim_number: str) -> list[Appeal]:
    return list(session.scalars(select(Appeal).where(Appeal.claim_number == claim_number).order_by(Appeal.id)))


def filing_refusal(session: Session, claim: Claim, kind: str, level: str, today: date) -> str | None:
    """Why this appeal cannot be filed (clear, quoting the rule), or None."""
    if claim.remittance is None:
        return "This claim has not been adjudicated yet; appeals can be filed once a remittance is issued."
    appeals = claim_appeals(session, claim.claim_number)
    if level != "1":
        refusal = _later_level_refusal(claim, appeals, kind, level, today)
        if refusal:
            return refusal
    open_appeal = next((a for a in appeals if a.status == IN_REVIEW), None)
    if open_appeal:
        return (f"Appeal {open_appeal.reference_number} on claim {claim.claim_number} is still in review (decision "
                f"due {open_appeal.decision_due:%m/%d/%Y}). Only one open appeal per claim is accepted.")
    if level == "1":
        if any(a.level == "1" for a in appeals):
            return f"A level 1 appeal was already decided on claim {claim.claim_number}; file a level 2 appeal."
        deadline = claim.remittance.appeal_deadline
        if deadline < today:
            return (f"The appeal deadline for claim {claim.claim_number} was {deadline:%m/%d/%Y}. "
                    "The payer does not accept appeals after the filing limit; this request cannot be submitted.")
    return None


def _later_level_refusal(claim: Claim, appeals: list[Appeal], kind: str, level: str, today: date) -> str | None:
    if kind == "Reconsideration":
        return "A reconsideration is a first-level request. Choose a formal or clinical appeal for later levels."
    needed = "1" if level == "2" else "2"
    prior = next((a for a in reversed(appeals) if a.level == needed), None)
    if prior is None or prior.decision is None:
        waiting = (f": appeal {prior.reference_number} is still in review (decision due {prior.decision_due:%m/%d/%Y})"
                   if prior else f"; no {LEVELS[needed].lower()} appeal is on file for claim {claim.claim_number}")
        return f"A {LEVELS[level].lower()} needs a {LEVELS[needed].lower()} decision first{waiting}."
    if prior.decision == OVERTURNED:
        return f"Appeal {prior.reference_number} overturned the denial in full; there is nothing left to appeal."
    if any(a.level == level for a in appeals):
        return f"A {LEVELS[level].lower()} is already on file for claim {claim.claim_number}."
    if level == "External" and kind != "Clinical Appeal":
        return "External review is available for clinical (medical necessity) denials only; choose Clinical Appeal."
    window = claim.payer.timely_appeal_days
    last_day = prior.decided_at.date() + timedelta(days=window)
    if last_day < today:
        return (f"The {LEVELS[level].lower()} had to be filed within {window} days of the decision on "
                f"{prior.reference_number} (by {last_day:%m/%d/%Y}). The payer does not accept it after that date.")
    return None


def prior_reference(session: Session, claim: Claim, level: str) -> str | None:
    needed = {"2": "1", "External": "2"}.get(level)
    return next((a.reference_number for a in reversed(claim_appeals(session, claim.claim_number))
                 if a.level == needed), None)


def _denied_lines(claim: Claim, carc: str) -> list[int]:
    return [line.line_no for line in claim.lines
            if any(a.carc == carc for a in current_adjustments(claim, line)) and line.paid < line.charge]


def _auth_covers(session: Session, claim: Claim, auth_number: str, code: str) -> bool:
    requests = session.scalars(select(PaRequest).where(func.upper(PaRequest.auth_number) == auth_number.upper(),
                                                       PaRequest.member_id == claim.member_id,
                                                       PaRequest.status.in_(AUTHORIZED_STATUSES)))
    for request in requests:
        for line in request.lines:
            start, end = line.approved_start or request.approved_start, line.approved_end or request.approved_end
            if line.code == code and line.decision == "Approved" and start <= claim.service_date <= end:
                return True
    return False


def decide_at_filing(session: Session, appeal: Appeal, claim: Claim) -> AppealOutcome:
    """The decision the payer's rules give when the appeal is filed (None: in review)."""
    rules = rules_for(claim.payer_id)
    if not (rules.immediate_reconsideration and appeal.appeal_type == "Reconsideration" and appeal.level == "1"):
        return AppealOutcome(None, "In review by the payer's appeals unit.")
    auth_lines = _denied_lines(claim, "197")
    if auth_lines and appeal.cited_auth_number:
        codes = {line.line_no: line.code for line in claim.lines}
        covered = [n for n in auth_lines if _auth_covers(session, claim, appeal.cited_auth_number, codes[n])]
        if covered:
            decision = OVERTURNED if len(covered) == len(auth_lines) else PARTIAL
            return AppealOutcome(decision, f"Authorization {appeal.cited_auth_number} is on file for this member, "
                                           f"service and date of service {claim.service_date:%m/%d/%Y}; the CO-197 "
                                           f"denial of line(s) {', '.join(map(str, covered))} is reversed.", covered)
        return AppealOutcome(UPHELD, f"Authorization {appeal.cited_auth_number} does not cover this member, the "
                                     f"billed service and the date of service {claim.service_date:%m/%d/%Y}. The "
                                     "CO-197 denial (authorization absent) stands.")
    late_lines = _denied_lines(claim, "29")
    if late_lines and appeal.proof_of_filing_date:
        limit = claim.service_date + timedelta(days=rules.claim_filing_days)
        first = claim.first_accepted_on
        if first is not None and appeal.proof_of_filing_date < first:
            return AppealOutcome(UPHELD, f"No transmission of this claim was accepted on "
                                         f"{appeal.proof_of_filing_date:%m/%d/%Y}: a claim rejected at the front end "
                                         f"was never received. The claim was first accepted on {first:%m/%d/%Y}. The "
                                         "CO-29 denial (timely filing) stands.")
        if appeal.proof_of_filing_date <= limit:
            return AppealOutcome(OVERTURNED, f"The proof shows the claim was first filed on "
                                             f"{appeal.proof_of_filing_date:%m/%d/%Y}, within the {rules.claim_filing_days}"
                                             f"-day filing limit (by {limit:%m/%d/%Y}); the CO-29 denial is reversed.",
                                 late_lines)
        return AppealOutcome(UPHELD, f"The claim was first filed on {appeal.proof_of_filing_date:%m/%d/%Y}, after "
                                     f"the {rules.claim_filing_days}-day filing limit ended on {limit:%m/%d/%Y}. "
                                     "The CO-29 denial (timely filing) stands.")
    return AppealOutcome(None, "In review by the payer's appeals unit.")


def review_due(claim: Claim, level: str) -> date:
    days = timing().external_review_days if level == "External" else rules_for(claim.payer_id).appeal_review_days
    return clock.today() + timedelta(days=days)


def record_decision(session: Session, appeal: Appeal, outcome: AppealOutcome, username: str = "payer") -> None:
    """Store a decision: the appeal row, the decision letter and, on overturn, the
    reprocessed claim with its remittance. Cases call it for appeals decided earlier."""
    claim = appeal.claim
    appeal.status, appeal.decision, appeal.decision_reason = DECIDED, outcome.decision, outcome.reason
    appeal.decided_at = clock.now()
    payment = ""
    if outcome.paid_lines:
        remittance = reprocess(session, claim, outcome.paid_lines, appeal.reference_number, username)
        payment = (f"\n\nThe claim was reprocessed: ${remittance.paid_amount:,.2f} paid on remittance "
                   f"{remittance.id} ({remittance.check_number}). Claim status: {claim.status}.")
    rights = ""
    if outcome.decision != OVERTURNED and appeal.level != "External":
        offer = external_review_rights if appeal.level == "2" else appeal_rights
        rights = f"\n\nNext level: {offer(claim.payer, appeal.decided_at)}"
    body = (f"Decision on the {LEVELS[appeal.level].lower()} {appeal.appeal_type.lower()} {appeal.reference_number} "
            f"for claim {claim.claim_number} (date of service {claim.service_date:%m/%d/%Y}): "
            f"{outcome.decision.upper()}.\n\nReason: {outcome.reason}{payment}{rights}")
    letter = add_letter(session, claim.payer, claim.member_id, claim.patient_name, DECISION_CATEGORY,
                        f"Appeal decision - {appeal.reference_number} - {outcome.decision}", body, appeal.decided_at,
                        claim_number=claim.claim_number, appeal_reference=appeal.reference_number)
    appeal.decision_letter_number = letter.letter_number
