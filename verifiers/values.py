"""How values are compared: normalising what a person would not call a difference:
letter case, surrounding and repeated whitespace, punctuation (in free text) and the way a
date is written. (What an expected value is: admindesk.schema.values.)
"""
from __future__ import annotations

import math
import re
import string
from datetime import date, datetime
from typing import Any

# ---- dates -------------------------------------------------------------------------------
_NUMERIC_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%m-%d-%Y", "%m-%d-%y", "%Y/%m/%d", "%Y%m%d")
_MONTH_NUMBERS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
                  "sep": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?" \
         r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"


def _spelled_patterns(named: bool) -> tuple[str, str]:
    """A date with its month in words, month first ("Apr. 20th, 2026") and day first
    ("20 April 2026", "20-Apr-2026", "the 20th of April, 2026"); with named groups to parse."""
    def group(name: str, body: str) -> str:
        return f"(?P<{name}>{body})" if named else f"(?:{body})"
    month, day, year = group("month", _MONTH), group("day", _DAY), group("year", r"\d{4}")
    return (rf"{month}\.?\s+{day},?\s*{year}",
            rf"{day}(?:\s+of)?[\s-]+{month}\.?,?[\s-]+{year}")


_SPELLED = tuple(re.compile(pattern, re.IGNORECASE) for pattern in _spelled_patterns(named=True))
# Date-looking runs inside free text (answers, notes, letters), rewritten to ISO before comparing.
_DATE_IN_TEXT = re.compile(
    r"\b(\d{4}[-/]\d{1,2}[-/]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
    r"|\d{1,2}[/-]\d{1,2}[/-]\d{2,4}"
    + "".join(f"|{pattern}" for pattern in _spelled_patterns(named=False)) + r")\b", re.IGNORECASE)


def _spelled_date(text: str) -> date | None:
    for pattern in _SPELLED:
        match = pattern.fullmatch(text)
        if match:
            day = int(match["day"].rstrip("stndrh"))
            try:
                return date(int(match["year"]), _MONTH_NUMBERS[match["month"][:3].lower()], day)
            except ValueError:
                return None
    return None


def parse_date(value: Any) -> date | None:
    """The calendar date a value denotes (ISO, US numeric, or with the month in words), else None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    text = " ".join(value.strip().split())
    try:
        return datetime.fromisoformat(text).date()
    except ValueError:
        pass
    for fmt in _NUMERIC_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return _spelled_date(text)


# ---- text --------------------------------------------------------------------------------
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalise_text(value: Any) -> str:
    """Free text as compared: dates to ISO, punctuation dropped, case folded, spaces single.

    "Auth #PA-4471, approved 11/16/2026" -> "auth pa4471 approved 20261116".
    """
    if value is None:
        return ""
    text = str(value)

    def _iso(match: re.Match) -> str:
        parsed = parse_date(match.group(0))
        return parsed.isoformat() if parsed else match.group(0)

    text = _DATE_IN_TEXT.sub(_iso, text)
    return " ".join(text.translate(_PUNCTUATION).casefold().split())


def text_contains(haystack: Any, needle: Any) -> bool:
    """Whether `needle` occurs in `haystack` as whole words, both normalised.

    Whole words, so expecting "1234" is not met by "12345".
    """
    small, big = normalise_text(needle), normalise_text(haystack)
    if not small:
        return False
    return re.search(rf"(?<!\w){re.escape(small)}(?!\w)", big) is not None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", "").replace("$", "").strip())
        except ValueError:
            return None
    return None


def values_equal(actual: Any, expected: Any) -> bool:
    """Equality as a reviewer means it: numbers by value, text without case or spacing noise.

    Identifiers keep their punctuation ("PA-1" is not "PA1"); only case and whitespace go.
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if expected is None or actual is None:
        return actual is expected
    if isinstance(expected, (int, float)) or isinstance(actual, (int, float)):
        left, right = _number(actual), _number(expected)
        return left is not None and right is not None and math.isclose(left, right, abs_tol=1e-6)
    if isinstance(expected, list) or isinstance(actual, list):
        return (isinstance(actual, list) and isinstance(expected, list) and len(actual) == len(expected)
                and all(values_equal(a, e) for a, e in zip(actual, expected)))
    if isinstance(expected, dict) or isinstance(actual, dict):
        return actual == expected
    return " ".join(str(actual).split()).casefold() == " ".join(str(expected).split()).casefold()


def as_number(value: Any) -> float | None:
    """A numeric reading of a value (numbers, numeric text with $ or thousands commas)."""
    return _number(value)


def shown(value: Any, limit: int = 120) -> str:
    """A value as an explanation quotes it: short, on one line, `nothing` for no value."""
    if value is None or value == []:
        return "nothing"
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
