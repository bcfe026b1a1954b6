"""The run folder of a parallel run: resumable, and consistent whenever it is interrupted.

    DIR/run.json                  agent, tasks, versions, episodes, metrics, retried infra errors
    DIR/<task>-t<trial>/          record.json.gz, scores.json, summary.json, trajectory, screenshots

An episode is finished when its folder holds its record and scores.json; a rerun into the
same DIR skips it (unless it errored and the rerun is asked to retry errors). Episode folders appear whole: their files are written into a hidden
staging folder, which is renamed into place (a rename is atomic on one filesystem), and
run.json is replaced the same way; so Ctrl-C at any moment leaves only finished episodes
and a readable run.json. Stale staging folders are swept on the next run.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from importlib import metadata
from pathlib import Path
from typing import Any

from admindesk.harness.env.browser import CHROMIUM_PATH
from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT
from admindesk.verifiers.record_files import record_file

STAGING_PREFIX = ".staging-"


def episode_name(task_id: str, trial: int) -> str:
    """The folder name of one (task, trial) episode."""
    return f"{task_id}-t{trial}"


def is_finished(folder: Path) -> bool:
    """Whether the episode in `folder` ran and was scored."""
    return record_file(folder) is not None and (folder / "scores.json").is_file()


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` so a reader sees the old or the new file, never half."""
    staging = path.with_name(f"{STAGING_PREFIX}{uuid.uuid4().hex}-{path.name}")
    staging.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    os.replace(staging, path)


def install_episode(out_dir: Path, name: str, files: dict[str, bytes]) -> Path:
    """Write an episode's files (relative path -> bytes) and rename the folder into place,
    replacing an unfinished folder of the same name."""
    staging = out_dir / f"{STAGING_PREFIX}{uuid.uuid4().hex}"
    for relative, content in files.items():
        target = (staging / relative).resolve()
        if staging.resolve() not in target.parents:
            raise ValueError(f"episode file {relative!r} would land outside its folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    staging.mkdir(parents=True, exist_ok=True)
    final = out_dir / name
    if final.exists():
        shutil.rmtree(final)
    os.replace(staging, final)
    return final


def read_episode_files(folder: Path) -> dict[str, bytes]:
    """Every file below `folder`, by path relative to it (to ship an episode to the driver)."""
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def sweep_staging(out_dir: Path) -> None:
    """Remove the staging files and folders an interrupted run left behind."""
    for leftover in out_dir.glob(f"{STAGING_PREFIX}*"):
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


def finished_summaries(out_dir: Path, names: list[str]) -> dict[str, dict[str, Any]]:
    """Episode name -> its stored summary, for every finished episode among `names`."""
    found = {}
    for name in names:
        folder = out_dir / name
        if is_finished(folder) and (folder / "summary.json").is_file():
            found[name] = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    return found


def needs_retry(summary: dict[str, Any]) -> bool:
    """Whether a finished episode errored rather than being the agent's work to score: its
    result is an error, or the agent stopped on an error (as a model endpoint that failed
    was recorded before such failures became infra errors). `--retry-errors` reruns these."""
    return (summary.get("result") in ("error", "infra_error")
            or (summary.get("agent_note") or "").startswith("agent error"))


def plan_episodes(out_dir: Path, names: list[str], *, retry_errors: bool = False
                  ) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """(the finished episodes a run into `out_dir` keeps, by name; the names it runs).
    Unfinished episodes always run; errored finished ones too with `retry_errors`."""
    done = finished_summaries(out_dir, names)
    if retry_errors:
        done = {name: summary for name, summary in done.items() if not needs_retry(summary)}
    return done, [name for name in names if name not in done]


def git_commit() -> str | None:
    """The checkout's HEAD commit (None outside a git checkout)."""
    source = Path(__file__).resolve().parent
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _chromium_version() -> str | None:
    try:
        done = subprocess.run([CHROMIUM_PATH, "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def run_versions(tasks: list[Any], frame_size: tuple[int, int]) -> dict[str, Any]:
    """What a run's figures depend on: code, task revisions, browser, viewport, judge."""
    versions: dict[str, Any] = {}
    for package in ("admindesk", "playwright"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    versions["admindesk_commit"] = git_commit()
    versions["chromium"] = _chromium_version()
    # The frame is what the agent sees; the page viewport is the frame minus the drawn chrome.
    versions["viewport"] = {"width": frame_size[0], "height": frame_size[1]}
    versions["page_viewport"] = {"width": frame_size[0], "height": frame_size[1] - CHROME_HEIGHT}
    versions["task_revisions"] = {task.id: task.revision for task in tasks}
    # The runner scores with the programmatic checks only; judged checks stay `unjudged`
    # until `admindesk score --judge SPEC` rescores the folder.
    versions["judge"] = None
    return versions
