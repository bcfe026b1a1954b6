"""How SVH Chart writes things: phone numbers as (570) 555-0142, ages of queue items in days."""
from __future__ import annotations

import re

_DIGITS = re.compile(r"\D")


def phone(value: str | None) -> str:
    """A 10-digit US number as (NPA) NXX-XXXX; anything else is shown as stored."""
    if not value:
        return ""
    digits = _DIGITS.sub("", value)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}" if len(digits) == 10 else value
