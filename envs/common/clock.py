"""The app's frozen clock: every date an app shows or stores comes from here."""
from __future__ import annotations

from datetime import date, datetime

from flask import current_app, g

from admindesk.envs.common.state.kit_models import BenchState

CLOCK_KEY = "clock_now"
# The world's WORLD_ANCHOR, not imported: importing the world (Faker) slows app start.
DEFAULT_NOW = datetime(2026, 11, 16, 9, 0)


def now() -> datetime:
    """The frozen time of the current reset (read once per request)."""
    if "clock_now" not in g:
        session = current_app.extensions["admindesk"].db.request_session()
        row = session.get(BenchState, CLOCK_KEY)
        g.clock_now = datetime.fromisoformat(row.value) if row else DEFAULT_NOW
    return g.clock_now


def today() -> date:
    return now().date()


def parse_now(value: object) -> datetime:
    """Validate the `now` a reset request carries (naive ISO datetime or date)."""
    if not isinstance(value, str):
        raise ValueError("'now' must be an ISO 8601 date-time string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"'now' is not an ISO 8601 date-time: {value!r}") from exc
    # Apps store naive local times; an offset would make comparisons ambiguous.
    return parsed.replace(tzinfo=None)
