"""Appeals a task's case puts on file (world `appeals`), as Keystone's own appeal rows.

Each is stored like the seeded appeal histories (appeal_history.py): a post-service
appeal "In Review" with Keystone's due date, then, when decided, Keystone's own
`decide` writes the decision, its letter (row and PDF) and, on an overturn, the
reprocessed claim and its EOB. Keystone's filing rules then apply to what the episode
files next (a level 2 only after a decided level 1, one open appeal per claim).
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b import models as m
from admindesk.envs.payer_portal_b.rules.appeal_rules import IN_REVIEW, decide, decision_due
from admindesk.envs.payer_portal_b.seeding.appeal_history import FILED_AT, OTHER_REASON, REASONS

KINDS = {"reconsideration": "Reconsideration", "formal": "Formal appeal", "clinical": "Clinical appeal"}
LEVELS = {"1": "1", "2": "2", "external": "External review"}
DECISIONS = {"upheld": "Upheld", "overturned": "Overturned", "partially_overturned": "Partially overturned"}
SUBMITTED_BY = "billing.office"


def seed_appeals_on_file(session: Session, world, payer_id: str) -> None:
    """Store the world's appeals on this payer's claims, oldest filing first (caller commits)."""
    last_on_claim: dict[str, str] = {}
    for record in world.appeals:
        if record.payer_id != payer_id:
            continue
        claim = session.get(m.Claim, record.claim_number)
        reason_category, outcome, _ = REASONS.get(_denial_carc(session, claim), OTHER_REASON)
        appellant = session.get(m.Provider, claim.rendering_npi) or session.get(m.Provider, claim.billing_npi)
        appeal = m.Appeal(
            appeal_id=record.reference, claim_number=claim.claim_number, subscriber_id=claim.subscriber_id,
            appellant_name=appellant.name if appellant else "Provider office",
            appellant_relationship="Rendering provider", service_date=claim.service_date,
            billed_amount=claim.billed_amount, reason_category=reason_category,
            explanation=f"We ask Keystone Mutual to review the denial of claim {claim.claim_number}.",
            requested_outcome=outcome, attested=True, status=IN_REVIEW,
            decision_due=record.due_on or decision_due("Post-service", record.filed_on),
            submitted_by=SUBMITTED_BY, submitted_at=datetime.combine(record.filed_on, FILED_AT),
            level=LEVELS[record.level], kind=KINDS[record.kind], service_type="Post-service",
            prior_appeal_id=last_on_claim.get(claim.claim_number) if record.level != "1" else None,
            decision_reason="")
        session.add(appeal)
        session.flush()
        if record.status == "decided":
            decide(session, appeal, DECISIONS[record.decision], record.reason, record.decided_on,
                   record.paid_lines if record.decision == "partially_overturned" else ())
        last_on_claim[claim.claim_number] = appeal.appeal_id
    session.flush()


def _denial_carc(session: Session, claim: m.Claim) -> str:
    """The claim's first contractual denial code (CARC), as the appeal histories read it."""
    carc = session.scalars(select(m.ClaimAdjustment.carc).where(
        m.ClaimAdjustment.claim_number == claim.claim_number, m.ClaimAdjustment.group_code == "CO",
        m.ClaimAdjustment.carc != "45").order_by(m.ClaimAdjustment.id)).first()
    return carc or ""
