"""`split.json`: what a generated split folder is (name, seed or its hash, task file hashes).

The public suite (tasks/ in the repository) has no split.json; its split is "public". A
split whose seed the maintainers keep private records only the seed's sha256, so a
submission can show which split it ran without the seed ever leaving the maintainers.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from admindesk.schema.task_model import describe_errors

SPLIT_FILE = "split.json"
PUBLIC_SPLIT = "public"


class SplitInfo(BaseModel):
    """The manifest of one generated split folder."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    split: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    seed: int | None = Field(default=None, ge=0, description="absent when the seed is kept private")
    seed_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    per_template: int | None = Field(default=None, ge=1)
    tasks: dict[str, str] = Field(description="task id -> sha256 of its file's bytes")
    tasks_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    generator: str
    # The public copy of a split (handed to submitters): its task files hold no checks.
    checks_withheld: bool = False
    # The maintainers' complete copy: the tasks_sha256 of the public copy made from it, so a
    # run over the public copy is scored against this one.
    public_tasks_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


def seed_digest(seed: int) -> str:
    """The commitment to a seed: sha256 of its decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def tasks_digest(file_hashes: dict[str, str]) -> str:
    """One hash over every (task id, file hash) pair, in id order."""
    lines = "".join(f"{task_id} {digest}\n" for task_id, digest in sorted(file_hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def read_split(tasks_dir: Path) -> SplitInfo | None:
    """The folder's split manifest, or None for a folder without one (the public suite).

    A manifest that does not parse, or whose task hashes disagree with its own total,
    raises ValueError naming the file and what is wrong."""
    path = Path(tasks_dir) / SPLIT_FILE
    if not path.is_file():
        return None
    try:
        info = SplitInfo.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the split manifest ({exc})") from exc
    except ValidationError as exc:
        raise ValueError(f"{path}: {describe_errors(exc)}") from exc
    if tasks_digest(info.tasks) != info.tasks_sha256:
        raise ValueError(f"{path}: tasks_sha256 does not match the task hashes it lists")
    if info.seed is not None and seed_digest(info.seed) != info.seed_sha256:
        raise ValueError(f"{path}: seed_sha256 is not the hash of seed {info.seed}")
    return info
