"""A leaderboard submission and its validation.

A submission is a run folder (as `admindesk run` writes it) with a `submission.json`
beside its run.json: who made it and how (`SubmissionMeta`). Before it is listed:

- the folder is plain folders and regular files, and run.json's episode folders are inside
  it (submission_files; every JSON file is read strictly and within a size limit, see
  verifiers.record_files); each trajectory.jsonl fits its shape (report.run_files);
- submission.json fits the schema, and run.json names the same agent and observation mode;
- the run's split (run.json `split`; none: the public suite) is one the maintainers hold,
  with the same task files (see splits); the run covers every task of that split (the
  public suite's or the maintainers' copy of the held-out split's task files), and every
  task x every trial has exactly one episode, each with its record and scores;
- the run was made with a compatible AdminDesk (same major.minor version);
- the run is a model's: no scripted agent, and every step's model call is on record
  (model_calls: the provider's response id, model version and token counts);
- every score is re-computed from the stored record (verifiers.scoring) and matches the
  claimed scores.json and the run.json line; run.json's headline metrics match the episodes.

Scores are functions of the stored final state, so no re-run is needed. The one part that
is not a function of the record is a rubric verdict (an LLM judge read the text). Without a
judge those are replayed from the submission's own scores.json, and everything that depends
on them (subtask outcomes, the task's result) is still re-computed; with the maintainers'
judge they are judged again (see rejudge): overturned verdicts that change a result reject
the submission, and the entry is listed with the re-judged results.

Each problem names the file (relative to the submission), the field where there is one,
and why; a submission with a problem is refused as a whole.
"""
from __future__ import annotations

import datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from admindesk.harness.leaderboard.model_calls import model_call_problems, scripted_agent_problem
from admindesk.harness.leaderboard.rejudge import RubricReview, review_rubrics
from admindesk.harness.leaderboard.replay import replay_submission
from admindesk.harness.leaderboard.splits import SplitCatalog
from admindesk.harness.leaderboard.submission_files import tree_problems
from admindesk.harness.report.run_files import (
    RunFolderError,
    RunLine,
    agent_notes,
    describe,
    episode_folder,
    episode_lines,
    trajectory_entries,
)
from admindesk.harness.running import metrics as run_metrics
from admindesk.harness.task_tools.folders import PUBLIC_SPLIT_RECORD, recorded_split
from admindesk.schema.task_model import Task, TaskFileError, load_tasks
from admindesk.schema.values import CaseReferenceError
from admindesk.verifiers.episode import QueryError
from admindesk.verifiers.judge import Judge, JudgeError, Judgement, RubricRequest
from admindesk.verifiers.judge.usage import JudgeUsage
from admindesk.verifiers.record_files import RECORD_FILE, RecordFileError, read_json, record_digest, record_file
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import TaskResult, score_task

SUBMISSION_FILE = "submission.json"
# Floats in JSON survive a round trip, but sums may differ in the last bits.
TOLERANCE = 1e-6
# At most this share of a run's episodes may end as infra errors (see _check_infra_errors).
MAX_INFRA_ERROR_SHARE = 0.02
# run_metrics rounds its figures to four places.
METRIC_TOLERANCE = 1e-4


