"""Check kinds over what the user did and wrote: the audit trail, the final answer, and
rubric checks that a judge reads (letters, notes, comments, the answer)."""
from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from admindesk.schema.app_names import AppName
from admindesk.schema.check_base import AppQuery, CheckBase, require_pattern
from admindesk.schema.values import ValueSpec


class AuditCheck(CheckBase):
    """The user opened a record (or tab, or did an action) during the episode: new audit rows
    whose fields match `match`, at least `min_count` of them."""

    kind: Literal["audit"] = "audit"
    app: AppName
    match: dict[str, ValueSpec] = Field(min_length=1)
    min_count: int = Field(default=1, ge=1)

    def app_queries(self) -> list[AppQuery]:
        fields = " && ".join(f"{name}!=`null`" for name in self.match)
        return [AppQuery(app=self.app, query=f"audit_events[?{fields}]")]

    def expected_specs(self) -> list[Any]:
        return list(self.match.values())


AnswerOp = Literal["equals", "contains", "regex", "one_of"]


class AnswerCheck(CheckBase):
    """The agent's final answer, normalised (case, spacing, punctuation, date formats)."""

    kind: Literal["answer"] = "answer"
    op: AnswerOp = "contains"
    expected: ValueSpec | list[ValueSpec]

    @model_validator(mode="after")
    def _expected_fits_op(self):
        if (self.op == "one_of") != isinstance(self.expected, list):
            raise ValueError("`expected` is a list for op one_of, and only for it")
        if self.op == "regex":
            require_pattern(self.expected)
        return self

    def expected_specs(self) -> list[Any]:
        return self.expected if isinstance(self.expected, list) else [self.expected]


class RubricCheck(CheckBase):
    """A judge reads text the episode produced (selected from a snapshot, or the answer)
    against a rubric. Without a judge it is reported unjudged: not passed, not failed."""

    kind: Literal["rubric"] = "rubric"
    rubric: str = Field(min_length=10)
    source: AppQuery | None = None
    from_answer: bool = False
    deterministic: ClassVar[bool] = False

    @model_validator(mode="after")
    def _one_source(self):
        if (self.source is None) == (not self.from_answer):
            raise ValueError("a rubric reads either a `source` query or the answer (`from_answer: true`)")
        return self

    def app_queries(self) -> list[AppQuery]:
        return [self.source] if self.source is not None else []
