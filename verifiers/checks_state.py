"""Check kinds over the apps' state: a query against a value, two apps agreeing, a file
sent being the right document, and no rows changed outside what the task allows."""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from admindesk.verifiers.check_base import AppQuery, CheckBase, failed, passed, verdict, require_pattern
from admindesk.verifiers.episode import BOOKKEEPING_TABLES, EpisodeView
from admindesk.verifiers.records import CheckResult
from admindesk.verifiers.snapshot_schema import primary_key
from admindesk.verifiers.app_names import AppName
from admindesk.verifiers.values import (ValueSpec, as_number, parse_date, shown, text_contains,
                                        values_equal)

QueryOp = Literal["equals", "contains", "regex", "count", "one_of", "range", "date_equals"]


def _items(value: Any) -> list:
    return value if isinstance(value, list) else [] if value is None else [value]


class QueryCheck(CheckBase):
    """An app's final state, selected by JMESPath, compared with an expected value.

    `equals` (case and spacing aside), `contains` (a list holding the value, or text
    holding it as whole words), `regex`, `count` (of a list; `expected` or `min`/`max`),
    `one_of`, `range` (numeric `min`..`max`), `date_equals` (any common date format).
    """

    kind: Literal["query"] = "query"
    app: AppName
    query: str = Field(min_length=1)
    params: dict[str, ValueSpec] = Field(default_factory=dict)
    op: QueryOp = "equals"
    expected: ValueSpec | list[ValueSpec] = None
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _fields_fit_op(self):
        has_expected = "expected" in self.model_fields_set
        bounds = self.min is not None or self.max is not None
        if self.op == "range" and not bounds:
            raise ValueError("op range needs `min` and/or `max`")
        if self.op == "count" and has_expected == bounds:
            raise ValueError("op count needs either `expected` (an exact count) or `min`/`max`")
        if self.op not in ("range", "count") and (not has_expected or bounds):
            raise ValueError(f"op {self.op} needs `expected` (and no `min`/`max`)")
        if self.op == "one_of" and not isinstance(self.expected, list):
            raise ValueError("op one_of needs `expected` as a list of values")
        if self.op == "regex":
            require_pattern(self.expected)
        return self

    def app_queries(self) -> list[AppQuery]:
        return [AppQuery(app=self.app, query=self.query, params=self.params)]

    def expected_specs(self) -> list[Any]:
        return _items(self.expected)

    def evaluate(self, view: EpisodeView) -> CheckResult:
        actual = self.app_queries()[0].run(view)
        expected = view.resolve(self.expected)
        subject = self.subject()
        if self.op == "equals":
            return verdict(values_equal(actual, expected), subject, shown(expected), actual, expected=expected)
        if self.op == "date_equals":
            want, got = parse_date(expected), parse_date(actual)
            return verdict(want is not None and want == got, subject, f"the date {want}", actual,
                           expected=expected, actual_date=got.isoformat() if got else None)
        if self.op == "contains":
            ok = (any(values_equal(item, expected) for item in actual) if isinstance(actual, list)
                  else text_contains(actual, expected))
            return verdict(ok, subject, f"something holding {shown(expected)}", actual, expected=expected)
        if self.op == "regex":
            ok = any(re.search(expected, str(item), re.IGNORECASE) for item in _items(actual))
            return verdict(ok, subject, f"text matching /{expected}/", actual, expected=expected)
        if self.op == "one_of":
            ok = any(values_equal(actual, option) for option in expected)
            return verdict(ok, subject, f"one of {shown(expected)}", actual, expected=expected)
        if self.op == "count":
            count = len(actual) if isinstance(actual, list) else 0 if actual is None else 1
            return self._bounded(count, subject, f"{count} item(s)", actual, expected)
        number = as_number(actual)
        return self._bounded(number, subject, shown(actual), actual, expected)

    def _bounded(self, number: float | None, subject: str, found: str, actual: Any,
                 exact: Any) -> CheckResult:
        if self.op == "count" and self.min is None and self.max is None:
            want, ok = f"exactly {exact}", number == exact
        else:
            low = "" if self.min is None else f"at least {self.min:g}"
            high = "" if self.max is None else f"at most {self.max:g}"
            want = " and ".join(part for part in (low, high) if part)
            ok = (number is not None and (self.min is None or number >= self.min)
                  and (self.max is None or number <= self.max))
        text = f"{subject}: expected {want}, found {found}"
        evidence = {"actual": actual, "min": self.min, "max": self.max, "expected": exact}
        return passed(text, **evidence) if ok else failed(text, **evidence)