class SubmissionMeta(BaseModel):
    """submission.json: the model, the agent, the observation mode, when, and a contact."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, max_length=200)
    agent: str = Field(min_length=1, max_length=100)
    observation: Literal["screenshot", "axtree", "both"]
    date: datetime.date
    contact: str = Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", description="an e-mail address")
    description: str = Field(default="", max_length=2_000)


class Verdict(BaseModel):
    """Whether a submission may be listed, and every reason it may not."""

    path: Path
    meta: SubmissionMeta | None = None
    problems: list[str] = Field(default_factory=list)
    # The split the run says it ran (run.json `split`): name, seed, seed_sha256, tasks_sha256.
    split: dict[str, Any] = Field(default_factory=lambda: dict(PUBLIC_SPLIT_RECORD))
    n_episodes: int = 0
    # The maintainers' judge that re-judged the rubric checks; None when they were replayed
    # from the submission (the listed rubric verdicts are then the submitter's own).
    judge: str | None = None
    # Rubric checks the judge overturned or could not answer (rejudge.RubricReview).
    reviews: list[RubricReview] = Field(default_factory=list)
    # Episode folder -> its re-judged result (only when re-judged): what the entry lists.
    rejudged: dict[str, TaskResult] = Field(default_factory=dict, repr=False)
    # What the judge did over the whole submission: items, votes, cache hits, errors.
    judge_usage: JudgeUsage | None = None
    # Episode folder -> the sha256 of its record's content (no two submissions may share one).
    record_digests: dict[str, str] = Field(default_factory=dict, repr=False)
    # Episodes replayed in a fresh Env (validate_submission with `replay_workers`), all agreeing.
    replayed: int = 0

    @property
    def accepted(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    @property
    def disagreements(self) -> list[RubricReview]:
        """The claimed rubric verdicts the maintainers' judge overturned."""
        return [review for review in self.reviews if review.disagrees]

    @property
    def judge_errors(self) -> list[RubricReview]:
        """The rubric checks the maintainers' judge gave no verdict on (left unjudged)."""
        return [review for review in self.reviews if review.judge_error is not None]

    @property
    def name(self) -> str:
        """The submission folder's name."""
        return self.path.name


class ReplayJudge:
    """Answers each rubric check with the verdict the submission's scores.json recorded."""

    name = "replayed from the submission"

    def __init__(self, claimed: TaskResult) -> None:
        self.verdicts = {item.id: item.result for subtask in claimed.subtasks for item in subtask.checks}

    def judge(self, request: RubricRequest) -> Judgement:
        claimed = self.verdicts.get(request.check_id)
        if claimed is None or claimed.state in ("unjudged", "error"):
            # No verdict was claimed: the check re-scores as not judged (or a judge error).
            raise JudgeError(claimed.error if claimed is not None and claimed.error else "no verdict claimed")
        return Judgement(passed=claimed.passed, score=claimed.score, judge=str(claimed.evidence.get("judge", "")),
                         rationale=claimed.explanation)


def compatible(claimed: str | None, current: str) -> bool:
    """Same major.minor version: scoring may change between minor versions, not patches."""
    return claimed is not None and claimed.split(".")[:2] == current.split(".")[:2]


def _load_json(path: Path, problems: list[str]) -> Any:
    try:
        return read_json(path)
    except FileNotFoundError:
        problems.append(f"{path.name} is missing")
    except RecordFileError as exc:
        problems.append(f"{path.name}: {exc.reason}")
    except OSError as exc:
        problems.append(f"{path.name} cannot be read ({exc.strerror})")
    return None


def _relative(error: RunFolderError, root: Path) -> str:
    """The error's file named from the submission folder."""
    return f"{str(error.where).removeprefix(f'{root}/')}: {error.reason}"


def _compare(episode: str, claimed: TaskResult, rescored: TaskResult) -> list[str]:
    """Where the claimed score differs from the re-computed one (each difference named)."""
    problems = []
    for field in ("outcome", "first_failing_subtask", "n_checks", "n_checks_passed"):
        if getattr(claimed, field) != getattr(rescored, field):
            problems.append(f"{episode}: {field} claimed {getattr(claimed, field)!r}, "
                            f"re-scored {getattr(rescored, field)!r}")
    if abs(claimed.subtask_pass_rate - rescored.subtask_pass_rate) > TOLERANCE:
        problems.append(f"{episode}: subtask_pass_rate claimed {claimed.subtask_pass_rate}, "
                        f"re-scored {rescored.subtask_pass_rate}")
    claimed_items = {(s.id, c.id): c.result for s in claimed.subtasks for c in s.checks}
    claimed_items.update({("guard", g.id): g.result for g in claimed.guards})
    rescored_items = {(s.id, c.id): c.result for s in rescored.subtasks for c in s.checks}
    rescored_items.update({("guard", g.id): g.result for g in rescored.guards})
    if set(claimed_items) != set(rescored_items):
        problems.append(f"{episode}: the checks listed are not the task's checks")
    for key in sorted(set(claimed_items) & set(rescored_items)):
        old, new = claimed_items[key], rescored_items[key]
        if old.state != new.state or abs(old.score - new.score) > TOLERANCE:
            problems.append(f"{episode}: check {'/'.join(key)} claimed {old.state} ({old.score}), "
                            f"re-scored {new.state} ({new.score})")
    return problems


