"""The maintainers' copies of held-out splits, and which task files a submission is checked against.

A submission's run.json says which split it ran (`split`: name, seed or null, seed_sha256,
tasks_sha256; runs without one ran the public suite). A public run is re-scored against the
public task files; a held-out run against the maintainers' own copy of its split, found by
name among the `--split-dir` folders, and only when the run's tasks_sha256 (and seed_sha256)
are that copy's: the submitter ran exactly those task files. A split the maintainers do not
hold, or a run over a folder of task files that is no split at all, cannot be listed.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from admindesk.harness.task_tools.folders import CUSTOM_SPLIT, TaskFolderError, verified_split
from admindesk.harness.task_tools.splits.manifest import PUBLIC_SPLIT, SPLIT_FILE, SplitInfo


@dataclass(frozen=True)
class HeldOutSplit:
    """One split the maintainers hold: its folder of task files and its manifest."""

    folder: Path
    info: SplitInfo

    @property
    def seed_private(self) -> bool:
        """True when split.json keeps the seed out (only its sha256 is published)."""
        return self.info.seed is None


class SplitCatalog:
    """The maintainers' held-out splits by name (empty: only the public suite can be listed)."""

    def __init__(self, splits: Iterable[HeldOutSplit] = ()) -> None:
        self.splits: dict[str, HeldOutSplit] = {}
        for split in splits:
            if split.info.split in self.splits:
                raise ValueError(f"two split folders are split {split.info.split!r}: "
                                 f"{self.splits[split.info.split].folder} and {split.folder}")
            if split.info.split == PUBLIC_SPLIT:
                raise ValueError(f"{split.folder}: a held-out split cannot be named {PUBLIC_SPLIT!r}")
            self.splits[split.info.split] = split

    @classmethod
    def from_dirs(cls, folders: Iterable[Path]) -> "SplitCatalog":
        """Each folder is a split folder (with split.json) or a folder of split folders. Every
        split's task files must be the ones its split.json lists; ValueError names what is wrong."""
        found = []
        for folder in folders:
            if (folder / SPLIT_FILE).is_file():
                candidates = [folder]
            else:
                candidates = sorted(p for p in folder.iterdir() if (p / SPLIT_FILE).is_file()) if folder.is_dir() else []
                if not candidates:
                    raise ValueError(f"{folder}: neither a split folder nor a folder of split folders (no {SPLIT_FILE})")
            for candidate in candidates:
                try:
                    info = verified_split(candidate)
                except TaskFolderError as exc:
                    raise ValueError(f"the maintainers' copy of a split is broken: {exc}") from exc
                found.append(HeldOutSplit(candidate, info))
        return cls(found)

    def resolve(self, split: dict[str, Any], public_dir: Path) -> tuple[Path | None, list[str]]:
        """The task folder a run of `split` (its run.json record) is checked against, or None
        with the reasons it cannot be listed."""
        name = split.get("name")
        if name == PUBLIC_SPLIT:
            return public_dir, []
        if name == CUSTOM_SPLIT:
            return None, ["the run used a folder of task files that is neither the public suite nor a "
                          "generated split (no split.json): it cannot be listed"]
        held = self.splits.get(name) if isinstance(name, str) else None
        if held is None:
            known = ", ".join(sorted(self.splits)) or "none"
            return None, [f"held-out split {name!r} is unknown to the maintainers (splits held: {known}; "
                          f"pass its folder with --split-dir)"]
        problems = []
        # A run over the public copy (checks withheld) records that copy's tasks_sha256.
        ran_public_copy = held.info.public_tasks_sha256 is not None and split.get("tasks_sha256") == held.info.public_tasks_sha256
        for field in ("seed_sha256",) if ran_public_copy else ("tasks_sha256", "seed_sha256"):
            if split.get(field) != getattr(held.info, field):
                problems.append(f"run.json split {name!r} has {field} {str(split.get(field))[:12]}..., the "
                                f"maintainers' copy {getattr(held.info, field)[:12]}...: not the same split")
        return (None, problems) if problems else (held.folder, [])

    def get(self, name: str) -> HeldOutSplit | None:
        """The held-out split `name`, if the maintainers hold it."""
        return self.splits.get(name)
