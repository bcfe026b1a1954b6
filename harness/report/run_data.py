"""A run folder read back for reporting: run.json, and per episode its scores.json, its
trajectory (trajectory.jsonl, with the agent's notes merged from the record) and the
names of its step screenshots.

Everything is read before anything is written, so a broken folder is a clear error
(`RunFolderError`, naming the file) and the report writes nothing. What each file may hold
is in run_files (a run folder may come from a stranger).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from admindesk.harness.report.run_files import (
    RunFolderError,
    TrajectoryEntry,
    agent_notes,
    describe,
    episode_folder,
    episode_lines,
    trajectory_entries,
)
from admindesk.harness.report.state_changes import TableChanges, state_changes
from admindesk.verifiers.record_files import RecordFileError, read_json, record_file
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import TaskResult


@dataclass
class Step:
    """One trajectory entry: the action that led to this screen, and what the agent noted."""

    index: int
    action: dict[str, Any] | None
    url: str
    error: str | None
    screenshot: str | None
    reasoning: str = ""
    note_error: str | None = None
    cost_usd: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    observation_text: str | None = None


@dataclass
class Episode:
    """An episode's run.json line, its score (None when it errored), its steps, the task's
    goal (when the trajectory recorded it) and the rows it changed in the apps."""

    line: dict[str, Any]
    folder: Path
    score: TaskResult | None
    steps: list[Step] = field(default_factory=list)
    goal: str | None = None
    changes: list[TableChanges] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The episode folder's name (`<task>-t<trial>`), unique within a run."""
        return self.folder.name

    @property
    def cost_usd(self) -> float | None:
        """What the agent's model calls cost over the episode: run.json's figure when the
        runner wrote one, else the sum of the trajectory's notes (0 for scripted agents);
        None when a call's model has no price (unknown, not zero)."""
        if "cost_usd" in self.line:
            value = self.line["cost_usd"]
            return float(value) if isinstance(value, (int, float)) else None
        if any(step.cost_usd is None and (step.input_tokens or step.output_tokens) for step in self.steps):
            return None
        return round(sum(step.cost_usd or 0.0 for step in self.steps), 6)

    def metrics_row(self) -> dict[str, Any]:
        """The episode as harness.run_metrics reads it: the run.json line (the parallel runner
        writes groups, categories and usage into it), completed from the score and notes."""
        row = dict(self.line)
        row.setdefault("input_tokens", sum(s.input_tokens for s in self.steps))
        row.setdefault("output_tokens", sum(s.output_tokens for s in self.steps))
        row["cost_usd"] = self.cost_usd
        if self.score is not None:
            # From the scores themselves, which validation re-scores, not the line's claim.
            row["deterministic_pass"] = self.score.deterministic_pass
            row.setdefault("workflow", self.score.workflow)
            row.setdefault("difficulty", self.score.difficulty)
            row.setdefault("challenge", self.score.challenge)
            if "categories" not in row:
                categories: dict[str, list[int]] = {}
                for subtask in self.score.subtasks:
                    tally = categories.setdefault(subtask.category, [0, 0])
                    tally[0] += subtask.outcome == "pass"
                    tally[1] += 1
                row["categories"] = categories
        return row


@dataclass
class RunData:
    """A run folder: its run.json (`meta`) and its episodes in run.json order."""

    path: Path
    meta: dict[str, Any]
    episodes: list[Episode]

    @property
    def label(self) -> str:
        """How the run is named in charts: its agent (and model, when an option names one)."""
        agent = str(self.meta.get("agent", "?"))
        model = (self.meta.get("agent_options") or {}).get("model")
        return f"{agent} ({model})" if model and model != agent else agent


def _read_json(path: Path) -> Any:
    try:
        return read_json(path)
    except RecordFileError as exc:
        raise RunFolderError(path, exc.reason) from exc
    except OSError as exc:
        raise RunFolderError(path, f"cannot read it ({exc.strerror})") from exc


def _read_record(folder: Path) -> tuple[Path, Any] | None:
    """The episode's record file and its JSON, or None when it has none."""
    record_path = record_file(folder)
    return None if record_path is None else (record_path, _read_json(record_path))


def read_changes(record: tuple[Path, Any] | None) -> list[TableChanges]:
    """The rows the episode changed, from its record's snapshots ([] without a record)."""
    if record is None:
        return []
    path, data = record
    try:
        return state_changes(EpisodeRecord.model_validate(data))
    except ValidationError as exc:
        raise RunFolderError(path, f"not an episode record ({describe(exc)})") from exc


def read_trajectory(entries: list[TrajectoryEntry], record: tuple[Path, Any] | None) -> list[Step]:
    """The episode's steps from its trajectory.jsonl entries, with agent notes (reasoning,
    usage) taken from the entry itself or from the record's trajectory (`record`, as
    _read_record gives it), where the agent loop puts them."""
    if not entries:
        return []
    notes = {}
    if record is not None:
        record_path, data = record
        trajectory = data.get("trajectory") if isinstance(data, dict) else None
        notes = agent_notes(trajectory if isinstance(trajectory, list) else [], record_path)
    steps = []
    for entry in entries:
        index = entry.step if entry.step is not None else len(steps)
        note = entry.agent or notes.get(index)
        usage = note.usage if note is not None and note.usage is not None else None
        steps.append(Step(index=index, action=entry.action, url=entry.url or "", error=entry.error,
                          screenshot=entry.screenshot, reasoning=(note.reasoning if note else None) or "",
                          note_error=note.error if note else None, cost_usd=usage.cost_usd if usage else None,
                          input_tokens=(usage.input_tokens if usage else None) or 0,
                          output_tokens=(usage.output_tokens if usage else None) or 0,
                          observation_text=entry.axtree))
    return steps


def load_run(path: Path) -> RunData:
    """Read a run folder written by `admindesk run` (RunFolderError when it is not one)."""
    if not (path / "run.json").is_file():
        raise RunFolderError(path, "no run.json (not a run folder)")
    meta = _read_json(path / "run.json")
    if not isinstance(meta, dict):
        raise RunFolderError(path / "run.json", "not a JSON object")
    episodes = []
    for number, line in enumerate(episode_lines(meta, path / "run.json")):
        folder = episode_folder(path, line, number)
        score = None
        if (folder / "scores.json").exists():
            try:
                score = TaskResult.model_validate(_read_json(folder / "scores.json"))
            except ValidationError as exc:
                raise RunFolderError(folder / "scores.json", f"not a task result ({describe(exc)})") from exc
        record, entries = _read_record(folder), trajectory_entries(folder)
        episodes.append(Episode(line=meta["episodes"][number], folder=folder, score=score,
                                steps=read_trajectory(entries, record),
                                goal=next((entry.goal for entry in entries if entry.goal), None),
                                changes=read_changes(record)))
    return RunData(path=path, meta=meta, episodes=episodes)
