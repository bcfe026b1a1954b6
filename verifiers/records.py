"""What an episode leaves behind for scoring, and what one check says about it.

Verifiers are pure functions of an `EpisodeRecord`; this module must never import the
harness, so a stored record can be re-scored offline without a browser or the apps.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field


class FileDigest(BaseModel):
    """A file the agent downloaded (with its size) or uploaded, identified by content hash."""

    name: str
    sha256: str
    size: int | None = None


class EpisodeRecord(BaseModel):
    """Everything the verifiers may look at after one episode."""

    task_id: str
    initial_snapshots: dict[str, dict[str, Any]] = Field(default_factory=dict)
    final_snapshots: dict[str, dict[str, Any]] = Field(default_factory=dict)
    downloads: list[FileDigest] = Field(default_factory=list)
    uploads: list[FileDigest] = Field(default_factory=list)
    answer: str | None = None
    trajectory: list[dict[str, Any]] = Field(default_factory=list)
    # App name -> why its final snapshot is missing (it was down or hung at the end): the
    # record is partial, and checks on that app's state cannot pass.
    snapshot_errors: dict[str, str] = Field(default_factory=dict)


class CheckResult(BaseModel):
    """The outcome of one check: pass/fail, a score in [0, 1], why, and whether it was judged."""

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    explanation: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)
    # False only for a rubric check no judge has read: it is then not passed, but not
    # the agent's failure either (the task's result is `unjudged`, not `fail`).
    judged: bool = True
    # Set when a judge was asked but gave no verdict (unreachable, malformed answer): the
    # check is not passed, and the task's result is `error` unless something else failed.
    error: str | None = None

    @computed_field
    @property
    def state(self) -> Literal["pass", "fail", "unjudged", "error"]:
        """One word for the result: pass, fail, unjudged (no judge) or error (the judge failed)."""
        if self.error is not None:
            return "error"
        if not self.judged:
            return "unjudged"
        return "pass" if self.passed else "fail"
