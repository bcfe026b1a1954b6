"""A held-out split in two folders: the public copy a submitter runs, the complete one the maintainers keep.

The public copy holds what the apps and the agent need (id, goal, start page, guidance,
the case the apps build, the clock, the step budget) and says `checks_withheld: true`;
the subtasks with their checks, the guards, and what would name the trap (`challenge`,
`feasible`) stay out. `admindesk run` needs only the public copy; scoring needs the
maintainers' copy, which is the complete split folder (split.json there records the public
copy's tasks_sha256, so a run over the public copy is scored against it).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from admindesk.harness.task_tools.folders import file_hashes
from admindesk.harness.task_tools.generation import GenerationError
from admindesk.harness.task_tools.splits.manifest import SPLIT_FILE, SplitInfo, read_split, tasks_digest
from admindesk.schema.task_model import read_task_yaml

# Fields a public task file leaves out: the checks themselves and what would name the trap.
WITHHELD_FIELDS = ("subtasks", "guards", "challenge", "feasible")


def public_task_text(full_task: dict) -> str:
    """A task file's public form (YAML): every field but the withheld ones, marked as such."""
    public = {key: value for key, value in full_task.items() if key not in WITHHELD_FIELDS}
    public["checks_withheld"] = True
    return yaml.safe_dump(public, sort_keys=False, allow_unicode=True, width=100)


def write_public_copy(private_dir: Path, public_dir: Path) -> SplitInfo:
    """Write the public copy of the complete split in `private_dir` into `public_dir` (new,
    empty, or an earlier public copy it replaces), and record its tasks_sha256 in the
    complete copy's split.json."""
    info = read_split(private_dir)
    if info is None:
        raise GenerationError(f"{private_dir}: not a split folder (no {SPLIT_FILE})")
    if public_dir.resolve() == private_dir.resolve() or private_dir.resolve() in public_dir.resolve().parents:
        raise GenerationError(f"{public_dir}: the public copy is written outside the maintainers' folder")
    if public_dir.exists() and any(public_dir.iterdir()):
        previous = read_split(public_dir) if (public_dir / SPLIT_FILE).is_file() else None
        if previous is None or not previous.checks_withheld:
            raise GenerationError(f"{public_dir}: not empty and not a split's public copy; choose a new folder")
        shutil.rmtree(public_dir)
    for path in sorted(private_dir.rglob("*.yaml")):
        target = public_dir / path.relative_to(private_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(public_task_text(read_task_yaml(path)), encoding="utf-8")
    hashes = file_hashes(public_dir)
    public = info.model_copy(update={"tasks": hashes, "tasks_sha256": tasks_digest(hashes),
                                     "checks_withheld": True, "public_tasks_sha256": None})
    _write_manifest(public_dir, public)
    _write_manifest(private_dir, info.model_copy(update={"public_tasks_sha256": public.tasks_sha256}))
    return public


def _write_manifest(folder: Path, info: SplitInfo) -> None:
    (folder / SPLIT_FILE).write_text(
        json.dumps(info.model_dump(mode="json", exclude_defaults=True), indent=1, sort_keys=True) + "\n", encoding="utf-8")
