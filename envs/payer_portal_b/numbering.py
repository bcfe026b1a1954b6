"""Reference numbers from sequences in the database: same actions, same numbers.

Keystone Mutual formats (different from portal A's on purpose):
precertification reference `PRC-2026-00001`, authorization number `KMH26900001`,
appeal id `KAP-2026-00001`, DME request `DME-2026-00001`, eligibility inquiry `ELG-0000001`,
letter `KLT-2026-00001`, peer-to-peer `P2P-2026-00001`, corrected claim `KCC-2026-00001`.
"""
from __future__ import annotations

from sqlalchemy.orm import Session

from admindesk.envs.common import clock, sequences

SEQUENCES = {"precert": 1, "authorization": 900001, "appeal": 1, "dme": 1, "eligibility": 1,
             "letter": 1, "p2p": 1, "corrected_claim": 1}


def _take(session: Session, name: str) -> int:
    return sequences.next_value(session, name, SEQUENCES[name])


def next_precert_reference(session: Session) -> str:
    return f"PRC-{clock.today().year}-{_take(session, 'precert'):05d}"


def next_authorization_number(session: Session) -> str:
    return f"KMH{clock.today():%y}{_take(session, 'authorization'):06d}"


def next_appeal_id(session: Session) -> str:
    return f"KAP-{clock.today().year}-{_take(session, 'appeal'):05d}"


def next_dme_request_id(session: Session) -> str:
    return f"DME-{clock.today().year}-{_take(session, 'dme'):05d}"


def next_inquiry_id(session: Session) -> str:
    return f"ELG-{_take(session, 'eligibility'):07d}"


def next_letter_id(session: Session) -> str:
    return f"KLT-{clock.today().year}-{_take(session, 'letter'):05d}"


def next_p2p_id(session: Session) -> str:
    return f"P2P-{clock.today().year}-{_take(session, 'p2p'):05d}"



def next_corrected_claim_number(session: Session) -> str:
    return f"KCC-{clock.today().year}-{_take(session, 'corrected_claim'):05d}"
