"""The files of a run folder as the report and the leaderboard read them: run.json's episode
lines and trajectory.jsonl's entries as typed models, and where an episode's files may be.

Run folders also arrive from strangers (leaderboard submissions), so nothing in them is
trusted: every field that is read has a type (numbers finite and in range, no string where
an object belongs), and an episode folder or a screenshot is named by a plain file name,
so no path in a file can point outside the run folder or the episode folder.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from admindesk.verifiers.record_files import RecordFileError, parse_json, read_json_bytes

TRAJECTORY_FILE = "trajectory.jsonl"
# Read as the runner writes them: strict types (no "0.5" for 0.5), finite numbers, and the
# fields nothing reads are let through unchecked.
_UNTRUSTED = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)


class RunFolderError(ValueError):
    """A run folder that cannot be reported on; `where` is the file (and line) and `reason`
    the problem, the message both."""

    def __init__(self, where: Path | str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


def is_plain_name(value: Any) -> bool:
    """Whether `value` names an entry of a folder itself: no separator, not `.` or `..`."""
    return (isinstance(value, str) and value not in ("", ".", "..")
            and not any(char in value for char in ("/", "\\", "\x00")))


def _plain_name_in(place: str):
    """A field validator: the value, when set, must be a plain name of an entry of `place`."""
    def check(value: str | None) -> str | None:
        if value is not None and not is_plain_name(value):
            raise ValueError(f"{value!r} is not a {place}")
        return value
    return check


_file_in_episode = _plain_name_in("file name in the episode folder")
_folder_in_run = _plain_name_in("folder name in the run folder")


class Usage(BaseModel):
    """What the agent's model calls of one step used."""

    model_config = _UNTRUSTED

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)


class AgentNote(BaseModel):
    """What the agent noted about one step: its reasoning, its error, its usage."""

    model_config = _UNTRUSTED

    reasoning: str | None = None
    error: str | None = None
    usage: Usage | None = None


class TrajectoryEntry(BaseModel):
    """One line of trajectory.jsonl: the action that led to a screen, and the screen."""

    model_config = _UNTRUSTED

    step: int | None = Field(default=None, ge=0)
    action: dict[str, Any] | None = None
    url: str | None = None
    error: str | None = None
    screenshot: str | None = None
    agent: AgentNote | None = None
    # The task's goal (on the reset entry) and the accessibility-tree text the agent was
    # given with this screen (when its observation had one).
    goal: str | None = None
    axtree: str | None = None

    _screenshot_name = field_validator("screenshot")(_file_in_episode)


class RunLine(BaseModel):
    """One episode's line in run.json, with the fields the report and the metrics read."""

    model_config = _UNTRUSTED

    task_id: str = Field(min_length=1)
    trial: int = Field(ge=0)
    result: Literal["pass", "unjudged", "fail", "error", "timeout", "infra_error"]
    subtask_pass_rate: float | None = Field(default=None, ge=0, le=1)
    first_failing_subtask: str | None = None
    deterministic_pass: bool | None = None
    folder: str | None = None
    error: str | None = None
    steps: int | None = Field(default=None, ge=0)
    wall_s: float | None = Field(default=None, ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    workflow: str | None = None
    difficulty: str | None = None
    challenge: str | None = None
    # {category: [subtasks passed, subtasks]}
    categories: dict[str, list[int]] | None = None

    _folder_name = field_validator("folder")(_folder_in_run)

    @field_validator("categories")
    @classmethod
    def _tallies(cls, value: dict[str, list[int]] | None) -> dict[str, list[int]] | None:
        for category, tally in (value or {}).items():
            if len(tally) != 2 or not 0 <= tally[0] <= tally[1] or tally[1] < 1:
                raise ValueError(f"category {category!r} is not [passed, total] with 0 <= passed <= total, total >= 1")
        return value

    def folder_name(self) -> str:
        """The episode folder's name: `folder`, else `<task>-t<trial>`; ValueError when that
        is not a plain file name (a task id with a `/` in it)."""
        name = self.folder or f"{self.task_id}-t{self.trial}"
        return _folder_in_run(name)


def describe(error: ValidationError) -> str:
    """The first problem pydantic found, as `field.path: why`."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top level)"
    message = str(first["ctx"]["error"]) if first["type"] == "value_error" else first["msg"]
    return f"{where}: {message}"


def episode_lines(run: dict[str, Any], source: Path) -> list[RunLine]:
    """run.json's episode lines, typed; RunFolderError names the first line that is wrong
    (`source` is the run.json file)."""
    if not isinstance(run.get("episodes"), list):
        raise RunFolderError(source, "no `episodes` list")
    lines = []
    for number, line in enumerate(run["episodes"]):
        try:
            lines.append(RunLine.model_validate(line))
        except ValidationError as exc:
            raise RunFolderError(source, f"episodes[{number}].{describe(exc)}") from exc
    return lines


def episode_folder(run_dir: Path, line: RunLine, number: int) -> Path:
    """The folder of run.json's episode `number` (inside `run_dir`, by construction)."""
    try:
        return run_dir / line.folder_name()
    except ValueError as exc:
        raise RunFolderError(run_dir / "run.json", f"episodes[{number}]: {exc}") from exc


def trajectory_entries(folder: Path) -> list[TrajectoryEntry]:
    """The entries of the episode's trajectory.jsonl ([] when it has none); RunFolderError
    names the line and the field that is wrong, or a screenshot that is not a file."""
    path = folder / TRAJECTORY_FILE
    if not path.exists() and not path.is_symlink():
        return []
    try:
        text = read_json_bytes(path).decode("utf-8")
    except RecordFileError as exc:
        raise RunFolderError(path, exc.reason) from exc
    except UnicodeDecodeError as exc:
        raise RunFolderError(path, f"not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise RunFolderError(path, f"cannot read it ({exc.strerror})") from exc
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(TrajectoryEntry.model_validate(parse_json(line, path)))
        except RecordFileError as exc:
            raise RunFolderError(f"{path}:{number}", exc.reason) from exc
        except ValidationError as exc:
            raise RunFolderError(f"{path}:{number}", describe(exc)) from exc
    for entry in entries:
        screen = folder / entry.screenshot if entry.screenshot else None
        # Copying a named pipe would block; anything but a file is no screenshot.
        if screen is not None and screen.exists() and not screen.is_file():
            raise RunFolderError(screen, "not a regular file (a named pipe, socket, device or folder)")
    return entries


def agent_notes(trajectory: list[Any], source: Path) -> dict[int, AgentNote]:
    """Step -> the agent's note, from a record's trajectory (`source` is the record file)."""
    notes: dict[int, AgentNote] = {}
    for position, entry in enumerate(trajectory):
        if isinstance(entry, dict) and isinstance(entry.get("step"), int) and entry.get("agent") is not None:
            try:
                notes[entry["step"]] = AgentNote.model_validate(entry["agent"])
            except ValidationError as exc:
                raise RunFolderError(source, f"trajectory[{position}].agent.{describe(exc)}") from exc
    return notes