class CrossAppCheck(CheckBase):
    """Two apps agree: e.g. the auth number typed into the EHR is the one the portal issued."""

    kind: Literal["cross_app"] = "cross_app"
    left: AppQuery
    right: AppQuery

    def app_queries(self) -> list[AppQuery]:
        return [self.left, self.right]

    def evaluate(self, view: EpisodeView) -> CheckResult:
        left, right = self.left.run(view), self.right.run(view)
        evidence = {"left": left, "right": right}
        subject = self.description or "the two apps"
        if left in (None, "", []) or right in (None, "", []):
            return failed(f"{subject}: expected the same value in {self.left.app} and {self.right.app}, "
                          f"found {shown(left)} in {self.left.app} and {shown(right)} in {self.right.app}",
                          **evidence)
        ok = values_equal(left, right)
        relation = "agree on" if ok else "differ:"
        return (passed if ok else failed)(
            f"{subject}: {self.left.app} and {self.right.app} {relation} {shown(left)}"
            + ("" if ok else f" in {self.left.app} vs {shown(right)} in {self.right.app}"), **evidence)


def _hashes(value: Any) -> set[str]:
    """sha256 hex digests from a query result (snapshots show file bytes as "sha256:<hex>")."""
    return {str(item).removeprefix("sha256:").lower() for item in _items(value) if item}


class FileCheck(CheckBase):
    """A file sent (uploaded or faxed) is exactly a source document (EHR PDF, inbound fax)."""

    kind: Literal["file"] = "file"
    sent: AppQuery = Field(description="sha256 of the attachments sent, e.g. fax_attachments[].sha256")
    source: AppQuery = Field(description="sha256 of the document that should be among them")

    def app_queries(self) -> list[AppQuery]:
        return [self.sent, self.source]

    def evaluate(self, view: EpisodeView) -> CheckResult:
        sent, wanted = _hashes(self.sent.run(view)), _hashes(self.source.run(view))
        subject = self.description or "the file sent"
        evidence = {"sent_sha256": sorted(sent), "source_sha256": sorted(wanted)}
        if not wanted:
            return failed(f"{subject}: the source document was not found ({self.source.label()})",
                          **evidence)
        if not sent:
            return failed(f"{subject}: expected a file with sha256 {min(wanted)[:12]}..., "
                          "found no file sent", **evidence)
        match = sent & wanted
        if match:
            return passed(f"{subject}: the file sent is the source document "
                          f"(sha256 {min(match)[:12]}...)", **evidence)
        return failed(f"{subject}: expected a file with sha256 {min(wanted)[:12]}..., found only "
                      f"{', '.join(h[:12] + '...' for h in sorted(sent))} (a different document)",
                      **evidence)


RowFilter = dict[str, ValueSpec | list[ValueSpec]]


class _AllowedChanges(BaseModel):
    model_config = ConfigDict(extra="forbid")

    app: AppName
    # Table -> the rows that may change there (fields they must match); null: any row.
    allowed: dict[str, RowFilter | None] = Field(default_factory=dict)


def row_matches(row: dict | None, row_filter: dict[str, Any]) -> bool:
    """Whether a row has, in every filtered field, the value (or one of the values) given."""
    if row is None:
        return False
    return all(any(values_equal(row.get(name), option) for option in _items(want) or [None])
               for name, want in row_filter.items())


def collateral_changes(view: EpisodeView, app: str, allowed: dict[str, RowFilter | None]) -> list[dict]:
    """Rows changed in `app` outside the allowed tables/rows: [{table, change, key}]."""
    resolved = {table: None if row_filter is None else
                {name: view.resolve(want) for name, want in row_filter.items()}
                for table, row_filter in allowed.items()}
    found = []
    for table in view.tables(app):
        if table in BOOKKEEPING_TABLES:
            continue
        row_filter = resolved.get(table, False)
        if row_filter is None:
            continue
        for before, after in view.changed_rows(app, table):
            if row_filter is not False and (row_matches(before, row_filter) or before is None) \
                    and (row_matches(after, row_filter) or after is None):
                continue
            row = after or before
            change = "added" if before is None else "removed" if after is None else "changed"
            found.append({"table": table, "change": change,
                          "key": {name: row.get(name) for name in primary_key(app, table)}})
    return found


class StateDiffCheck(CheckBase, _AllowedChanges):
    """No rows changed in an app outside the allowed tables (and, per table, allowed rows)."""

    kind: Literal["state_diff"] = "state_diff"

    def expected_specs(self) -> list[Any]:
        return [spec for row_filter in self.allowed.values() if row_filter
                for want in row_filter.values() for spec in _items(want)]

    def evaluate(self, view: EpisodeView) -> CheckResult:
        found = collateral_changes(view, self.app, self.allowed)
        scope = ", ".join(sorted(self.allowed)) or "no table"
        subject = self.description or f"{self.app} changes"
        if not found:
            return passed(f"{subject}: expected changes only in {scope}, found none elsewhere",
                          changes=[])
        listed = "; ".join(f"{c['table']} row {c['key']} {c['change']}" for c in found[:5])
        return failed(f"{subject}: expected changes only in {scope}, found {len(found)} elsewhere: "
                      f"{listed}", changes=found)
