"""Run folders and leaderboard submissions built from the synthetic episode (run_folders)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.report.run_folders import write_run, write_tasks


def write_submission(folder: Path, tasks_dir: Path, *, agent: str, observation: str, passes, **meta) -> Path:
    """A run folder with its submission.json (meta fields override the defaults)."""
    write_run(folder, tasks_dir, agent=agent, observation=observation, passes=passes)
    data = {"model": f"{agent}-model", "agent": agent, "observation": observation, "date": "2026-11-30",
            "contact": "bench@example.org", **meta}
    (folder / "submission.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def tasks_dir(tmp_path_factory) -> Path:
    return write_tasks(tmp_path_factory.mktemp("tasks"))


@pytest.fixture
def submission(tmp_path, tasks_dir) -> Path:
    """One clean submission: trial 0 of each task passes, trial 1 leaves the state untouched."""
    return write_submission(tmp_path / "alpha", tasks_dir, agent="alpha", observation="screenshot",
                            passes=lambda task_id, trial: trial == 0)
