"""The example task files with cases (tests/cases/tasks), for tests and benches."""
from __future__ import annotations

from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
EXAMPLE_TASK_IDS = ("case-appeals-on-file", "case-coverage-termed", "case-denial-auth-on-file", "case-dme-cpap-stale",
                    "case-external-review", "case-lookalike", "case-pa-duplicate", "case-pa-shortfall")