def _check_episode(folder: Path, line: RunLine, task: Task, verdict: Verdict,
                   judge: Judge | None) -> list[str]:
    """The problems with one episode; with `judge`, its re-judged result and rubric reviews
    go into `verdict`, and its record's digest in any case."""
    episode = folder.name
    try:
        trajectory_entries(folder)
    except RunFolderError as exc:
        return [_relative(exc, verdict.path)]
    record_path = record_file(folder)
    if line.result in ("error", "infra_error", "timeout") and record_path is None:
        return []  # an episode that broke or was stopped has no record; it never counts as passed
    problems: list[str] = []
    record_data = _load_json(record_path or folder / RECORD_FILE, problems)
    claimed_data = _load_json(folder / "scores.json", problems)
    if problems:
        return [f"{episode}: {p}" for p in problems]
    try:
        record = EpisodeRecord.model_validate(record_data)
        claimed = TaskResult.model_validate(claimed_data)
    except ValidationError as exc:
        return [f"{episode}: {record_path.name} or scores.json does not fit its schema ({describe(exc)})"]
    if record.task_id != task.id or claimed.task_id != task.id:
        return [f"{episode}: the record or scores are of another task ({record.task_id}, {claimed.task_id})"]
    try:
        agent_notes(record.trajectory, record_path)
    except RunFolderError as exc:
        return [_relative(exc, verdict.path)]
    verdict.record_digests[episode] = record_digest(record)
    calls = model_call_problems(episode, record.trajectory)
    if calls:
        return calls
    # Scored without a judge, a submission's rubrics are unjudged; with one, replay its verdicts.
    try:
        rescored = score_task(task, record, ReplayJudge(claimed) if claimed.judge is not None else None)
        rejudged = score_task(task, record, judge) if judge is not None else None
    except (QueryError, CaseReferenceError) as exc:  # the task file is broken, not the submission
        return [f"{episode}: task {task.id} cannot be scored ({exc})"]
    problems = _compare(episode, claimed, rescored)
    for field in ("result", "first_failing_subtask"):
        value = rescored.outcome if field == "result" else rescored.first_failing_subtask
        if getattr(line, field) != value:
            problems.append(f"{episode}: run.json {field} {getattr(line, field)!r}, re-scored {value!r}")
    if line.subtask_pass_rate is None or abs(line.subtask_pass_rate - rescored.subtask_pass_rate) > TOLERANCE:
        problems.append(f"{episode}: run.json subtask_pass_rate {line.subtask_pass_rate!r}, "
                        f"re-scored {rescored.subtask_pass_rate}")
    if rejudged is not None:
        reviews = review_rubrics(episode, claimed, rejudged)
        verdict.reviews.extend(reviews)
        verdict.rejudged[episode] = rejudged
        _add_usage(verdict, rejudged.judge)
        overturned = [review.check for review in reviews if review.changes_result]
        if overturned:
            problems.append(f"{episode}: result claimed {claimed.outcome!r}, re-judged {rejudged.outcome!r} "
                            f"(the judge overturned {', '.join(overturned)})")
    return problems


def _add_usage(verdict: Verdict, usage: JudgeUsage | None) -> None:
    """Add one episode's judge usage to the submission's total."""
    if usage is None:
        return
    total = verdict.judge_usage or JudgeUsage(spec=usage.spec)
    verdict.judge_usage = total.model_copy(update={
        "models": sorted(set(total.models) | set(usage.models)), "items": total.items + usage.items,
        "votes": total.votes + usage.votes, "cache_hits": total.cache_hits + usage.cache_hits,
        "errors": total.errors + usage.errors})


