"""What every check kind shares: its model base, the query it names, and result wording.

A check kind is a pydantic model (`kind` is its discriminator) with `evaluate(view)`, a
pure function of the episode. `run(view)` adds what every kind does alike: a missing
snapshot is a failed check that says which app was missing, not a crash.
"""
from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from admindesk.verifiers.episode import EpisodeView, SnapshotMissing
from admindesk.verifiers.records import CheckResult
from admindesk.verifiers.app_names import AppName
from admindesk.verifiers.values import ValueSpec, shown


class AppQuery(BaseModel):
    """A JMESPath query over one app's snapshot; `{{name}}` in it takes `params[name]`."""

    model_config = ConfigDict(extra="forbid")

    app: AppName
    query: str = Field(min_length=1)
    params: dict[str, ValueSpec] = Field(default_factory=dict)

    def run(self, view: EpisodeView, *, initial: bool = False) -> Any:
        """The query's result over the final (or initial) snapshot."""
        return view.query(self.app, self.query, self.params, initial=initial)

    def label(self) -> str:
        return f"{self.app}: {self.query}"


class CheckBase(BaseModel):
    """Fields every check has: an optional id (default: subtask id + position) and a description."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    description: str = ""
    # Rubric checks need a judge; every other kind is decided by the record alone.
    deterministic: ClassVar[bool] = True

    def evaluate(self, view: EpisodeView) -> CheckResult:
        raise NotImplementedError

    def run(self, view: EpisodeView) -> CheckResult:
        """The check's result; a snapshot the record lacks fails it with the reason."""
        try:
            return self.evaluate(view)
        except SnapshotMissing as exc:
            return failed(f"{self.subject()}: {exc}", missing=str(exc))

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


def passed(explanation: str, **evidence: Any) -> CheckResult:
    """A passing result (score 1)."""
    return CheckResult(passed=True, score=1.0, explanation=explanation, evidence=evidence)


def failed(explanation: str, **evidence: Any) -> CheckResult:
    """A failing result (score 0)."""
    return CheckResult(passed=False, score=0.0, explanation=explanation, evidence=evidence)


def verdict(ok: bool, subject: str, wanted: str, actual: Any, **evidence: Any) -> CheckResult:
    """`subject: expected <wanted>, found <actual>` as a passing or failing result."""
    text = f"{subject}: expected {wanted}, found {shown(actual)}"
    evidence.setdefault("actual", actual)
    return passed(text, **evidence) if ok else failed(text, **evidence)
