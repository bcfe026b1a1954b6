"""The side a knee or shoulder service was done on, as its claim line states it.

A service on a paired joint is billed with modifier RT or LT (50 when bilateral); payers deny
the line without it (CO-4). The side is the one the diagnosis names: in the ICD-10-CM
categories below, the last digit of the code (before an injury code's 7th character) is 1
for the right side and 2 for the left.
"""
from __future__ import annotations

from collections.abc import Iterable

# CPT codes of knee and shoulder services: imaging, arthroscopy, arthroplasty and a
# major-joint injection.
JOINT_CODES = frozenset({
    "73560", "73562", "73564", "73565", "73721", "73722", "73723", "29880", "29881", "27447",  # knee
    "73020", "73030", "73221", "73222", "73223", "29826", "29827", "23472",  # shoulder
    "20610",  # arthrocentesis or injection of a major joint (knee, shoulder)
})
SIDE_MODIFIERS = frozenset({"RT", "LT", "50"})
# Knee and shoulder diagnosis categories whose code ends with the side.
_SIDED_DIAGNOSES = ("M17.1", "M19.01", "M23.", "M25.51", "M25.56", "M75.", "S43.", "S46.", "S83.")
_DIGIT_SIDE = {"1": "RT", "2": "LT"}


def side_modifier(diagnoses: Iterable[str]) -> str | None:
    """RT or LT from the first diagnosis that names a side of a knee or shoulder; None when none does."""
    for code in diagnoses:
        if code.startswith(_SIDED_DIAGNOSES):
            stem = code[:-1] if code.startswith("S") and code[-1].isalpha() else code
            if stem[-1] in _DIGIT_SIDE:
                return _DIGIT_SIDE[stem[-1]]
    return None
