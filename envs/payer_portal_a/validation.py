"""ICD-10-CM code lists typed into the request forms."""
from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_a.models import DiagnosisCode

MAX_DIAGNOSES = 4


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
