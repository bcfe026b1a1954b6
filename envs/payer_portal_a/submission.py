"""Submitting a request and re-reviewing a pended one: numbers, history and letters."""
from __future__ import annotations

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.web import current_username

from . import numbering
from .letters import determination_letter
from .models import PaRequest, PaStatusEvent
from .policy import load_policy
from .rules import APPROVED, apply, evaluate


def _decide(session: Session, pa: PaRequest, *, check_duplicates: bool) -> None:
    outcome = evaluate(session, pa, load_policy(), check_duplicates=check_duplicates)
    auth = numbering.auth_number(session, pa.payer.payer_code) if outcome.status == APPROVED else None
    apply(pa, outcome, auth)
    pa.decided_at = None if outcome.status == "Pended" else clock.now()
    pa.history.append(PaStatusEvent(at=clock.now(), status=pa.status, note=pa.decision_reason, username="payer"))
    determination_letter(session, pa, clock.now())


def submit_request(session: Session, pa: PaRequest) -> None:
    """Turn a complete draft into a case and decide it; commits."""
    pa.case_number = numbering.case_number(session)
    pa.attested = True
    pa.submitted_at = clock.now()
    pa.history.append(PaStatusEvent(at=clock.now(), status="Submitted", username=current_username(),
                                    note=f"Submitted through the portal with {len(pa.attachments)} attachment(s)."))
    _decide(session, pa, check_duplicates=True)
    session.commit()


def reevaluate_after_documents(session: Session, pa: PaRequest, added: int) -> None:
    """A pended case got documents: record them and decide again (no duplicate check:
    the case itself is the one on file); commits."""
    pa.history.append(PaStatusEvent(at=clock.now(), status="Documents received", username=current_username(),
                                    note=f"{added} document(s) added in answer to the request for information."))
    _decide(session, pa, check_duplicates=False)
    session.commit()
