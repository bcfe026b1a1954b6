"""Paging and sorting of list screens (work queues, search results, inboxes)."""
from __future__ import annotations

from dataclasses import dataclass

from flask import request
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session


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


def requested_page() -> int:
    """The `page` query argument; anything that is not a positive integer means page 1."""
    value = request.args.get("page", "1")
    return int(value) if value.isdigit() and int(value) > 0 else 1


def paginate(session: Session, stmt: Select, per_page: int = 25, number: int | None = None) -> Page:
    """Run `stmt` for one page; a page past the end shows the last page."""
    total = session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0
    number = number or requested_page()
    number = min(number, max(1, -(-total // per_page)))
    items = list(session.scalars(stmt.limit(per_page).offset((number - 1) * per_page)))
    return Page(items=items, number=number, per_page=per_page, total=total)


def apply_sort(stmt: Select, columns: dict, default: str, default_dir: str = "asc") -> Select:
    """Order by the `sort`/`dir` query arguments, restricted to the named columns."""
    key = request.args.get("sort", default)
    column = columns.get(key, columns[default])
    direction = request.args.get("dir", default_dir if key == default else "asc")
    return stmt.order_by(column.desc() if direction == "desc" else column.asc())
