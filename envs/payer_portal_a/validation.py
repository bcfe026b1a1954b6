"""Identifier checks: NPI (10 digits + Luhn check digit) and ICD-10-CM code lists."""
from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import DiagnosisCode

# The Luhn sum of the card-issuer prefix 80840 every NPI is checked with.
_NPI_PREFIX_SUM = 24
MAX_DIAGNOSES = 4


def is_valid_npi(npi: str) -> bool:
    """True for 10 digits whose last digit is the Luhn check digit of 80840 + the first nine."""
    if not re.fullmatch(r"\d{10}", npi):
        return False
    total = _NPI_PREFIX_SUM
    for index, char in enumerate(reversed(npi[:9])):
        digit = int(char) * (2 if index % 2 == 0 else 1)
        total += digit - 9 if digit > 9 else digit
    return (10 - total % 10) % 10 == int(npi[9])


def parse_diagnoses(session: Session, text: str) -> tuple[list[str], str | None]:
    """Split a comma list of ICD-10-CM codes; (codes, None) or ([], error message)."""
    codes = [c.strip().upper() for c in re.split(r"[,\s;]+", text or "") if c.strip()]
    if not codes:
        return [], "Enter at least one diagnosis code."
    if len(codes) > MAX_DIAGNOSES:
        return [], f"Enter at most {MAX_DIAGNOSES} diagnosis codes."
    if len(set(codes)) != len(codes):
        return [], "A diagnosis code is listed twice."
    known = set(session.scalars(select(DiagnosisCode.code).where(DiagnosisCode.code.in_(codes))))
    unknown = [c for c in codes if c not in known]
    if unknown:
        return [], f"Not a valid ICD-10-CM code: {', '.join(unknown)}. Enter codes with the dot, e.g. M54.16."
    return codes, None
