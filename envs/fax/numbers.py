"""Fax numbers: parsing what users type, and showing stored numbers the way Tessera does
(E.164 style with the country code: +1 717-555-0123)."""
from __future__ import annotations

import re

# Punctuation people type in phone numbers; anything else (letters, '#', 'x') is refused.
_ALLOWED = re.compile(r"^[\d\s().\-+/]*$")
_PUNCTUATION = re.compile(r"[\s().\-+/]")


class FaxNumberError(ValueError):
    """The text is not a 10-digit fax number; the message is shown next to the field."""


def parse_fax_number(text: str) -> str:
    """The 10 digits of a typed fax number, or FaxNumberError with a clear message."""
    text = (text or "").strip()
    if not text:
        raise FaxNumberError("Enter the fax number.")
    if not _ALLOWED.match(text):
        raise FaxNumberError("Use only digits, spaces, dashes, dots, parentheses and a leading + in the number.")
    digits = _PUNCTUATION.sub("", text)
    # The country code, as the server itself shows numbers (+1 717-555-0123), may be typed too.
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10:
        raise FaxNumberError(f"Enter exactly 10 digits (area code and number), e.g. +1 717-555-0123; "
                             f"you entered {len(digits)} digit{'s' if len(digits) != 1 else ''}.")
    return digits


def format_fax_number(digits: str | None) -> str:
    """'7175550123' -> '+1 717-555-0123'; anything else is shown unchanged."""
    if not digits:
        return ""
    if len(digits) == 10 and digits.isdigit():
        return f"+1 {digits[:3]}-{digits[3:6]}-{digits[6:]}"
    return digits


def digits_only(text: str) -> str:
    """The digits of a search term, to match numbers typed with any punctuation."""
    return re.sub(r"\D", "", text or "")
