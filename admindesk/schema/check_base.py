"""What every check kind declares: its model base, the query it names, and its subject.

A check kind is a pydantic model (`kind` is its discriminator) that says what to look at
and what to expect; how it is decided lives with the verifiers
(admindesk.verifiers.checks), which know the episode.
"""
from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from admindesk.schema.app_names import AppName
from admindesk.schema.values import ValueSpec


class AppQuery(BaseModel):
    """A JMESPath query over one app's snapshot; `{{name}}` in it takes `params[name]`."""

    model_config = ConfigDict(extra="forbid")

    app: AppName
    query: str = Field(min_length=1)
    params: dict[str, ValueSpec] = Field(default_factory=dict)

    def label(self) -> str:
        return f"{self.app}: {self.query}"


class CheckBase(BaseModel):
    """Fields every check has: an optional id (default: subtask id + position) and a description."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    description: str = ""
    # Rubric checks need a judge; every other kind is decided by the record alone.
    deterministic: ClassVar[bool] = True

    def app_queries(self) -> list[AppQuery]:
        """The queries this check runs (static validation compiles them against the schema)."""
        return []

    def expected_specs(self) -> list[Any]:
        """The expected values it compares with (static validation looks for retyped case values)."""
        return []

    def subject(self) -> str:
        """What the check is about, in the words of its description or its first query."""
        if self.description:
            return self.description
        queries = self.app_queries()
        return queries[0].label() if queries else self.__class__.__name__


def require_pattern(expected: Any) -> None:
    """An op regex's `expected` must be a pattern that compiles (raised as a validation error)."""
    if not isinstance(expected, str):
        raise ValueError("op regex needs `expected` as a pattern text")
    try:
        re.compile(expected)
    except re.error as exc:
        raise ValueError(f"`expected` is not a valid pattern: {exc}") from exc


def listed(value: Any) -> list:
    """A value as a list: itself if a list, nothing for None, else a list of one."""
    return value if isinstance(value, list) else [] if value is None else [value]