def _check_metrics(run: dict[str, Any], episodes: list[dict[str, Any]]) -> list[str]:
    """run.json's headline figures against the ones its episode lines give (run_metrics,
    which leaves infra errors out of every score); the lines are RunLine-checked."""
    summary = run_metrics.summarise(episodes)
    expected = {"e2e_success": summary["e2e_success"]["value"],
                "subtask_pass_rate": summary["subtask_pass_rate"]["value"], "n_episodes": summary["n_episodes"]}
    metrics = run.get("metrics") if isinstance(run.get("metrics"), dict) else {}
    return [f"run.json metrics.{name} is {metrics.get(name)!r}, the episodes give {value:.4f}"
            for name, value in expected.items()
            if not isinstance(metrics.get(name), (int, float)) or abs(metrics[name] - value) > METRIC_TOLERANCE]


def validate_submission(path: Path, tasks_dir: Path, judge: Judge | None = None,
                        splits: SplitCatalog | None = None, replay_workers: int | None = None) -> Verdict:
    """Check the submission at `path` against the public task files in `tasks_dir`, or for a
    run of a held-out split against the maintainers' copy of it in `splits` (see the module
    docstring); every problem found is in the verdict, each naming its episode. With
    `judge` (the maintainers'), rubric checks are re-judged rather than replayed. With
    `replay_workers`, a submission that passes every other check has each episode replayed
    (leaderboard.replay) in that many fresh Envs, and each difference is a problem."""
    verdict = Verdict(path=path, judge=judge.name if judge is not None else None)
    problems = verdict.problems
    problems.extend(tree_problems(path))
    if problems:  # nothing in it is read: a link or a pipe could stand for any file
        return verdict
    meta_data = _load_json(path / SUBMISSION_FILE, problems)
    run = _load_json(path / "run.json", problems)
    if meta_data is not None:
        try:
            verdict.meta = SubmissionMeta.model_validate(meta_data)
        except ValidationError as exc:
            problems.append(f"{SUBMISSION_FILE} does not fit the schema ({describe(exc)})")
    if not isinstance(run, dict) or not isinstance(run.get("episodes"), list):
        if run is not None:
            problems.append("run.json has no episodes list")
        return verdict
    try:
        typed_lines = episode_lines(run, path / "run.json")
        folders = [episode_folder(path, line, number) for number, line in enumerate(typed_lines)]
    except RunFolderError as exc:
        problems.append(_relative(exc, path))
        return verdict
    problems.extend(scripted_agent_problem(run.get("agent")))
    if verdict.meta is not None:
        for field in ("agent", "observation"):
            if run.get(field) != getattr(verdict.meta, field):
                problems.append(f"{SUBMISSION_FILE} says {field} {getattr(verdict.meta, field)!r}, "
                                f"run.json {run.get(field)!r}")
    current = metadata.version("admindesk")
    versions = run.get("versions") if isinstance(run.get("versions"), dict) else {}
    claimed_version = versions.get("admindesk") if isinstance(versions.get("admindesk"), str) else None
    if not compatible(claimed_version, current):
        problems.append(f"made with admindesk {claimed_version}, not compatible with {current} (same major.minor)")
    if "split" in run and not (isinstance(run["split"], dict) and isinstance(run["split"].get("name"), str)):
        problems.append("run.json split is not an object naming the split")
        return verdict
    verdict.split = recorded_split(run)
    split_dir, split_problems = (splits or SplitCatalog()).resolve(verdict.split, tasks_dir)
    if split_dir is None:
        problems.extend(split_problems)
        return verdict
    try:
        tasks = {task.id: task for task in load_tasks(split_dir)}
    except TaskFileError as exc:
        problems.append(f"the task files cannot be loaded: {exc}")
        return verdict
    problems.extend(_check_coverage(run, typed_lines, tasks))
    lines = {(line.task_id, line.trial): (line, folder) for line, folder in zip(typed_lines, folders)}
    for (task_id, _), (line, folder) in sorted(lines.items()):
        if task_id in tasks:
            problems.extend(_check_episode(folder, line, tasks[task_id], verdict, judge))
    problems.extend(_check_metrics(run, run["episodes"]))
    problems.extend(_check_infra_errors(typed_lines))
    verdict.n_episodes = len(lines)
    if replay_workers is not None and run.get("channel", "screens") != "screens":
        problems.append(f"the run worked the {run.get('channel')!r} channel: replay re-executes browser actions, so "
                        "its episodes cannot be replayed and it cannot be verified yet")
    if replay_workers is not None and not problems:
        episodes = {folder.name: (task_id, folder) for (task_id, _), (_, folder) in lines.items()}
        findings = replay_submission(run, episodes, split_dir, replay_workers)
        problems.extend(finding.describe() for finding in findings)
        verdict.replayed = 0 if findings else len(episodes)
    return verdict


