"""The judge interface that `rubric` checks call.

A judge reads a rubric (what good text must do) and the text the episode produced
(a letter, a note, the final answer) and returns a `Judgement`. Model-backed judges
(OpenAI-compatible, Anthropic, with votes and a cache) implement this protocol; the
scorer never needs to know which one it holds. Without a judge, rubric checks are
reported as unjudged, never as passed.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field


class RubricRequest(BaseModel):
    """What a judge is asked: the task, the rubric, and the text under judgement."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    check_id: str
    rubric: str
    text: str
    context: str = ""


class Judgement(BaseModel):
    """A judge's verdict on one rubric: pass/fail, a score in [0, 1], and its reasons."""

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    rationale: str = ""
    judge: str = ""


@runtime_checkable
class Judge(Protocol):
    """Anything that can judge a rubric request."""

    name: str

    def judge(self, request: RubricRequest) -> Judgement:
        """The verdict on one request (deterministic for the same request where possible)."""
        ...


class JudgeSpecError(ValueError):
    """A `--judge` spec that does not lead to a judge."""


def load_judge(spec: str) -> Judge:
    """The judge named by `module:attribute` (a Judge, or a callable returning one)."""
    import importlib

    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise JudgeSpecError(f"judge spec {spec!r} is not module:attribute (e.g. mypkg.judges:make_judge)")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise JudgeSpecError(f"judge spec {spec!r}: {exc}") from exc
    judge = target() if callable(target) and not isinstance(target, Judge) else target
    if not isinstance(judge, Judge):
        raise JudgeSpecError(f"judge spec {spec!r} gives a {type(judge).__name__}, which has no "
                             "`name` and `judge(request)`")
    return judge
