"""Keystone Mutual's continuation-of-therapy rule for biologics in rheumatoid arthritis
(medical policy KM-RX-520).

A continuation (re-authorization) request names the authorization it continues, which must be
an approval on file for the same member and drug. It is accepted no earlier than
`WINDOW_DAYS` before that approval's last day. Its criteria are not the initial ones: the
member's response, as DAS28 measured against the PRE-TREATMENT baseline (a score taken before
the first approved dose of the drug, not one taken at an earlier renewal), improved by at least
the policy's points, on a score measured within the policy's days before the request. The
request states the two scores and their dates; what the policy's `clinical_rules` read is
derived here from them and from the approvals on file, so a baseline is pre-treatment because of
its date, whatever the summary claims.
"""
from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import MedicalPolicy, PolicyCode, PrecertRequest

WINDOW_DAYS = 30


def continuation_policy(session: Session, code: str) -> MedicalPolicy | None:
    """The continuation policy for `code`, or None when the drug has none."""
    link = session.get(PolicyCode, code)
    return session.get(MedicalPolicy, link.continuation_policy) if link and link.continuation_policy else None


def approval_continued(session: Session, subscriber_id: str, code: str, auth_number: str) -> PrecertRequest | None:
    """The approval on file that a continuation request names, or None."""
    return session.scalars(select(PrecertRequest).where(
        PrecertRequest.subscriber_id == subscriber_id, PrecertRequest.service_code == code,
        PrecertRequest.authorization_number == auth_number.strip().upper(),
        PrecertRequest.status == "Approved")).first()


def window_problem(continued: PrecertRequest, received_on: date) -> str | None:
    """Why a continuation of `continued` cannot be received on `received_on` (None: it can)."""
    opens = continued.approved_end - timedelta(days=WINDOW_DAYS)
    if received_on < opens:
        return (f"Authorization {continued.authorization_number} is approved through "
                f"{continued.approved_end.strftime(DATE_FORMAT)}: a continuation request is accepted from "
                f"{opens.strftime(DATE_FORMAT)} ({WINDOW_DAYS} days before it ends).")
    return None


def first_dose_day(session: Session, subscriber_id: str, code: str) -> date | None:
    """The first approved day of the drug for the member: the start of treatment."""
    return session.scalars(select(PrecertRequest.approved_start).where(
        PrecertRequest.subscriber_id == subscriber_id, PrecertRequest.service_code == code,
        PrecertRequest.status == "Approved").order_by(PrecertRequest.approved_start)).first()


def response_answers(session: Session, subscriber_id: str, code: str, answers: dict, received_on: date) -> dict:
    """The fields the policy's rules read, derived from the stated scores and dates."""
    baseline, latest = answers["baseline_das28"], answers["current_das28"]
    baseline_day, latest_day = answers["baseline_das28_date"], answers["current_das28_date"]
    started = first_dose_day(session, subscriber_id, code)
    return {"das28_improvement": round(baseline - latest, 1),
            "das28_days_old": (received_on - latest_day).days,
            "baseline_pretreatment": "Yes" if started is None or baseline_day < started else "No"}
