"""The folder of task files a run draws from, and the split it records in run.json.

A run reads its tasks from the repository's tasks/ (the public suite) or from a folder
`admindesk tasks generate --split` wrote (a held-out split, described by its split.json).
run.json's `split` says which: {"name", "seed", "seed_sha256", "tasks_sha256"}, all but
the name null for the public suite, the seed null when the maintainers keep it private.
A run folder holds episodes of one split only: resuming into it from another is refused.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from admindesk.harness.task_tools.splits.manifest import PUBLIC_SPLIT, SplitInfo, read_split
from admindesk.schema.task_model import TASKS_ROOT, Task, TaskFileError, load_tasks, read_task_yaml

# A folder of task files that is neither the public suite nor a generated split (no split.json).
CUSTOM_SPLIT = "custom"
PUBLIC_SPLIT_RECORD: dict[str, Any] = {"name": PUBLIC_SPLIT, "seed": None, "seed_sha256": None, "tasks_sha256": None}


class TaskFolderError(ValueError):
    """A tasks folder that cannot be run: missing, empty, unreadable, or unlike its split.json."""


def load_task_folder(tasks_dir: Path) -> list[Task]:
    """Every task of `tasks_dir`; TaskFolderError when the folder is missing, holds no task
    file, or a task file does not load (the message names the folder or file)."""
    if not tasks_dir.is_dir():
        raise TaskFolderError(f"tasks folder {tasks_dir} does not exist")
    try:
        tasks = load_tasks(tasks_dir)
    except TaskFileError as exc:
        raise TaskFolderError(str(exc)) from exc
    if not tasks:
        raise TaskFolderError(f"tasks folder {tasks_dir} holds no task file (*.yaml)")
    return tasks


def file_hashes(tasks_dir: Path) -> dict[str, str]:
    """Task id -> sha256 of its file's bytes, for every task file under `tasks_dir`."""
    hashes: dict[str, str] = {}
    for path in sorted(tasks_dir.rglob("*.yaml")):
        task_id = str(read_task_yaml(path).get("id", path.stem))
        if task_id in hashes:
            raise TaskFolderError(f"{tasks_dir}: two task files have id {task_id!r}")
        hashes[task_id] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def verified_split(tasks_dir: Path) -> SplitInfo | None:
    """The folder's split.json (None without one), checked against the task files beside it:
    a file edited, added or removed since the split was generated is refused, so the split a
    run records is the one it ran."""
    try:
        info = read_split(tasks_dir)
    except ValueError as exc:
        raise TaskFolderError(str(exc)) from exc
    if info is None:
        return None
    try:
        found = file_hashes(tasks_dir)
    except TaskFileError as exc:
        raise TaskFolderError(str(exc)) from exc
    changed = sorted(task_id for task_id in set(found) & set(info.tasks) if found[task_id] != info.tasks[task_id])
    added, missing = sorted(set(found) - set(info.tasks)), sorted(set(info.tasks) - set(found))
    differences = [f"{label}: {', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}"
                   for label, ids in (("edited", changed), ("not in split.json", added), ("missing", missing))
                   if ids]
    if differences:
        raise TaskFolderError(f"{tasks_dir}: the task files are not the ones split.json lists "
                              f"({'; '.join(differences)})")
    return info


def split_record(tasks_dir: Path | None, *, verify_files: bool = True) -> dict[str, Any]:
    """run.json's `split` for a run over `tasks_dir` (None: the public suite). With
    `verify_files`, task files that differ from split.json are refused (verified_split)."""
    if tasks_dir is None or tasks_dir.resolve() == TASKS_ROOT.resolve():
        return dict(PUBLIC_SPLIT_RECORD)
    if verify_files:
        info = verified_split(tasks_dir)
    else:
        try:
            info = read_split(tasks_dir)
        except ValueError as exc:
            raise TaskFolderError(str(exc)) from exc
    if info is None:
        return {**PUBLIC_SPLIT_RECORD, "name": CUSTOM_SPLIT}
    return {"name": info.split, "seed": info.seed, "seed_sha256": info.seed_sha256, "tasks_sha256": info.tasks_sha256}


def recorded_split(run: dict[str, Any]) -> dict[str, Any]:
    """The split a run.json records; runs from before splits existed ran the public suite."""
    split = run.get("split")
    return dict(split) if isinstance(split, dict) else dict(PUBLIC_SPLIT_RECORD)


def describe_split(split: dict[str, Any]) -> str:
    """`heldout-3 (tasks 1a2b3c4d5e6f)`: a split as a message names it."""
    digest = split.get("tasks_sha256")
    return f"{split.get('name')!s}" + (f" (tasks {digest[:12]})" if digest else "")


def refuse_other_split(out_dir: Path, split: dict[str, Any]) -> None:
    """TaskFolderError when `out_dir` already holds a run of another split than `split`
    (a rerun must not mix splits in one folder); nothing is written either way."""
    path = out_dir / "run.json"
    if not path.is_file():
        return
    try:
        existing = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskFolderError(f"{path}: cannot read the run already in this folder ({exc}); "
                              f"choose another --out") from exc
    before = recorded_split(existing if isinstance(existing, dict) else {})
    keys = ("name", "seed_sha256", "tasks_sha256")
    if any(before.get(key) != split.get(key) for key in keys):
        raise TaskFolderError(f"{out_dir} holds a run of split {describe_split(before)}, not "
                              f"{describe_split(split)}: a run folder keeps one split; choose another --out")
