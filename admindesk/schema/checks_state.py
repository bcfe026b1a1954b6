"""Check kinds over the apps' state: a query against a value, two apps agreeing, a file
sent being the right document, and no rows changed outside what the task allows."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from admindesk.schema.app_names import AppName
from admindesk.schema.check_base import AppQuery, CheckBase, listed, require_pattern
from admindesk.schema.values import ValueSpec

QueryOp = Literal["equals", "contains", "regex", "count", "one_of", "range", "date_equals", "date_after"]


class QueryCheck(CheckBase):
    """An app's final state, selected by JMESPath, compared with an expected value.

    `equals` (case and spacing aside), `contains` (a list holding the value, or text
    holding it as whole words), `regex`, `count` (of a list; `expected` or `min`/`max`),
    `one_of`, `range` (numeric `min`..`max`), `date_equals` (any common date format), `date_after`
    (a date later than `expected`: a new follow-up date set after the task's day).
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
        return listed(self.expected)


class CrossAppCheck(CheckBase):
    """Two apps agree: e.g. the auth number typed into the EHR is the one the portal issued."""

    kind: Literal["cross_app"] = "cross_app"
    left: AppQuery
    right: AppQuery

    def app_queries(self) -> list[AppQuery]:
        return [self.left, self.right]


class FileCheck(CheckBase):
    """A file sent (uploaded or faxed) is exactly a source document (EHR PDF, inbound fax)."""

    kind: Literal["file"] = "file"
    sent: AppQuery = Field(description="sha256 of the attachments sent, e.g. fax_attachments[].sha256")
    source: AppQuery = Field(description="sha256 of the document that should be among them")

    def app_queries(self) -> list[AppQuery]:
        return [self.sent, self.source]


RowFilter = dict[str, ValueSpec | list[ValueSpec]]


class AllowedChanges(BaseModel):
    """The rows an app may change: table -> the fields they must match (null: any row)."""

    model_config = ConfigDict(extra="forbid")

    app: AppName
    allowed: dict[str, RowFilter | None] = Field(default_factory=dict)


class StateDiffCheck(CheckBase, AllowedChanges):
    """No rows changed in an app outside the allowed tables (and, per table, allowed rows)."""

    kind: Literal["state_diff"] = "state_diff"

    def expected_specs(self) -> list[Any]:
        return [spec for row_filter in self.allowed.values() if row_filter
                for want in row_filter.values() for spec in listed(want)]
