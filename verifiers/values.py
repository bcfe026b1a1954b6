"""Expected values and how values are compared.

A check's expected value is either a literal (`Approved`, `3`) or a reference into the
task's case (`{case: coverages.0.member_id}`), so a value the case already states is
never retyped in a check. Comparison normalises what a person would not call a
difference: letter case, surrounding and repeated whitespace, punctuation (in free
text) and the way a date is written.
"""
from __future__ import annotations

import math
import re
import string
from datetime import date, datetime
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field


class CaseRef(BaseModel):
    """`{case: coverages.0.member_id}`: a dotted path into the task's case (list items by index)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case: str = Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")


Scalar = Union[str, int, float, bool, None]
ValueSpec = Union[CaseRef, Scalar]


class CaseReferenceError(ValueError):
    """A `{case: ...}` path that does not lead to a value of the task's case."""


def resolve_case_path(case: dict[str, Any] | None, path: str) -> Any:
    """The value at dotted `path` of the case (as JSON: dates are ISO text)."""
    if case is None:
        raise CaseReferenceError(f"{{case: {path}}} is used but the task has no case")
    value: Any = case
    walked: list[str] = []
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            where = ".".join(walked) or "the case"
            choices = (", ".join(value) if isinstance(value, dict)
                       else f"indexes 0..{len(value) - 1}" if isinstance(value, list) else "nothing")
            raise CaseReferenceError(f"case path {path}: {where} has no {part!r} (it has {choices})")
        walked.append(part)
    if value is None:
        raise CaseReferenceError(f"case path {path} is not set in this task's case")
    return value


def resolve(spec: Any, case: dict[str, Any] | None) -> Any:
    """A literal as is; a CaseRef (or a list of specs) resolved against the case."""
    if isinstance(spec, CaseRef):
        return resolve_case_path(case, spec.case)
    if isinstance(spec, list):
        return [resolve(item, case) for item in spec]
    return spec


# ---- dates -------------------------------------------------------------------------------
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%m-%d-%Y", "%Y/%m/%d", "%Y%m%d",
                 "%B %d, %Y", "%b %d, %Y", "%b. %d, %Y", "%B %d %Y", "%b %d %Y",
                 "%d %B %Y", "%d %b %Y", "%d-%b-%Y")
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
# Date-looking runs inside free text (answers, notes), rewritten to ISO before comparing.
_DATE_IN_TEXT = re.compile(
    r"\b(\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
    r"|\d{1,2}[/-]\d{1,2}[/-]\d{2,4}"
    rf"|(?:{_MONTHS})[a-z]*\.? \d{{1,2}},? \d{{4}}"
    rf"|\d{{1,2}}[ -](?:{_MONTHS})[a-z]*[ -]\d{{4}})\b", re.IGNORECASE)


def parse_date(value: Any) -> date | None:
    """The calendar date a value denotes (ISO, US numeric, or spelled-out month), else None."""
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
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


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
