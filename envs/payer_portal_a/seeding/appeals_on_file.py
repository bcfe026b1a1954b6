"""Appeals a task's case puts on file (world `appeals`), as this portal's own appeal rows.

Each is stored the way the appeal form stores a filing (row, claim timeline event,
acknowledgement letter) and, when decided, by the portal's own `record_decision`
(decision letter and, on an overturn, the reprocessed claim with its remittance), with
the portal's clock at the day of filing and then of the decision. So an appeal on file
is what the portal itself would hold had it been filed and decided on those days, and
the payer's filing rules apply to what the episode files next.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, time

from flask import Flask, g
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_a.letters import appeal_acknowledgement
from admindesk.envs.payer_portal_a.lifecycle_models import ClaimEvent
from admindesk.envs.payer_portal_a.models import Appeal, Claim, ClaimAdjustment, Provider
from admindesk.envs.payer_portal_a.rules.appeal_decisions import (
    IN_REVIEW,
    LEVELS,
    OVERTURNED,
    PARTIAL,
    UPHELD,
    AppealOutcome,
    prior_reference,
    record_decision,
    review_due,
)

KINDS = {"reconsideration": "Reconsideration", "formal": "Formal Appeal", "clinical": "Clinical Appeal"}
LEVEL_CODES = {"1": "1", "2": "2", "external": "External"}
DECISIONS = {"upheld": UPHELD, "overturned": OVERTURNED, "partially_overturned": PARTIAL}
# The appeal form's reason for the claim's denial code (CARC); "Other" for the rest.
FILING_REASONS = {"197": "Authorization was on file", "50": "Medical necessity", "4": "Corrected coding or modifier",
                  "97": "Corrected coding or modifier", "16": "Missing information now provided",
                  "29": "Timely filing proof", "22": "Coordination of benefits",
                  "27": "Member eligible on date of service"}
FILED_AT, DECIDED_AT = time(10, 15), time(15, 0)
SUBMITTED_BY = "billing.office"


@contextmanager
def clock_at(moment: datetime) -> Iterator[None]:
    """Run the portal's decision code outside a request with its clock reading `moment`
    (the clock keeps a request's time in `g`; a bare app context holds it here)."""
    with Flask(__name__).app_context():
        g.clock_now = moment
        yield


def seed_appeals_on_file(session: Session, world, payer_ids: set[str]) -> None:
    """Store the world's appeals on claims of this portal's payers, oldest filing first."""
    for record in world.appeals:
        if record.payer_id not in payer_ids:
            continue
        claim = session.get(Claim, record.claim_number)
        level = LEVEL_CODES[record.level]
        filed_at = datetime.combine(record.filed_on, FILED_AT)
        with clock_at(filed_at):
            appeal = _file(session, claim, record, level, filed_at)
        if record.status == "decided":
            with clock_at(datetime.combine(record.decided_on, DECIDED_AT)):
                record_decision(session, appeal, AppealOutcome(DECISIONS[record.decision], record.reason,
                                                               list(record.paid_lines)))
        session.flush()


def _file(session: Session, claim: Claim, record, level: str, filed_at: datetime) -> Appeal:
    contact = session.get(Provider, claim.rendering_npi) or session.get(Provider, claim.billing_npi)
    reason = _filing_reason(session, claim)
    appeal = Appeal(
        reference_number=record.reference, claim_number=claim.claim_number, payer_id=claim.payer_id,
        member_id=claim.member_id, appeal_type=KINDS[record.kind], level=level,
        prior_reference=prior_reference(session, claim, level), reason=reason,
        contact_name=contact.name[:80], contact_phone="".join(ch for ch in contact.phone if ch.isdigit()),
        letter_text=f"We ask for review of the denial of claim {claim.claim_number} (date of service "
                    f"{claim.service_date:%m/%d/%Y}): {reason.lower()}.",
        status=IN_REVIEW, submitted_at=filed_at, submitted_by=SUBMITTED_BY,
        decision_due=record.due_on or review_due(claim, level))
    session.add(appeal)
    session.flush()
    appeal.claim = claim
    session.add(ClaimEvent(claim_number=claim.claim_number, at=filed_at, status="Appeal filed",
                           note=f"{LEVELS[level]} {appeal.appeal_type.lower()} {appeal.reference_number} filed: "
                                f"{appeal.reason}.", username=SUBMITTED_BY))
    appeal_acknowledgement(session, appeal, claim.payer, claim.patient_name, filed_at)
    return appeal


def _filing_reason(session: Session, claim: Claim) -> str:
    carcs = session.scalars(select(ClaimAdjustment.carc).where(
        ClaimAdjustment.claim_number == claim.claim_number, ClaimAdjustment.group_code == "CO")
        .order_by(ClaimAdjustment.id))
    return next((FILING_REASONS[carc] for carc in carcs if carc in FILING_REASONS), "Other")
