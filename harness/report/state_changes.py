"""What an episode changed in the apps: the rows added, removed or changed between a record's
initial and final snapshots, table by table, for the trajectory viewer's before/after view.

Rows are matched by their table's key, as the collateral-change checks match them, and the
apps' own bookkeeping (audit trail, sessions, number sequences) is left out: it changes on
every page view and says nothing about the work.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from admindesk.verifiers.episode import BOOKKEEPING_TABLES, EpisodeView
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.snapshot_schema import primary_key

# A page lists this many rows of a table; the rest are counted (a runaway agent can add
# thousands of rows, and the page must still open).
ROWS_SHOWN = 50
VALUE_CHARS = 200


@dataclass
class FieldChange:
    """One column of a changed row: its value before and after (None: the row did not exist)."""

    name: str
    before: str | None
    after: str | None


@dataclass
class RowChange:
    """A row added, removed or changed, named by its key, with the columns that differ."""

    change: str
    key: str
    fields: list[FieldChange]


@dataclass
class TableChanges:
    """The changed rows of one app's table (`more`: changed rows beyond those listed)."""

    app: str
    table: str
    rows: list[RowChange] = field(default_factory=list)
    more: int = 0


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def _row_change(app: str, table: str, before: dict | None, after: dict | None) -> RowChange:
    row = after if after is not None else before or {}
    key = ", ".join(f"{name}={_shown(row.get(name))}" for name in primary_key(app, table))
    names = list(row) + [name for name in (before or {}) if name not in row]
    fields = [FieldChange(name, None if before is None else _shown(before.get(name)),
                          None if after is None else _shown(after.get(name)))
              for name in names
              if before is None or after is None or before.get(name) != after.get(name)]
    change = "added" if before is None else "removed" if after is None else "changed"
    return RowChange(change=change, key=key, fields=fields)


def state_changes(record: EpisodeRecord) -> list[TableChanges]:
    """Every table of every app with a row the episode changed, in app and table order; an
    app without both snapshots (an error ended the episode) has no changes to show."""
    view = EpisodeView(record=record)
    found = []
    apps = sorted(set(record.initial_snapshots) & set(record.final_snapshots) - set(record.snapshot_errors))
    for app in apps:
        for table in view.tables(app):
            if table in BOOKKEEPING_TABLES:
                continue
            changed = view.changed_rows(app, table)
            if changed:
                found.append(TableChanges(app=app, table=table, more=max(0, len(changed) - ROWS_SHOWN),
                                          rows=[_row_change(app, table, before, after)
                                                for before, after in changed[:ROWS_SHOWN]]))
    return found
