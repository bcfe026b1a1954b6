"""Deciding the check kinds over the apps' state (declared in admindesk.schema.checks_state):
a query against a value, two apps agreeing, a file sent being the right document, and no
rows changed outside what the task allows."""
from __future__ import annotations

import re
from typing import Any

from admindesk.schema.check_base import listed
from admindesk.schema.checks_state import CrossAppCheck, FileCheck, QueryCheck, RowFilter, StateDiffCheck
from admindesk.verifiers.episode import BOOKKEEPING_TABLES, EpisodeView
from admindesk.verifiers.evaluation import failed, passed, run_query, verdict
from admindesk.verifiers.records import CheckResult
from admindesk.verifiers.snapshot_schema import primary_key
from admindesk.verifiers.values import as_number, parse_date, shown, text_contains, values_equal


def evaluate_query(check: QueryCheck, view: EpisodeView) -> CheckResult:
    actual = run_query(check.app_queries()[0], view)
    expected = view.resolve(check.expected)
    subject = check.subject()
    if check.op == "equals":
        return verdict(values_equal(actual, expected), subject, shown(expected), actual, expected=expected)
    if check.op == "date_equals":
        want, got = parse_date(expected), parse_date(actual)
        return verdict(want is not None and want == got, subject, f"the date {want}", actual,
                       expected=expected, actual_date=got.isoformat() if got else None)
    if check.op == "date_after":
        want, got = parse_date(expected), parse_date(actual)
        return verdict(want is not None and got is not None and got > want, subject, f"a date after {want}", actual,
                       expected=expected, actual_date=got.isoformat() if got else None)
    if check.op == "contains":
        ok = (any(values_equal(item, expected) for item in actual) if isinstance(actual, list)
              else text_contains(actual, expected))
        return verdict(ok, subject, f"something holding {shown(expected)}", actual, expected=expected)
    if check.op == "regex":
        ok = any(re.search(expected, str(item), re.IGNORECASE) for item in listed(actual))
        return verdict(ok, subject, f"text matching /{expected}/", actual, expected=expected)
    if check.op == "one_of":
        ok = any(values_equal(actual, option) for option in expected)
        return verdict(ok, subject, f"one of {shown(expected)}", actual, expected=expected)
    if check.op == "count":
        count = len(actual) if isinstance(actual, list) else 0 if actual is None else 1
        return _bounded(check, count, subject, f"{count} item(s)", actual, expected)
    number = as_number(actual)
    return _bounded(check, number, subject, shown(actual), actual, expected)


def _bounded(check: QueryCheck, number: float | None, subject: str, found: str, actual: Any,
             exact: Any) -> CheckResult:
    if check.op == "count" and check.min is None and check.max is None:
        want, ok = f"exactly {exact}", number == exact
    else:
        low = "" if check.min is None else f"at least {check.min:g}"
        high = "" if check.max is None else f"at most {check.max:g}"
        want = " and ".join(part for part in (low, high) if part)
        ok = (number is not None and (check.min is None or number >= check.min)
              and (check.max is None or number <= check.max))
    text = f"{subject}: expected {want}, found {found}"
    evidence = {"actual": actual, "min": check.min, "max": check.max, "expected": exact}
    return passed(text, **evidence) if ok else failed(text, **evidence)


def evaluate_cross_app(check: CrossAppCheck, view: EpisodeView) -> CheckResult:
    left, right = run_query(check.left, view), run_query(check.right, view)
    evidence = {"left": left, "right": right}
    subject = check.description or "the two apps"
    if left in (None, "", []) or right in (None, "", []):
        return failed(f"{subject}: expected the same value in {check.left.app} and {check.right.app}, "
                      f"found {shown(left)} in {check.left.app} and {shown(right)} in {check.right.app}",
                      **evidence)
    ok = values_equal(left, right)
    relation = "agree on" if ok else "differ:"
    return (passed if ok else failed)(
        f"{subject}: {check.left.app} and {check.right.app} {relation} {shown(left)}"
        + ("" if ok else f" in {check.left.app} vs {shown(right)} in {check.right.app}"), **evidence)


def _hashes(value: Any) -> set[str]:
    """sha256 hex digests from a query result (snapshots show file bytes as "sha256:<hex>")."""
    return {str(item).removeprefix("sha256:").lower() for item in listed(value) if item}


def evaluate_file(check: FileCheck, view: EpisodeView) -> CheckResult:
    sent, wanted = _hashes(run_query(check.sent, view)), _hashes(run_query(check.source, view))
    subject = check.description or "the file sent"
    evidence = {"sent_sha256": sorted(sent), "source_sha256": sorted(wanted)}
    if not wanted:
        return failed(f"{subject}: the source document was not found ({check.source.label()})",
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


def row_matches(row: dict | None, row_filter: dict[str, Any]) -> bool:
    """Whether a row has, in every filtered field, the value (or one of the values) given."""
    if row is None:
        return False
    return all(any(values_equal(row.get(name), option) for option in listed(want) or [None])
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


def evaluate_state_diff(check: StateDiffCheck, view: EpisodeView) -> CheckResult:
    found = collateral_changes(view, check.app, check.allowed)
    scope = ", ".join(sorted(check.allowed)) or "no table"
    subject = check.description or f"{check.app} changes"
    if not found:
        return passed(f"{subject}: expected changes only in {scope}, found none elsewhere",
                      changes=[])
    listed_changes = "; ".join(f"{c['table']} row {c['key']} {c['change']}" for c in found[:5])
    return failed(f"{subject}: expected changes only in {scope}, found {len(found)} elsewhere: "
                  f"{listed_changes}", changes=found)
