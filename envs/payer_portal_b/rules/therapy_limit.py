"""Keystone Mutual's outpatient therapy visit limit at precertification (policy KM-REHAB-801).

A therapy code needs no precertification while visits remain in the member's benefit period (its
Benefit Accumulator: the limit, the visits applied, one per date of service). Past the limit, a
group with a hard limit has no coverage to precertify (the request is denied); a group with a soft
limit has the visits reviewed under KM-REHAB-801. A member without an accumulator has no limit on
file, and the code needs nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.claim_models import BenefitAccumulator

VISIT_LIMIT_POLICY = "KM-REHAB-801"
THERAPY_CODES = frozenset({"97110", "97112", "97116", "97140", "97530", "97535", "97161", "97162", "97163",
                           "97164", "97165", "97166", "97167", "97168"})


@dataclass(frozen=True)
class VisitLimit:
    """The member's therapy visit limit on a date of service, as the accumulator counts it."""

    allowed: int
    applied: int
    limit_type: str
    period: str

    @property
    def reached(self) -> bool:
        return self.applied >= self.allowed


def visit_limit(session: Session, subscriber_id: str, code: str, day: date) -> VisitLimit | None:
    """The limit that governs `code` for the subscriber on `day`, or None (no therapy code, no limit)."""
    if code not in THERAPY_CODES:
        return None
    accumulator = session.scalars(select(BenefitAccumulator).where(
        BenefitAccumulator.subscriber_id == subscriber_id, BenefitAccumulator.period_start <= day,
        BenefitAccumulator.period_end >= day)).first()
    if accumulator is None:
        return None
    applied = len({visit.service_date for visit in accumulator.visits})
    period = f"{accumulator.period_start:%d-%b-%Y} - {accumulator.period_end:%d-%b-%Y}"
    return VisitLimit(accumulator.visits_allowed, applied, accumulator.limit_type, period)
