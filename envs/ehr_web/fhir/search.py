"""FHIR search over the EHR's tables: the kinds of search parameter (token, reference, date,
string) and how one value becomes a SQL condition, `_id`, paging with `_count` and
`_offset`, and the searchset Bundle.

Repeating a parameter ANDs its values (`date=ge2026-01-01&date=lt2026-02-01`); a comma
inside one value ORs alternatives (`identifier=E1000449,E1000450`). A parameter the type
does not support, a modifier, or a value the parameter cannot read is a 400 naming it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from urllib.parse import urlencode

from fhir.resources.R4B.bundle import Bundle
from flask import request, url_for
from sqlalchemy import and_, false, func, not_, or_, select

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.fhir.outcomes import fhir_error

DEFAULT_COUNT = 20
MAX_COUNT = 100
# Parameters about the answer rather than the match.
RESULT_PARAMETERS = ("_count", "_offset", "_format")
JSON_FORMATS = ("json", "application/json", "application/fhir+json")
_DATE = re.compile(r"^(eq|ne|gt|lt|ge|le|sa|eb)?(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T[0-9:.+\-Z]*)?)?)?$")
# A date is a point, so "starts after" and "ends before" mean after and before it.
_SAME_AS = {"sa": "gt", "eb": "lt"}


@dataclass(frozen=True)
class SearchParam:
    """One search parameter: its FHIR type and what one of its values matches."""

    type: str  # token | reference | date | string (as the CapabilityStatement names it)
    match: Callable[[str, str], object]  # (parameter name, one value) -> SQL condition
    documentation: str


def _alternatives(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def token(documentation: str, *systems: tuple[str | None, Callable[[str], object]]) -> SearchParam:
    """`[system|]code`: each (system, condition) pair is one identifier or code the type carries
    (a None system: a plain code, whatever system the client names)."""

    def match(_name: str, value: str):
        conditions = []
        for alternative in _alternatives(value):
            system, _, code = alternative.rpartition("|")
            conditions += [condition(code) for known, condition in systems if not system or known in (None, system)]
        return or_(*conditions) if conditions else false()

    return SearchParam("token", match, documentation)


def reference(documentation: str, **targets: Callable[[str], object]) -> SearchParam:
    """`Type/id`, `id` when only one type can be meant, or the absolute URL of a resource."""

    def match(name: str, value: str):
        conditions = []
        for alternative in _alternatives(value):
            parts = alternative.rstrip("/").split("/")
            target, target_id = (parts[-2], parts[-1]) if len(parts) > 1 else (None, parts[-1])
            if target is None and len(targets) == 1:
                target = next(iter(targets))
            if target not in targets:
                kinds = " or ".join(f"{kind}/<id>" for kind in targets)
                raise fhir_error(400, "value", f"Search parameter '{name}' takes {kinds}, not '{alternative}'.", name)
            conditions.append(targets[target](target_id))
        return or_(*conditions) if conditions else false()

    return SearchParam("reference", match, documentation)


def string(documentation: str, *columns) -> SearchParam:
    """Case-insensitive starts-with on any of the columns (FHIR string search)."""

    def match(_name: str, value: str):
        return or_(*(func.lower(column).startswith(alternative.lower(), autoescape=True)
                     for alternative in _alternatives(value) for column in columns))

    return SearchParam("string", match, documentation)


def _date_range(name: str, text: str) -> tuple[str, date, date]:
    """The prefix and the first and last day a date value (YYYY, YYYY-MM, YYYY-MM-DD) covers."""
    parsed = _DATE.match(text)
    if parsed is None:
        raise fhir_error(400, "value", f"Search parameter '{name}': '{text}' is not a date. Use an optional prefix "
                                       "(eq, ne, gt, lt, ge, le) and YYYY, YYYY-MM or YYYY-MM-DD, e.g. ge2026-01-01.",
                         name)
    prefix, year, month, day_of_month = parsed.groups()
    try:
        if day_of_month:
            first = last = date(int(year), int(month), int(day_of_month))
        elif month:
            first = date(int(year), int(month), 1)
            last = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        else:
            first, last = date(int(year), 1, 1), date(int(year), 12, 31)
    except ValueError:
        raise fhir_error(400, "value", f"Search parameter '{name}': '{text}' is not a calendar date.", name) from None
    prefix = prefix or "eq"
    return _SAME_AS.get(prefix, prefix), first, last


def date_param(documentation: str, column) -> SearchParam:
    """A day column compared with FHIR's prefixes; a month or a year covers all its days."""

    def match(name: str, value: str):
        conditions = []
        for alternative in _alternatives(value):
            prefix, first, last = _date_range(name, alternative)
            within = and_(column >= first, column <= last)
            conditions.append({"eq": within, "ne": not_(within), "gt": column > last, "lt": column < first,
                               "ge": column >= first, "le": column <= last}[prefix])
        return or_(*conditions)

    return SearchParam("date", match, documentation)


