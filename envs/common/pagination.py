"""Paging and sorting of list screens (work queues, search results, inboxes).

A page number the list cannot show is answered the same way in every app, as enterprise
list screens do: a redirect to the nearest page that exists, with a notice saying why
(past the end -> the last page; zero, negative or not a number -> page 1). The list is
never silently swapped for another page, and a bad number never raises. List screens are
GET requests, so the redirect loses no typed input.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn
from urllib.parse import urlencode

from flask import abort, flash, redirect, request
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

PAGE_ARG = "page"
_PAGE_NUMBER = re.compile(r"[+-]?([0-9]+)", re.ASCII)
# A number with more digits is past any list's end (and Python's int() refuses very long ones).
_MAX_DIGITS = 9
# How much of a bad page argument a notice repeats.
_SHOWN_CHARS = 20


@dataclass(frozen=True)
class Page:
    """One page of a result list, with what the pager needs to draw itself."""

    items: list
    number: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_prev(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages

    @property
    def first_index(self) -> int:
        return 0 if self.total == 0 else (self.number - 1) * self.per_page + 1

    @property
    def last_index(self) -> int:
        return min(self.total, self.number * self.per_page)


def _shown(raw: str) -> str:
    return raw if len(raw) <= _SHOWN_CHARS else raw[:_SHOWN_CHARS] + "\u2026"


def _go_to_page(number: int, notice: str) -> NoReturn:
    """Redirect to this list with the same query arguments but page `number`, and say why."""
    flash(notice, "warning")
    kept = [(key, value) for key, value in request.args.items(multi=True) if key != PAGE_ARG]
    abort(redirect(request.script_root + request.path + "?" + urlencode([*kept, (PAGE_ARG, str(number))])))


def requested_page() -> int | None:
    """The `page` query argument as a page number from 1 up (1 when absent), or None when it
    is a number too long to be any list's page. Anything else redirects to page 1 with a notice."""
    raw = request.args.get(PAGE_ARG, "").strip()
    if raw == "":
        return 1
    match = _PAGE_NUMBER.fullmatch(raw)
    if match is None:
        _go_to_page(1, f"\u201c{_shown(raw)}\u201d is not a page number. Showing page 1.")
    digits = match.group(1).lstrip("0")
    if raw.startswith("-") or not digits:
        _go_to_page(1, f"There is no page {_shown(raw)}: pages are numbered from 1. Showing page 1.")
    return int(digits) if len(digits) <= _MAX_DIGITS else None


def paginate(session: Session, stmt: Select, per_page: int = 25) -> Page:
    """Run `stmt` for the requested page; a page past the end redirects to the last page."""
    number = requested_page()
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0
    last = max(1, -(-total // per_page))
    if number is None or number > last:
        asked = _shown(request.args[PAGE_ARG].strip())
        _go_to_page(last, f"There is no page {asked}: this list has {last} page{'s' if last != 1 else ''}. "
                          f"Showing page {last}{', the last' if last > 1 else ''}.")
    items = list(session.scalars(stmt.limit(per_page).offset((number - 1) * per_page)))
    return Page(items=items, number=number, per_page=per_page, total=total)


def apply_sort(stmt: Select, columns: dict, default: str, default_dir: str = "asc") -> Select:
    """Order by the `sort`/`dir` query arguments, restricted to the named columns."""
    key = request.args.get("sort", default)
    column = columns.get(key, columns[default])
    direction = request.args.get("dir", default_dir if key == default else "asc")
    return stmt.order_by(column.desc() if direction == "desc" else column.asc())
