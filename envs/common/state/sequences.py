"""Named counters in the database: the same actions after a reset give the same numbers.

Apps format their own reference numbers; the values come from `next_value`, backed by
the kit's `number_sequences` table (one row per counter name).
"""
from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from admindesk.envs.common.state.kit_models import NumberSequence


def next_value(session: Session, name: str, start: int = 1) -> int:
    """Take the next value of counter `name`; a new counter begins at `start` (the caller commits)."""
    # Read and bump in one UPDATE, which takes SQLite's write lock first: a read, then a
    # write, lets two requests posting at once (each reading before either writes) take
    # the same value.
    bumped = session.execute(update(NumberSequence).where(NumberSequence.name == name)
                             .values(next_value=NumberSequence.next_value + 1)
                             .returning(NumberSequence.next_value)
                             .execution_options(synchronize_session="fetch")).scalar_one_or_none()
    if bumped is not None:
        return bumped - 1
    session.add(NumberSequence(name=name, next_value=start + 1))
    session.flush()  # under the write lock the UPDATE took, so no other request adds it too
    return start


def seed_sequences(session: Session, starts: dict[str, int]) -> None:
    """Create the counters of `starts` (name -> first value) that do not exist yet."""
    for name, start in starts.items():
        if session.get(NumberSequence, name) is None:
            session.add(NumberSequence(name=name, next_value=start))
