"""Model judges with votes, and a jury of them.

A `ModelJudge` asks one model the same prompt N times (temperature 0; N votes, default
3) and takes the majority of its votes. A `Jury` asks each of its judges and takes the
majority of their verdicts, so models of different families check each other (as
MedHELM's jury does). Ties fail, at both levels: a pass needs more passes than fails.
Any error (unreachable model, malformed verdict) raises JudgeError: the check is then
`error`, never a pass.

Cached votes are keyed by provider, endpoint, model name and prompt (cache.py). Once a
judge has heard from its endpoint which model version it serves, it reuses only cached
votes of that version; until then (a re-score answered wholly from the cache) the votes
keep the versions that cast them, which the usage record reports.
"""
from __future__ import annotations

from admindesk.verifiers.judge import JudgeError, Judgement, RubricRequest, Vote
from admindesk.verifiers.judge.backends import ChatBackend, make_backend
from admindesk.verifiers.judge.cache import CachedVote, CacheKey, VerdictCache
from admindesk.verifiers.judge.prompt import build_prompt, parse_verdict, prompt_hash
from admindesk.verifiers.judge.spec import JudgeSettings, parse_specs


def majority_passes(verdicts: list[bool]) -> bool:
    """True when more verdicts pass than fail (a tie, or nothing, fails)."""
    passes = sum(verdicts)
    return passes > len(verdicts) - passes


class ModelJudge:
    """One model, asked `votes` times per rubric item, with cached votes reused."""

    def __init__(self, backend: ChatBackend, votes: int = 3, cache: VerdictCache | None = None):
        self.backend = backend
        self.votes = votes
        self.cache = cache
        self.name = backend.spec.label
        # The model version the endpoint last said answered (None before the first call).
        self.served_model: str | None = None

    def _cache_key(self, prompt_sha256: str) -> CacheKey:
        spec = self.backend.spec
        return CacheKey(provider=spec.provider, endpoint=self.backend.endpoint, model=spec.model,
                        prompt_sha256=prompt_sha256)

    def _current(self, stored: list[CachedVote]) -> list[CachedVote]:
        return [vote for vote in stored if self.served_model in (None, vote.model)]

    def collect_votes(self, request: RubricRequest) -> list[Vote]:
        """Its `votes` votes on `request`: cached ones first, then fresh calls (each stored at once)."""
        system, user = build_prompt(request)
        key = self._cache_key(prompt_hash(system, user))
        stored = self._current(self.cache.votes(key)) if self.cache else []
        votes = [Vote(judge=self.name, model=vote.model, verdict=vote.verdict, reason=vote.reason, cached=True)
                 for vote in stored[:self.votes]]
        while len(votes) < self.votes:
            completion = self.backend.complete(system, user)
            try:
                verdict = parse_verdict(completion.text)
            except JudgeError as exc:
                raise type(exc)(f"judge {self.name} (model {completion.model}): {exc}") from exc
            if completion.model != self.served_model:
                # Another model version behind the endpoint: the old version's votes no longer count.
                self.served_model = completion.model
                votes = [vote for vote in votes if vote.model == completion.model]
                stored = self._current(stored)
            votes.append(Vote(judge=self.name, model=completion.model, verdict=verdict.verdict,
                              reason=verdict.reason.strip()))
            if self.cache is not None:
                # Stored per vote, so a failure on a later vote does not waste the paid ones.
                stored = stored + [CachedVote(model=completion.model, verdict=verdict.verdict,
                                              reason=verdict.reason.strip())]
                self.cache.store(key, stored)
        return votes

    def judge(self, request: RubricRequest) -> Judgement:
        """The majority of this judge's votes."""
        return Jury([self]).judge(request)


class Jury:
    """Several model judges; the verdict is the majority of their (per-judge majority) verdicts."""

    def __init__(self, judges: list[ModelJudge]):
        if not judges:
            raise ValueError("a jury needs at least one judge")
        self.judges = judges
        self.name = ",".join(judge.name for judge in judges)

    def judge(self, request: RubricRequest) -> Judgement:
        """Every judge's votes, each judge's majority, and the jury's majority over those."""
        all_votes: list[Vote] = []
        summaries = []
        verdicts = []
        for judge in self.judges:
            votes = judge.collect_votes(request)
            passed = majority_passes([vote.verdict == "pass" for vote in votes])
            verdicts.append(passed)
            all_votes += votes
            agreeing = next(vote for vote in votes if (vote.verdict == "pass") == passed)
            passes = sum(vote.verdict == "pass" for vote in votes)
            summaries.append(f"{judge.name} {passes}/{len(votes)} pass: {agreeing.reason}")
        passed = majority_passes(verdicts)
        head = (f"{sum(verdicts)} of {len(verdicts)} judges pass; " if len(self.judges) > 1 else "")
        return Judgement(passed=passed, score=1.0 if passed else 0.0, rationale=head + "; ".join(summaries),
                         judge=self.name, votes=all_votes)


def build_jury(spec: str, settings: JudgeSettings | None = None) -> Jury:
    """The jury a provider spec names (one judge or comma-separated several).

    Every backend is built before any call, so a bad spec or a missing key is a
    JudgeSpecError up front, not a failure halfway through scoring.
    """
    settings = settings or JudgeSettings()
    cache = VerdictCache(settings.cache_dir) if settings.cache_dir is not None else None
    judges = [ModelJudge(make_backend(one, settings), votes=settings.votes, cache=cache)
              for one in parse_specs(spec)]
    return Jury(judges)
