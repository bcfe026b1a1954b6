"""Numbers the portal issues (case, auth, appeal, letter, lookup references).

Each comes from a counter in the kit's `number_sequences` table, so the same actions after
a reset give the same numbers; formats differ from the world's own numbers so they never collide.
"""
from __future__ import annotations

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.state import sequences

# Counter name -> first value issued after a reset.
SEQUENCE_STARTS = {"case": 3000001, "auth": 1, "appeal": 1, "letter": 1, "auth_lookup": 1, "eligibility": 1,
                   "remittance": 1, "corrected_claim": 1, "auth_change": 1, "peer_to_peer": 1, "auth_appeal": 1}


def next_value(session: Session, name: str) -> int:
    """Take the next value of counter `name` (the caller commits)."""
    return sequences.next_value(session, name, SEQUENCE_STARTS[name])


def case_number(session: Session) -> str:
    """PL-<year>-<7 digits>: ProviderLink's own format (cases on file carry 8 digits)."""
    return f"PL-{clock.today():%Y}-{next_value(session, 'case'):07d}"


def auth_number(session: Session, payer_code: str) -> str:
    return f"{payer_code[:3]}{clock.today():%y}P{next_value(session, 'auth'):05d}"


def appeal_reference(session: Session) -> str:
    return f"APL{clock.today():%y}{next_value(session, 'appeal'):06d}"


def letter_number(session: Session) -> str:
    return f"LTR-{next_value(session, 'letter'):07d}"


def auth_lookup_reference(session: Session) -> str:
    return f"AL{clock.today():%y%m%d}{next_value(session, 'auth_lookup'):05d}"


def eligibility_reference(session: Session) -> str:
    return f"EB{clock.today():%y%m%d}{next_value(session, 'eligibility'):05d}"


def remittance_id(session: Session) -> str:
    return f"RA{clock.today():%y}R{next_value(session, 'remittance'):06d}"


def corrected_claim_number(session: Session) -> str:
    return f"CC{clock.today():%y}{next_value(session, 'corrected_claim'):06d}"


def auth_change_number(session: Session) -> str:
    return f"AC{clock.today():%y}{next_value(session, 'auth_change'):06d}"


def peer_to_peer_reference(session: Session) -> str:
    return f"P2P{clock.today():%y}{next_value(session, 'peer_to_peer'):05d}"


def auth_appeal_reference(session: Session) -> str:
    return f"PSA{clock.today():%y}{next_value(session, 'auth_appeal'):05d}"
