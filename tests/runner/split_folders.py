"""Hand-made split folders for the split tests: public task files copied under new ids, with
the split.json `admindesk tasks generate --split` would write beside them."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from admindesk.harness.task_tools.splits.manifest import seed_digest, tasks_digest
from admindesk.schema.task_model import TASKS_ROOT, load_task_file


def write_split(folder: Path, name: str, task_files: dict[str, Path], *, seed: int | None = 7,
                private: bool = False) -> Path:
    """A split `name` at `folder`: each source task file (new id -> its path) copied under
    its new id, and split.json (no seed when `private`); returns `folder`."""
    hashes = {}
    for task_id, source in task_files.items():
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
        data["id"] = task_id
        target = folder / data["workflow"] / f"{task_id}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        load_task_file(target)  # the copy must still be a task
        hashes[task_id] = hashlib.sha256(target.read_bytes()).hexdigest()
    manifest = {"split": name, "seed_sha256": seed_digest(seed), "per_template": None, "tasks": hashes,
                "tasks_sha256": tasks_digest(hashes), "generator": "admindesk test"}
    if not private:
        manifest["seed"] = seed
    (folder / "split.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return folder


def write_public_copy_split(folder: Path, name: str = "t-1", **options) -> Path:
    """A one-task split: public pa-easy-17 as `pa-easy-17@<name>`."""
    return write_split(folder, name, {f"pa-easy-17@{name}": TASKS_ROOT / "prior_auth" / "pa-easy-17.yaml"},
                       **options)