def _check_infra_errors(lines: list[RunLine]) -> list[str]:
    """A run may lose at most MAX_INFRA_ERROR_SHARE of its episodes to infra errors (each
    counts as a failure on the board; more means the run itself is not to be trusted)."""
    errors = [f"{line.task_id} t{line.trial}" for line in lines if line.result == "infra_error"]
    if not lines or len(errors) <= MAX_INFRA_ERROR_SHARE * len(lines):
        return []
    return [f"{len(errors)} of {len(lines)} episodes ended as infra errors (more than "
            f"{MAX_INFRA_ERROR_SHARE:.0%}; rerun them with `admindesk run --retry-errors`): {', '.join(errors[:10])}"]


def _check_coverage(run: dict[str, Any], lines: list[RunLine], tasks: dict[str, Task]) -> list[str]:
    """Every task of the run x every trial has exactly one episode, and the tasks exist."""
    problems = []
    task_ids = run.get("tasks") if isinstance(run.get("tasks"), list) else []
    if not all(isinstance(task_id, str) for task_id in task_ids):
        return ["run.json tasks is not a list of task ids"]
    trials = run.get("trials") if isinstance(run.get("trials"), int) and run.get("trials") > 0 else 0
    if not task_ids or not trials:
        problems.append("run.json must name its tasks and a positive number of trials")
    if trials > len(lines):  # each trial has a line; and a huge count is not enumerated below
        return problems + [f"run.json says {trials} trials but lists {len(lines)} episode(s)"]
    unknown = sorted(set(task_ids) - set(tasks))
    if unknown:
        problems.append(f"unknown task(s): {', '.join(map(str, unknown))}")
    # A leaderboard entry covers the whole suite: a chosen subset would not be comparable.
    left_out = sorted(set(tasks) - set(task_ids))
    if left_out:
        problems.append(f"the run leaves out {len(left_out)} task(s) of the suite: {', '.join(left_out[:10])}"
                        + (" ..." if len(left_out) > 10 else ""))
    seen: dict[tuple[Any, Any], int] = {}
    for line in lines:
        seen[(line.task_id, line.trial)] = seen.get((line.task_id, line.trial), 0) + 1
    missing = [f"{t}-t{n}" for t in task_ids for n in range(trials) if (t, n) not in seen]
    if missing:
        problems.append(f"missing episode(s): {', '.join(missing)}")
    extra = sorted(f"{t}-t{n}" for (t, n), count in seen.items()
                   if t not in task_ids or not 0 <= n < trials)
    if extra:
        problems.append(f"episode(s) outside the run's tasks x trials: {', '.join(extra)}")
    doubled = sorted(f"{t}-t{n}" for (t, n), count in seen.items() if count > 1)
    if doubled:
        problems.append(f"episode(s) listed more than once: {', '.join(doubled)}")
    return problems
