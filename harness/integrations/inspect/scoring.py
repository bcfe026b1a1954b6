"""The scorer: our verifiers over the episode's record, as Inspect scores; and the judge
that asks Inspect's grader model.

Each sample's score value is `{"outcome", "success", "subtask_pass_rate"}` (success 1 only
for an end-to-end pass; metrics: the mean of each number, with its standard error for
success); its metadata holds the full `TaskResult` (every check and guard with its result)
and the record, gzip'd JSON in base64, so a run folder can be rebuilt from the log
(importer.py). The scoring itself runs in a thread: rubric checks call a judge, which may
be Inspect's model, asked back on the event loop.

`-T judge=inspect` makes the grader role's model (`--model-role grader=PROVIDER/MODEL`;
without it, the eval's model) a judge: the same fenced prompt, votes and verdict cache as
our provider judges (verifiers.judge), keyed by `inspect:<model>`.
"""
from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass

import anyio
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox

from admindesk.harness.integrations.inspect.sandbox import AdminDeskSandbox
from admindesk.verifiers.judge import Judge, JudgeError
from admindesk.verifiers.judge.backends import Completion
from admindesk.verifiers.judge.cache import VerdictCache
from admindesk.verifiers.judge.jury import ModelJudge
from admindesk.verifiers.judge.spec import JudgeSettings, default_cache_dir
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import TaskResult, score_task

INSPECT_JUDGE = "inspect"
RECORD_KEY = "admindesk_record"
RESULT_KEY = "admindesk_task_result"
USAGE_KEY = "admindesk_usage"


@dataclass(frozen=True)
class InspectJudgeSpec:
    """Names an Inspect model as a judge (the fields ModelJudge and the cache key read)."""

    model: str
    provider: str = INSPECT_JUDGE
    base_url: str | None = None

    @property
    def label(self) -> str:
        return f"{INSPECT_JUDGE}:{self.model}"


class InspectModelBackend:
    """A judge backend whose calls go to an Inspect model on the eval's event loop; it is
    called from the scoring thread (`anyio.from_thread`)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.spec = InspectJudgeSpec(model=str(model))
        self.endpoint = model.api.base_url or str(model)

    def complete(self, system: str, user: str) -> Completion:
        return anyio.from_thread.run(self._complete, system, user)

    async def _complete(self, system: str, user: str) -> Completion:
        try:
            output = await self.model.generate([ChatMessageSystem(content=system), ChatMessageUser(content=user)],
                                               config=GenerateConfig(temperature=0))
        except Exception as exc:  # whatever the provider raised once Inspect's retries were spent
            raise JudgeError(f"judge {self.spec.label}: {type(exc).__name__}: {exc}") from exc
        if output.error or not output.completion.strip():
            raise JudgeError(f"judge {self.spec.label}: no answer ({output.error or output.stop_reason})")
        return Completion(text=output.completion, model=output.model or str(self.model))


def inspect_judge(votes: int = 3) -> Judge:
    """The grader role's model (the eval's model when no grader is given) as a judge."""
    settings = JudgeSettings(votes=votes)
    return ModelJudge(InspectModelBackend(get_model(role="grader")), votes=settings.votes,
                      cache=VerdictCache(default_cache_dir()))


def encode_record(record: EpisodeRecord) -> str:
    """The record as base64 of gzip'd JSON (a log field, about a tenth of the JSON's size)."""
    return base64.b64encode(gzip.compress(record.model_dump_json().encode("utf-8"), mtime=0)).decode("ascii")


def decode_record(text: str) -> EpisodeRecord:
    """The record `encode_record` wrote (ValueError when `text` is not one)."""
    try:
        data = json.loads(gzip.decompress(base64.b64decode(text, validate=True)))
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"not an encoded episode record ({exc})") from exc
    return EpisodeRecord.model_validate(data)


def result_score(result: TaskResult, record: EpisodeRecord, usage: dict) -> Score:
    """Our result as an Inspect score (see the module docstring)."""
    failing = f", first failing subtask {result.first_failing_subtask}" if result.first_failing_subtask else ""
    return Score(value={"outcome": result.outcome, "success": 1.0 if result.outcome == "pass" else 0.0,
                        "subtask_pass_rate": result.subtask_pass_rate},
                 answer=record.answer,
                 explanation=f"{result.outcome}: {result.n_checks_passed} of {result.n_checks} checks passed{failing}",
                 metadata={RESULT_KEY: result.model_dump(mode="json"), USAGE_KEY: usage,
                           RECORD_KEY: encode_record(record)})


@scorer(metrics={"success": [mean(), stderr()], "subtask_pass_rate": [mean()]})
def admindesk_scorer(tasks_dir: str | None = None, max_steps: int | None = None, judge: str | None = None,
                     judge_votes: int = 3) -> Scorer:
    """Score the sample's episode with its task's checks and guards (rubrics: `judge`)."""
    from admindesk.harness.integrations.inspect.task import task_files
    from admindesk.verifiers.judge import load_judge

    provider_judge = load_judge(judge, JudgeSettings(votes=judge_votes, cache_dir=default_cache_dir())) if judge not in (None, INSPECT_JUDGE) else None

    async def score(state: TaskState, target: Target) -> Score:
        episode = sandbox().as_type(AdminDeskSandbox).episode
        if episode is None:
            raise RuntimeError("the episode never started: nothing to score")
        record = await episode.record()
        chosen = inspect_judge(judge_votes) if judge == INSPECT_JUDGE else provider_judge
        result = await anyio.to_thread.run_sync(score_task, task_files(tasks_dir, max_steps)[str(state.sample_id)],
                                              record, chosen)
        return result_score(result, record, episode.usage.model_dump())

    return score