def page_arguments() -> tuple[int, int]:
    """`_count` (default 20, at most 100) and `_offset` of the request."""
    values = {}
    for name, default, least in (("_count", DEFAULT_COUNT, 1), ("_offset", 0, 0)):
        text = request.args.get(name, str(default))
        if not text.isdigit() or int(text) < least:
            raise fhir_error(400, "value", f"Search parameter '{name}' must be a whole number of at least {least}, "
                                           f"not '{text}'.", name)
        values[name] = int(text)
    if request.args.get("_format", "json") not in JSON_FORMATS:
        raise fhir_error(406, "not-supported", "This server answers JSON only (_format=json).", "_format")
    return min(values["_count"], MAX_COUNT), values["_offset"]


def id_condition(source, value: str):
    """`_id`: the resource's own id, on any of its sources."""
    keys = [source.parse_id(alternative) for alternative in _alternatives(value)]
    keys = [key for key in keys if key is not None]
    return source.key.in_(keys) if keys else false()


def source_filters(source, arguments: Mapping[str, list[str]]):
    """The conditions of the search on one source (a missing parameter excludes the source)."""
    conditions = []
    for name, values in arguments.items():
        for value in values:
            if name == "_id":
                conditions.append(id_condition(source, value))
            elif name in source.params:
                conditions.append(source.params[name].match(name, value))
            else:
                conditions.append(false())
    return conditions


def match_arguments(kind) -> dict[str, list[str]]:
    """The request's search parameters (not the paging ones), checked against the type's."""
    supported = kind.search_params()
    arguments = {}
    for name in request.args:
        if name in RESULT_PARAMETERS:
            continue
        if name != "_id" and name not in supported:
            names = ", ".join(["_id", *supported, *RESULT_PARAMETERS])
            raise fhir_error(400, "not-supported", f"Unknown search parameter '{name}' for {kind.name}. "
                                                   f"Supported: {names}.", name)
        arguments[name] = request.args.getlist(name)
    return arguments


def run_search(kind, arguments: Mapping[str, list[str]], count: int, offset: int) -> tuple[int, list]:
    """The total of matches over the type's sources and one page of (source, row)."""
    total, rows = 0, []
    for source in kind.sources:
        statement = select(source.model).where(*source_filters(source, arguments))
        matches = db().scalar(select(func.count()).select_from(statement.subquery()))
        if len(rows) < count and offset < total + matches:
            page = statement.order_by(*source.order_by).offset(max(offset - total, 0)).limit(count - len(rows))
            rows += [(source, row) for row in db().scalars(page)]
        total += matches
    return total, rows


def _page_url(kind, offset: int, count: int) -> str:
    pairs = [(name, value) for name, value in request.args.items(multi=True) if name not in ("_offset", "_count")]
    pairs += [("_count", str(count)), ("_offset", str(offset))]
    return url_for("api_fhir.search", resource_type=kind.name, _external=True) + "?" + urlencode(pairs)


def searchset(kind, total: int, resources: list, count: int, offset: int) -> Bundle:
    """The searchset Bundle of one page: total, self/next/previous links, entries with fullUrl."""
    links = [{"relation": "self", "url": _page_url(kind, offset, count)}]
    if offset + count < total:
        links.append({"relation": "next", "url": _page_url(kind, offset + count, count)})
    if offset > 0:
        links.append({"relation": "previous", "url": _page_url(kind, max(offset - count, 0), count)})
    entries = [{"fullUrl": url_for("api_fhir.read", resource_type=kind.name, resource_id=resource.id, _external=True),
                "resource": resource, "search": {"mode": "match"}} for resource in resources]
    return Bundle(type="searchset", total=total, link=links, entry=entries or None)
