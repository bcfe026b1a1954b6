"""The judge interface that `rubric` checks call.

A judge reads a rubric (what good text must do) and the text the episode produced
(a letter, a note, the final answer) and returns a `Judgement`. Model-backed judges
(OpenAI-compatible, Anthropic, with votes and a cache) implement this protocol; the
scorer never needs to know which one it holds. Without a judge, rubric checks are
reported as unjudged, never as passed.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from admindesk.verifiers.judge.spec import JudgeSettings


class RubricRequest(BaseModel):
    """What a judge is asked: the task, the rubric, the text under judgement, and the facts
    of the task's case to check the text against (name -> JSON-able value; see facts.py)."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    check_id: str
    rubric: str
    text: str
    context: str = ""
    facts: dict[str, Any] = Field(default_factory=dict)

    @field_validator("facts")
    @classmethod
    def _facts_are_json(cls, facts: dict[str, Any]) -> dict[str, Any]:
        # The facts go into the prompt (and so the cache key) as JSON.
        for name, value in facts.items():
            try:
                json.dumps(value)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"fact {name!r} is not JSON-able ({type(value).__name__}: {exc})") from exc
        return facts


class Vote(BaseModel):
    """One model call's verdict: which judge asked, the model version that answered, and why."""

    judge: str
    model: str
    verdict: Literal["pass", "fail"]
    reason: str
    # Read from the verdict cache: this vote cost nothing this time.
    cached: bool = False


class Judgement(BaseModel):
    """A judge's verdict on one rubric: pass/fail, a score in [0, 1], its reasons and votes."""

    passed: bool
    score: float = Field(ge=0.0, le=1.0)
    rationale: str = ""
    judge: str = ""
    votes: list[Vote] = Field(default_factory=list)


@runtime_checkable
class Judge(Protocol):
    """Anything that can judge a rubric request."""

    name: str

    def judge(self, request: RubricRequest) -> Judgement:
        """The verdict on one request (deterministic for the same request where possible)."""
        ...


class JudgeSpecError(ValueError):
    """A `--judge` spec that does not lead to a judge (bad syntax, a missing API key...)."""


class JudgeError(RuntimeError):
    """A judge could not give a verdict (unreachable, timed out, malformed output).

    Rubric checks report it as `error`, never as a pass or as the agent's failure.
    """


def load_judge(spec: str, settings: "JudgeSettings | None" = None) -> Judge:
    """The judge a `--judge` spec names.

    Provider specs (`openai:MODEL`, `openai-compatible:URL#MODEL`, `anthropic:MODEL`,
    comma-separated for a jury) give a model jury with votes and a cache (`settings`);
    anything else is `module:attribute` (a Judge, or a callable returning one).
    """
    import importlib

    from admindesk.verifiers.judge.spec import PROVIDERS, is_provider_spec

    if is_provider_spec(spec):
        from admindesk.verifiers.judge.jury import build_jury

        return build_jury(spec, settings)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        providers = ", ".join(f"{name}:..." for name in PROVIDERS)
        raise JudgeSpecError(f"judge spec {spec!r} is not a provider spec ({providers}) and "
                             "not module:attribute (e.g. mypkg.judges:make_judge)")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise JudgeSpecError(f"judge spec {spec!r}: {exc}") from exc
    judge = target() if callable(target) and not isinstance(target, Judge) else target
    if not isinstance(judge, Judge):
        raise JudgeSpecError(f"judge spec {spec!r} gives a {type(judge).__name__}, which has no "
                             "`name` and `judge(request)`")
    return judge
