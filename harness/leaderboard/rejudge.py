"""Re-judging a submission's rubric checks with the maintainers' judge.

Deterministic checks are functions of the stored record, so validation re-computes them;
a rubric verdict is not (an LLM judge read the text), so without a judge the leaderboard
can only replay the submitter's own verdicts. With one (`--judge SPEC`), every rubric
check is judged again and:

- each check whose claimed verdict (pass or fail) differs from the judged one is a
  `RubricReview` with `disagrees` set; when the episode's result changes with it, the
  submission is rejected (the claimed result was not earned, or was under-claimed);
- a check the judge could not answer (unreachable, malformed output) is a review with
  `judge_error` set: the check stays without a verdict (never passed), and it is the
  maintainers' problem, not grounds to reject;
- the entry is listed with the re-judged results: `rejudged_run` writes a copy of the run
  folder (files linked, not copied) whose scores.json and run.json lines are the re-judged
  ones, for the site's figures and the entry's report.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from admindesk.verifiers.record_files import read_json
from admindesk.verifiers.scoring import TaskResult

ClaimedState = Literal["pass", "fail", "unjudged", "error"]


class RubricReview(BaseModel):
    """One rubric check where the maintainers' judge did not confirm the claimed verdict."""

    episode: str
    check: str  # "<subtask>/<check id>"
    claimed: ClaimedState
    judged: ClaimedState
    # Set when the judge gave no verdict: the check then counts as unjudged.
    judge_error: str | None = None
    # Whether the episode's result with the judged verdicts differs from the claimed one.
    changes_result: bool = False

    @property
    def disagrees(self) -> bool:
        """A claimed verdict the judge overturned (a judge error is no verdict, so no disagreement)."""
        return self.judge_error is None and self.claimed in ("pass", "fail") and self.claimed != self.judged

    def describe(self) -> str:
        """One line for the CLI and the site."""
        if self.judge_error is not None:
            return (f"{self.episode}: check {self.check} claimed {self.claimed}, judge error "
                    f"(left unjudged): {self.judge_error}")
        effect = ", which changes the result" if self.changes_result else ""
        return f"{self.episode}: check {self.check} claimed {self.claimed}, judged {self.judged}{effect}"


def review_rubrics(episode: str, claimed: TaskResult, judged: TaskResult) -> list[RubricReview]:
    """The rubric checks of `judged` whose verdict is not the one `claimed` (see the module docstring)."""
    claimed_states = {(s.id, c.id): c.result.state for s in claimed.subtasks for c in s.checks}
    changes_result = claimed.outcome != judged.outcome
    reviews = []
    for subtask in judged.subtasks:
        for check in subtask.checks:
            if check.kind != "rubric":
                continue
            before = claimed_states.get((subtask.id, check.id), "unjudged")
            review = RubricReview(episode=episode, check=f"{subtask.id}/{check.id}", claimed=before,
                                  judged=check.result.state, judge_error=check.result.error)
            if review.judge_error is not None or review.disagrees:
                reviews.append(review)
    for review in reviews:
        review.changes_result = review.disagrees and changes_result
    return reviews


def _link_tree(source: Path, target: Path, skip: set[str]) -> None:
    """Mirror `source` into `target` with symbolic links to its files (nothing is copied)."""
    target.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name in skip:
            continue
        if item.is_dir() and not item.is_symlink():
            _link_tree(item, target / item.name, skip)
        else:
            os.symlink(item.resolve(), target / item.name)


def rejudged_run(submission: Path, results: dict[str, TaskResult], target: Path) -> Path:
    """A run folder at `target` like `submission`, with `results` (episode folder -> re-judged
    result) as each episode's scores.json and run.json line; returns `target`."""
    _link_tree(submission, target, skip={"scores.json", "run.json"})
    for episode_folder in submission.iterdir():
        claimed_scores = episode_folder / "scores.json"
        if episode_folder.is_dir() and claimed_scores.exists() and episode_folder.name not in results:
            os.symlink(claimed_scores.resolve(), target / episode_folder.name / "scores.json")
    run = read_json(submission / "run.json")
    for line in run["episodes"]:
        folder = str(line.get("folder") or f"{line['task_id']}-t{line['trial']}")
        result = results.get(folder)
        if result is not None:
            line.update(result=result.outcome, subtask_pass_rate=result.subtask_pass_rate,
                        first_failing_subtask=result.first_failing_subtask)
            (target / folder / "scores.json").write_text(result.model_dump_json(indent=1), encoding="utf-8")
    # The headline figures are re-derived from the lines by whoever reads them (run_metrics);
    # the claimed ones would now be stale, so they are dropped rather than left misleading.
    run.pop("metrics", None)
    (target / "run.json").write_text(json.dumps(run, indent=1), encoding="utf-8")
    return target
