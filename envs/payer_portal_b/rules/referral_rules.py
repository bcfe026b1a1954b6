"""Keystone Mutual's HMO referral rule: a specialist office visit of an HMO subscriber needs a
referral from the subscriber's primary care physician (PCP) of record.

A referral is accepted when the subscriber is on an HMO plan and active on its start date, the
referring NPI is the PCP of record, the specialist is an individual in the provider file of the
specialty named, and it asks for 1 to 6 visits; it is then Approved, valid from its start date
through 90 days after. Anything else is refused, naming the rule, and nothing is written.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b.models import Plan, Provider, Subscriber
from admindesk.envs.world.org import REFERRAL_VALID_DAYS

MAX_VISITS = 6
RULE = "Keystone Mutual HMO referral rule (a specialist visit needs a referral from the PCP of record)"


@dataclass(frozen=True)
class ReferralProblem:
    """A refusal: the form field it concerns and the message shown there."""

    field: str
    message: str


def referral_end(start: date) -> date:
    """The last day a referral starting on `start` covers."""
    return start + timedelta(days=REFERRAL_VALID_DAYS)


def check_referral(session: Session, subscriber: Subscriber, referring_npi: str, specialist_npi: str,
                   specialty: str, start: date) -> list[ReferralProblem]:
    """Every reason Keystone refuses this referral (none: it is approved)."""
    problems = []
    plan = session.get(Plan, subscriber.plan_id)
    if plan.product != "HMO":
        problems.append(ReferralProblem("subscriber_id", f"{plan.name} is not an HMO plan: its members need no "
                                                         "referral for specialist visits."))
    elif not subscriber.active_on(start):
        problems.append(ReferralProblem("start_date", "The subscriber's coverage is not active on the referral "
                                                      "start date."))
    if start < clock.today():
        problems.append(ReferralProblem("start_date", "A referral cannot start before today."))
    if plan.product == "HMO":
        if subscriber.pcp_npi is None:
            problems.append(ReferralProblem("referring_npi", f"{RULE}: no PCP of record is on file for this "
                                                             "subscriber. The member must choose a PCP with Member "
                                                             "Services first."))
        elif referring_npi != subscriber.pcp_npi:
            pcp = session.get(Provider, subscriber.pcp_npi)
            problems.append(ReferralProblem("referring_npi", f"{RULE}: NPI {referring_npi} is not the subscriber's "
                                                             f"PCP of record ({pcp.name if pcp else 'on file'}). "
                                                             "Only the PCP of record can refer this member."))
    specialist = session.get(Provider, specialist_npi)
    if specialist is None or specialist.kind != "Individual":
        problems.append(ReferralProblem("specialist_npi", f"NPI {specialist_npi} is not an individual provider "
                                                          "in the Keystone Mutual provider file."))
    elif specialist.specialty != specialty:
        problems.append(ReferralProblem("specialty", f"{specialist.name} is listed as {specialist.specialty}, "
                                                     f"not {specialty}."))
    if specialty == "Primary Care":
        problems.append(ReferralProblem("specialty", "A referral is to a specialist: primary care visits need "
                                                     "none."))
    return problems
