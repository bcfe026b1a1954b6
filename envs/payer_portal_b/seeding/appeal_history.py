"""Appeals already on file at Keystone, at later stages, drawn from the world's denied claims.

The payer's files hold three appeal histories, laid out backwards from the world's today
with fixed gaps that respect Keystone's own windows (appeal_rules.py):

- external review pending: the most recent medical-necessity (CO-50) denial whose level-1
  filing date falls inside its EOB's filing limit gets a clinical appeal upheld at level 1
  and level 2 (each with its decision letter) and an external review still in review;
- level 2 eligible: the most recent other denial that fits gets a formal level-1 appeal
  upheld 20 days ago, with its letter (the 60-day level-2 window is open);
- level 1 in review: the next most recent denial that fits gets a level-1 appeal filed
  12 days ago.

Only upheld decisions are on file: an overturn would reprocess the claim, and every app
must keep seeing the claim as the world has it. A case world carries only what its case
states: histories are laid only while the portal holds no appeal yet (the background
world is seeded first, and a case's records land on its template).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b import models as m
from admindesk.envs.payer_portal_b.numbering import next_appeal_id
from admindesk.envs.payer_portal_b.rules.appeal_rules import IN_REVIEW, decide, decision_due

# Days between the steps, backwards from today (each inside Keystone's window for it).
EXTERNAL_REVIEW_FILED_AGO = 30
LEVEL_2_DECIDED_BEFORE_EXTERNAL = 110   # external review within 120 days of the level-2 letter
LEVEL_2_REVIEW_DAYS = 40                # decided inside the 60-day review time
LEVEL_1_DECIDED_BEFORE_LEVEL_2 = 50     # level 2 within 60 days of the level-1 letter
LEVEL_1_REVIEW_DAYS = 50
RECENT_DECISION_AGO = 20
OPEN_APPEAL_FILED_AGO = 12
FILED_AT = time(14, 30)


@dataclass(frozen=True)
class Step:
    """One appeal of a history: level, kind, filing date, and decision date (None: in review)."""

    level: str
    kind: str
    filed_on: date
    decided_on: date | None


def external_review_history(today: date) -> list[Step]:
    er_filed = today - timedelta(days=EXTERNAL_REVIEW_FILED_AGO)
    l2_decided = er_filed - timedelta(days=LEVEL_2_DECIDED_BEFORE_EXTERNAL)
    l2_filed = l2_decided - timedelta(days=LEVEL_2_REVIEW_DAYS)
    l1_decided = l2_filed - timedelta(days=LEVEL_1_DECIDED_BEFORE_LEVEL_2)
    l1_filed = l1_decided - timedelta(days=LEVEL_1_REVIEW_DAYS)
    return [Step("1", "Clinical appeal", l1_filed, l1_decided), Step("2", "Clinical appeal", l2_filed, l2_decided),
            Step("External review", "Clinical appeal", er_filed, None)]


def level_2_eligible_history(today: date) -> list[Step]:
    decided = today - timedelta(days=RECENT_DECISION_AGO)
    return [Step("1", "Formal appeal", decided - timedelta(days=LEVEL_1_REVIEW_DAYS), decided)]


def open_level_1_history(today: date) -> list[Step]:
    return [Step("1", "Formal appeal", today - timedelta(days=OPEN_APPEAL_FILED_AGO), None)]


REASONS = {"50": ("Medical necessity", "Overturn the denial and pay the claim",
                  "The clinical documentation does not meet the medical policy criteria."),
           "197": ("Precertification / authorization on file", "Overturn the denial and pay the claim",
                   "No precertification was on file for the date of service."),
           "16": ("Coding or billing error", "Reprocess the claim with corrections",
                  "The claim still lacks the information needed to adjudicate it.")}
OTHER_REASON = ("Benefit or eligibility determination", "Reconsider the benefit determination",
                "The original determination follows the subscriber's benefits.")


def seed_appeal_history(session: Session, today: date = clock.DEFAULT_NOW.date()) -> None:
    """Lay the three histories on this payer's denied claims, once (caller commits)."""
    if session.scalar(select(m.Appeal.appeal_id).limit(1)) is not None:
        return
    denials = _denials_newest_first(session)
    used: set[str] = set()
    for layout, medical_necessity in ((external_review_history, True), (level_2_eligible_history, False),
                                      (open_level_1_history, False)):
        steps = layout(today)
        for claim, eob, carc in denials:
            fits = eob.paid_on < steps[0].filed_on <= eob.appeal_deadline
            if claim.claim_number not in used and fits and (carc == "50") == medical_necessity:
                _file_history(session, claim, carc, steps)
                used.add(claim.claim_number)
                break


def _denials_newest_first(session: Session) -> list[tuple[m.Claim, m.ExplanationOfBenefits, str]]:
    rows = session.execute(
        select(m.Claim, m.ExplanationOfBenefits)
        .join(m.ExplanationOfBenefits, m.ExplanationOfBenefits.claim_number == m.Claim.claim_number)
        .where(m.Claim.status == "Denied", m.ExplanationOfBenefits.kind == "Original")
        .order_by(m.ExplanationOfBenefits.paid_on.desc(), m.Claim.claim_number))
    result = []
    for claim, eob in rows:
        carc = session.scalars(select(m.ClaimAdjustment.carc).where(
            m.ClaimAdjustment.claim_number == claim.claim_number, m.ClaimAdjustment.group_code == "CO",
            m.ClaimAdjustment.carc != "45").order_by(m.ClaimAdjustment.id)).first()
        result.append((claim, eob, carc or ""))
    return result


def _file_history(session: Session, claim: m.Claim, carc: str, steps: list[Step]) -> None:
    reason_category, outcome, upheld_because = REASONS.get(carc, OTHER_REASON)
    appellant = session.get(m.Provider, claim.rendering_npi) or session.get(m.Provider, claim.billing_npi)
    prior_id = None
    for step in steps:
        appeal = m.Appeal(
            appeal_id=next_appeal_id(session, step.filed_on), claim_number=claim.claim_number,
            subscriber_id=claim.subscriber_id, appellant_name=appellant.name if appellant else "Provider office",
            appellant_relationship="Rendering provider", service_date=claim.service_date,
            billed_amount=claim.billed_amount, reason_category=reason_category,
            explanation=f"We ask Keystone Mutual to review the denial (CO-{carc}) of claim {claim.claim_number}.",
            requested_outcome=outcome, attested=True, status=IN_REVIEW,
            decision_due=decision_due("Post-service", step.filed_on), submitted_by="billing.office",
            submitted_at=datetime.combine(step.filed_on, FILED_AT), level=step.level, kind=step.kind,
            service_type="Post-service", prior_appeal_id=prior_id, decision_reason="")
        session.add(appeal)
        session.flush()
        if step.decided_on is not None:
            decide(session, appeal, "Upheld", upheld_because, step.decided_on)
        prior_id = appeal.appeal_id
