"""Reference numbers from sequences in the database: same actions, same numbers.

Keystone Mutual formats (different from portal A's on purpose): case numbers are
`KM-<kind>-<yy>-<serial>` with kind P (precertification, e.g. `KM-P-26-000123`), D (DME
request), A (appeal) or I (inpatient admission); authorization number `KMH26900001`, eligibility inquiry `ELG-0000001`,
letter `KLT-2026-00001`, HMO referral `KR-26-000001`, peer-to-peer `P2P-2026-00001`, corrected claim `KCC-2026-00001`.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.state import sequences

SEQUENCES = {"precert": 1, "authorization": 900001, "appeal": 1, "dme": 1, "eligibility": 1,
             "letter": 1, "p2p": 1, "corrected_claim": 1, "referral": 1, "inpatient": 1}


def _take(session: Session, name: str) -> int:
    return sequences.next_value(session, name, SEQUENCES[name])


def case_number(kind: str, year: int, serial: int) -> str:
    """Keystone's case number of one kind ("P", "D" or "A"): `KM-P-26-000123`."""
    return f"KM-{kind}-{year % 100:02d}-{serial:06d}"


def next_precert_reference(session: Session) -> str:
    return case_number("P", clock.today().year, _take(session, "precert"))


def next_authorization_number(session: Session) -> str:
    return f"KMH{clock.today():%y}{_take(session, 'authorization'):06d}"


def next_appeal_id(session: Session, filed_on: date | None = None) -> str:
    """The next appeal id, in the year of `filed_on` (today when not given)."""
    return case_number("A", (filed_on or clock.today()).year, _take(session, "appeal"))


def next_dme_request_id(session: Session) -> str:
    return case_number("D", clock.today().year, _take(session, "dme"))


def next_inquiry_id(session: Session) -> str:
    return f"ELG-{_take(session, 'eligibility'):07d}"


def next_letter_id(session: Session, issued_on: date) -> str:
    """The next letter id, in the year the letter is dated."""
    return f"KLT-{issued_on.year}-{_take(session, 'letter'):05d}"


def next_p2p_id(session: Session) -> str:
    return f"P2P-{clock.today().year}-{_take(session, 'p2p'):05d}"


def next_corrected_claim_number(session: Session) -> str:
    return f"KCC-{clock.today().year}-{_take(session, 'corrected_claim'):05d}"


def next_referral_number(session: Session) -> str:
    """The next HMO referral number: `KR-26-000001` (referrals on file from before count from 9)."""
    return f"KR-{clock.today():%y}-{_take(session, 'referral'):06d}"


def next_inpatient_case_number(session: Session) -> str:
    """The next inpatient case number: `KM-I-26-000001` (cases on file from before count from 9)."""
    return case_number("I", clock.today().year, _take(session, "inpatient"))
