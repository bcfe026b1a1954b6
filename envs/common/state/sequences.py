"""Named counters in the database: the same actions after a reset give the same numbers.

Apps format their own reference numbers; the values come from `next_value`, backed by
the kit's `number_sequences` table (one row per counter name).
"""
from __future__ import annotations

from sqlalchemy.orm import Session

from admindesk.envs.common.state.kit_models import NumberSequence


def next_value(session: Session, name: str, start: int = 1) -> int:
    """Take the next value of counter `name`; a new counter begins at `start` (the caller commits)."""
    row = session.get(NumberSequence, name)
    if row is None:
        row = NumberSequence(name=name, next_value=start)
        session.add(row)
    value = row.next_value
    row.next_value = value + 1
    return value


def seed_sequences(session: Session, starts: dict[str, int]) -> None:
    """Create the counters of `starts` (name -> first value) that do not exist yet."""
    for name, start in starts.items():
        if session.get(NumberSequence, name) is None:
            session.add(NumberSequence(name=name, next_value=start))
