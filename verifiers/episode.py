"""What a check sees of an episode: the record's snapshots, queried, and the task's case.

`EpisodeView` wraps one `EpisodeRecord` for the checks of one task: JMESPath queries over
an app's final (or initial) snapshot with the task's values put in, the rows a table
gained or changed during the episode, and the task's case as plain JSON for `{case: ...}`
references. Compiled queries are cached, as 135 tasks repeat the same few hundred.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from admindesk.schema.values import resolve
from admindesk.verifiers.judge import Judge
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.snapshot_schema import primary_key

# Tables an app writes as a side effect of any use (who looked at what, the clock, the
# counters behind issued numbers, session warnings): never "collateral" writes.
BOOKKEEPING_TABLES = frozenset({"audit_events", "bench_state", "number_sequences", "session_activity"})


class SnapshotMissing(LookupError):
    """The record holds no snapshot of an app (it was down at the end, or never ran)."""


class QueryError(ValueError):
    """A JMESPath query that does not compile or has a parameter without a value."""


@lru_cache(maxsize=4096)
def compile_query(text: str):
    """The compiled JMESPath expression (QueryError names the query when it does not compile)."""
    try:
        return jmespath.compile(text)
    except JMESPathError as exc:
        raise QueryError(f"query {text!r} does not compile: {exc}") from exc


def fill_params(query: str, values: dict[str, Any]) -> str:
    """`{{name}}` in a query replaced by the value as a JMESPath JSON literal."""
    text = query
    for name, value in values.items():
        literal = json.dumps(value).replace("`", "\\`")
        text = text.replace("{{" + name + "}}", f"`{literal}`")
    if "{{" in text:
        start = text.index("{{")
        raise QueryError(f"query {query!r} uses {text[start:text.index('}}', start) + 2]} "
                         "but the check gives it no value in `params`")
    return text


def _row_key(row: dict, key: list[str]) -> tuple:
    values = tuple(row.get(name) for name in key)
    # Keys are text or numbers; anything unhashable is keyed by its canonical JSON.
    if all(isinstance(value, (str, int, float, type(None))) for value in values):
        return values
    return tuple(json.dumps(value, sort_keys=True) for value in values)


@dataclass
class EpisodeView:
    """One record, as the checks of one task read it (with the judge rubric checks call, if any)."""

    record: EpisodeRecord
    case: dict[str, Any] | None = None
    judge: Judge | None = None
    _changes: dict = field(default_factory=dict, repr=False)

    def snapshot(self, app: str, *, initial: bool = False) -> dict[str, Any]:
        """The app's final (or initial) snapshot; SnapshotMissing says why there is none."""
        snapshots = self.record.initial_snapshots if initial else self.record.final_snapshots
        if not initial and app in self.record.snapshot_errors:
            raise SnapshotMissing(f"no final snapshot of {app}: {self.record.snapshot_errors[app]}")
        if app not in snapshots:
            raise SnapshotMissing(f"the record holds no {'initial' if initial else 'final'} snapshot of {app}")
        return snapshots[app]

    def resolve(self, spec: Any) -> Any:
        """An expected value with its case references filled in."""
        return resolve(spec, self.case)

    def query(self, app: str, query: str, params: dict[str, Any] | None = None,
              *, initial: bool = False) -> Any:
        """The query's result over the app's snapshot, `{{name}}` params filled from the case."""
        values = {name: self.resolve(spec) for name, spec in (params or {}).items()}
        return compile_query(fill_params(query, values)).search(self.snapshot(app, initial=initial))

    def changed_rows(self, app: str, table: str) -> list[tuple[dict | None, dict | None]]:
        """(before, after) pairs of rows added (None, row), removed (row, None) or modified.

        Computed once per table and episode: several checks and guards ask for the same.
        """
        cache_key = (app, table)
        if cache_key in self._changes:
            return self._changes[cache_key]
        final_rows = self.snapshot(app).get(table, [])
        try:
            initial_rows = self.snapshot(app, initial=True).get(table, [])
        except SnapshotMissing:
            initial_rows = []
        if final_rows[:len(initial_rows)] == initial_rows:
            # Every initial row unchanged and in place: the rest, with keys unique in the
            # final table, can only be additions (the common case, e.g. audit rows).
            changes: list = [(None, row) for row in final_rows[len(initial_rows):]]
        else:
            key = primary_key(app, table)
            before = {_row_key(row, key): row for row in initial_rows}
            after = {_row_key(row, key): row for row in final_rows}
            changes = [(before.get(k), row) for k, row in after.items() if before.get(k) != row]
            changes += [(row, None) for k, row in before.items() if k not in after]
        self._changes[cache_key] = changes
        return changes

    def new_rows(self, app: str, table: str) -> list[dict]:
        """Rows of the final snapshot whose key the initial snapshot did not have."""
        return [after for before, after in self.changed_rows(app, table) if before is None]

    def tables(self, app: str) -> list[str]:
        """Every table of the app in either snapshot (not the `_meta` entry)."""
        names = set(self.snapshot(app)) | set(self.record.initial_snapshots.get(app, {}))
        return sorted(name for name in names if not name.startswith("_"))
