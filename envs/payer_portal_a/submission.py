"""Submitting a request and re-reviewing a pended one: numbers, due times, history and
letters; and the payer's retro-authorization rule a late request must pass first."""
from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.web import current_username
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.letters import determination_letter
from admindesk.envs.payer_portal_a.models import PaRequest, PaStatusEvent
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.determination import AUTHORIZED_STATUSES, apply, evaluate
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for, timing

URGENCIES = ("Standard", "Expedited")


def decision_due(submitted_at, urgency: str):
    """When the payer owes a decision: 72 hours expedited, 7 calendar days standard."""
    common = timing()
    if urgency == "Expedited":
        return submitted_at + timedelta(hours=common.expedited_hours)
    return submitted_at + timedelta(days=common.standard_days)


def retro_refusal(pa: PaRequest, emergent: bool, today: date) -> str | None:
    """Why the payer refuses this request as a retro-authorization, or None.

    A request is retro when a line's service starts before today; the payer's window
    counts calendar days after that date of service, and some payers take emergent
    services only. The refusal quotes the payer's rule.
    """
    started = [line.from_date for line in pa.lines if line.from_date < today]
    if not started:
        return None
    rules = rules_for(pa.payer_id)
    service_date = min(started)
    late_by = (today - service_date).days
    rule = rules.retro_rule_text()
    if rules.retro_auth_days == 0:
        return f"Retro-authorization refused for the date of service {service_date:%m/%d/%Y}. {rule}"
    if late_by > rules.retro_auth_days:
        return (f"Retro-authorization refused: the date of service {service_date:%m/%d/%Y} was {late_by} days ago. "
                f"{rule}")
    if rules.retro_emergent_only and not emergent:
        return (f"Retro-authorization refused: the service on {service_date:%m/%d/%Y} is not attested as "
                f"emergent. {rule}")
    return None


def _decide(session: Session, pa: PaRequest, *, check_duplicates: bool) -> None:
    outcome = evaluate(session, pa, load_policy(), check_duplicates=check_duplicates)
    authorized = outcome.status in AUTHORIZED_STATUSES
    auth = numbering.auth_number(session, pa.payer.payer_code) if authorized else None
    apply(pa, outcome, auth)
    pa.decided_at = None if outcome.status == "Pended" else clock.now()
    pa.history.append(PaStatusEvent(at=clock.now(), status=pa.status, note=pa.decision_reason, username="payer"))
    determination_letter(session, pa, clock.now())


def submit_request(session: Session, pa: PaRequest, *, urgency: str = "Standard", emergent: bool = False,
                   attested_by: str = "", expedited_reason: str = "", network_exception: str = "",
                   in_network_checked: str = "") -> None:
    """Turn a complete draft into a case and decide it; commits. The caller has checked
    `retro_refusal` (a refused request stays a draft), that an expedited request names
    its attesting physician and clinical reason (kept only on an expedited request), and that a
    network exception is requested exactly when the servicing provider is out of network."""
    pa.case_number = numbering.case_number(session)
    pa.attested = True
    pa.submitted_at = clock.now()
    pa.urgency = urgency
    pa.decision_due_at = decision_due(pa.submitted_at, urgency)
    if urgency == "Expedited":
        pa.expedited_attested_by, pa.expedited_reason = attested_by.strip(), expedited_reason.strip()
    if network_exception:
        pa.network_exception, pa.in_network_checked = network_exception, in_network_checked.strip()
    pa.retro = any(line.from_date < clock.today() for line in pa.lines)
    pa.emergent = emergent
    kind = "retro-authorization request" if pa.retro else f"{urgency.lower()} request"
    attested = f" (urgency attested by {pa.expedited_attested_by})" if pa.expedited_attested_by else ""
    exception = f", network exception requested ({pa.network_exception})" if pa.network_exception else ""
    pa.history.append(PaStatusEvent(
        at=clock.now(), status="Submitted", username=current_username(),
        note=f"Submitted through the portal as a {kind}{attested}{exception} with {len(pa.attachments)} attachment(s); "
             f"decision due {pa.decision_due_at:%m/%d/%Y %H:%M}."))
    _decide(session, pa, check_duplicates=True)
    session.commit()


def reevaluate_after_documents(session: Session, pa: PaRequest, added: int, *, received_by: str | None = None,
                               how: str = "added") -> None:
    """A pended case got documents (uploaded by the signed-in user, or `received_by` the
    payer's fax intake): record them and decide again (no duplicate check: the case itself
    is the one on file); commits."""
    pa.history.append(PaStatusEvent(at=clock.now(), status="Documents received",
                                    username=received_by or current_username(),
                                    note=f"{added} document(s) {how} in answer to the request for information."))
    _decide(session, pa, check_duplicates=False)
    session.commit()
