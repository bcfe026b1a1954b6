"""Move a drawn case's timeline by a whole number of days, keeping every date rule's answer.

Everything dated in the case (orders, documents and their dated facts, requests and
appeals on file, claims, remittances, faxes, and dates written in their text) moves by
one shift; coverage periods stay (plans start and end on month edges) and so does the
task's clock. A shift is kept only when no rule can tell the difference:

- every pair of dates (moved, fixed, and today) keeps its order, so a service stays inside
  or outside a coverage period and a fax stays before today;
- for every date and every window a payer or a policy counts in days (appeal and filing
  limits, retro-authorization, review clocks, six-month and adherence windows), "the
  window from a past date has passed by today" and "the window before a future date has
  begun" keep their answers, so a late appeal stays late;
- every moved date keeps its calendar year and fiscal year (code sets are dated), and a
  weekday stays a weekday.

When no shift in range keeps all of that, the timeline stays as it was.
"""
from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any

MAX_SHIFT_DAYS = 21
# Windows the clinical policies count in days (the CPAP adherence check between days 31
# and 91, six months for a face-to-face visit, twelve for a TB screen); the payers' own
# limits come from their rules (admindesk.envs.split_rules.payer_windows).
POLICY_WINDOWS = (31, 91, 182, 183, 365)
# Fields whose dates are plan periods or birthdays: they never move (a benefit period's start
# is the group's plan year).
FIXED_FIELDS = frozenset({"effective", "termination", "period_start"})
PERSON_SECTIONS = frozenset({"patient", "lookalikes"})
TEXT_FIELDS = frozenset({"narrative", "pages", "title", "description", "reason", "from_name"})
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
TEXT_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{2})/(\d{2})/(\d{4})\b")


def _fiscal_year(day: date) -> int:
    return day.year + (day.month >= 10)


def sign(value: float) -> int:
    """-1, 0 or 1: which side of zero (of a threshold, of today) a difference falls."""
    return (value > 0) - (value < 0)


def _walk(node: Any, path: tuple = ()):
    """(path, value) for every scalar of a case, depth first."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, path + (index,))
    else:
        yield path, node


def _is_text(path: tuple) -> bool:
    """A free-text field, or one page of a fax's `pages`."""
    return any(isinstance(part, str) and part in TEXT_FIELDS for part in path[-2:])


def _as_date(value: Any) -> date | None:
    if isinstance(value, str) and ISO_DATE.match(value):
        return date.fromisoformat(value)
    if isinstance(value, str) and ISO_DATETIME.match(value):
        return datetime.fromisoformat(value).date()
    return None


def _text_dates(text: str) -> list[date]:
    found = []
    for match in TEXT_DATE.finditer(text):
        year, month, day = (match[1], match[2], match[3]) if match[1] else (match[6], match[4], match[5])
        try:
            found.append(date(int(year), int(month), int(day)))
        except ValueError:
            continue
    return found


def case_dates(case: dict[str, Any], keep: set[date]) -> tuple[list[date], list[date]]:
    """(dates that move, dates that stay) of a case; `keep` are dates of birth, which the
    text may quote and which never move. A date in the text that is a plan's start or end
    stays too."""
    scalars = [(path, value) for path, value in _walk(case) if not (path and path[0] in PERSON_SECTIONS)]
    fixed = [day for path, value in scalars if path and path[-1] in FIXED_FIELDS
             for day in [_as_date(value)] if day]
    moving = []
    for path, value in scalars:
        if path and path[-1] in FIXED_FIELDS:
            continue
        if _is_text(path):
            moving += [day for day in _text_dates(str(value)) if day not in keep and day not in fixed]
        elif (day := _as_date(value)) is not None:
            moving.append(day)
    return moving, fixed


def shift_keeps_rules(shift: int, moving: list[date], fixed: list[date], today: date, windows: set[int]) -> bool:
    """True when moving `moving` by `shift` days changes no rule's answer (module docstring)."""
    delta = timedelta(days=shift)
    for day in moving:
        moved = day + delta
        if moved.year != day.year or _fiscal_year(moved) != _fiscal_year(day) or \
                (moved.weekday() >= 5) != (day.weekday() >= 5):
            return False
        # A past date starts windows that run towards today; a future date ends windows
        # that run from today (a request due some days before the service).
        direction = 1 if day <= today else -1
        for window in windows:
            signed = timedelta(days=direction * window)
            if sign((day + signed - today).days) != sign((moved + signed - today).days):
                return False
    anchors = sorted(set(fixed) | {today})
    for day in set(moving):
        for anchor in anchors:
            if sign((day - anchor).days) != sign((day + delta - anchor).days):
                return False
    return True


def choose_shift(moving: list[date], fixed: list[date], today: date, windows: set[int], rng: random.Random) -> int:
    """A shift of the timeline in days that keeps every rule's answer (0 when none does)."""
    candidates = [s for s in range(-MAX_SHIFT_DAYS, MAX_SHIFT_DAYS + 1) if s]
    rng.shuffle(candidates)
    for shift in candidates:
        if shift_keeps_rules(shift, moving, fixed, today, windows):
            return shift
    return 0


def shift_text(text: str, delta: timedelta, keep: set[date]) -> str:
    def moved(match: re.Match) -> str:
        year, month, day = (match[1], match[2], match[3]) if match[1] else (match[6], match[4], match[5])
        try:
            original = date(int(year), int(month), int(day))
        except ValueError:
            return match[0]
        if original in keep:
            return match[0]
        new = original + delta
        return new.isoformat() if match[1] else f"{new:%m/%d/%Y}"
    return TEXT_DATE.sub(moved, text)


def apply_shift(node: Any, shift: int, keep: set[date], key: Any = None) -> Any:
    """A copy of the case part `node` with every moving date (and text date) moved by `shift` days."""
    if shift == 0:
        return node
    delta = timedelta(days=shift)
    if isinstance(node, dict):
        return {k: (v if k in PERSON_SECTIONS or k in FIXED_FIELDS else apply_shift(v, shift, keep, k))
                for k, v in node.items()}
    if isinstance(node, list):
        return [apply_shift(item, shift, keep, key) for item in node]
    if not isinstance(node, str):
        return node
    if key in TEXT_FIELDS:
        return shift_text(node, delta, keep)
    if ISO_DATE.match(node):
        return (date.fromisoformat(node) + delta).isoformat()
    if ISO_DATETIME.match(node):
        return (datetime.fromisoformat(node) + delta).isoformat()
    return node

