"""What a judge did while one task was scored: its spec, the model versions that answered,
votes cast and how many came from the cache. The scorer wraps its judge in a
`RecordingJudge`, which also gives every request the task's context."""
from __future__ import annotations

from pydantic import BaseModel

from admindesk.verifiers.judge import Judge, JudgeError, Judgement, RubricRequest


class JudgeUsage(BaseModel):
    """The judge's record for one scored task (written into scores.json)."""

    spec: str
    # Model versions as the providers reported them (e.g. gpt-5.4-2026-03-01).
    models: list[str] = []
    items: int = 0
    votes: int = 0
    cache_hits: int = 0
    errors: int = 0


class RecordingJudge:
    """Passes requests to `inner` (adding `context` where a request has none) and keeps a usage record."""

    def __init__(self, inner: Judge, context: str = ""):
        self.inner = inner
        self.name = inner.name
        self.context = context
        self.usage = JudgeUsage(spec=inner.name)

    def judge(self, request: RubricRequest) -> Judgement:
        if not request.context and self.context:
            request = request.model_copy(update={"context": self.context})
        self.usage.items += 1
        try:
            judgement = self.inner.judge(request)
        except JudgeError:
            self.usage.errors += 1
            raise
        self.usage.votes += len(judgement.votes)
        self.usage.cache_hits += sum(vote.cached for vote in judgement.votes)
        self.usage.models = sorted(set(self.usage.models) | {vote.model for vote in judgement.votes})
        return judgement
