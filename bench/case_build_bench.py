"""First build of every per-task template for a suite of synthetic cases (target < 60 s).

Makes --cases task files by varying the example cases in tests/cases/tasks (another
patient name and birth date, another task id, so another id slot), then, app by app,
builds each task's template the way the first reset naming the task does, into a fresh
cache (the world templates are built first and timed apart). Prints the total, the
per-app totals, and the slowest single task.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import yaml

from admindesk.envs.common.factory import AppConfig
from admindesk.harness.env.services import APP_NAMES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "tests" / "cases" / "tasks"
TARGET_S = 60.0
FIRST_NAMES = ("Alma", "Bruno", "Celia", "Dmitri", "Esther", "Felix", "Greta", "Hector", "Ines", "Jonah",
               "Kira", "Lionel", "Mabel", "Nestor", "Opal", "Pavel", "Quinn", "Rosa", "Silas", "Tamsin")


def write_suite(folder: Path, count: int) -> list[str]:
    """`count` task files, each an example case with another id, patient name and birth date."""
    examples = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted(EXAMPLES.glob("*.yaml"))]
    ids = []
    for index in range(count):
        task = yaml.safe_load(yaml.safe_dump(examples[index % len(examples)]))
        task["id"] = f"{task['id']}-v{index:03d}"
        patient = task["case"]["patient"]
        patient["first_name"] = FIRST_NAMES[index % len(FIRST_NAMES)]
        dob = patient["dob"] if isinstance(patient["dob"], date) else date.fromisoformat(patient["dob"])
        patient["dob"] = dob - timedelta(days=37 * index)
        task.pop("seed", None)  # raw rows name the example's own MRN
        (folder / f"{task['id']}.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
        ids.append(task["id"])
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=135, help="number of synthetic task files")
    args = parser.parse_args()
    if args.cases < 1:
        parser.error("--cases must be at least 1")
    with tempfile.TemporaryDirectory(prefix="admindesk-case-bench-") as scratch:
        scratch = Path(scratch)
        tasks = scratch / "tasks"
        tasks.mkdir()
        ids = write_suite(tasks, args.cases)
        started = time.perf_counter()
        kits = {}
        for name in APP_NAMES:
            app = importlib.import_module(f"admindesk.envs.{name}").create_app(
                AppConfig(data_dir=scratch / name, cache_dir=scratch / "cache", tasks_dir=tasks))
            kits[name] = app.extensions["admindesk"]
        print(f"world templates of {len(kits)} apps built in {time.perf_counter() - started:.1f} s (not counted)")
        per_task: dict[str, float] = dict.fromkeys(ids, 0.0)
        per_app: dict[str, float] = {}
        for name, kit in kits.items():
            app_started = time.perf_counter()
            for task_id in ids:
                task_started = time.perf_counter()
                kit.task_templates.template_for(task_id)
                per_task[task_id] += time.perf_counter() - task_started
            per_app[name] = time.perf_counter() - app_started
        own = {name: len({kit.task_templates.template_for(t) for t in ids} - {kit.template}) for name, kit in kits.items()}
        total = sum(per_app.values())
        for name in kits:
            print(f"{name:<16}{per_app[name]:>7.1f} s  {own[name]:>4} task templates of its own")
        print(f"per case: median {statistics.median(per_task.values()) * 1000:.0f} ms, "
              f"slowest {max(per_task.values()) * 1000:.0f} ms (all apps)")
        verdict = "ok" if total < TARGET_S else "OVER"
        print(f"first build of all templates for {len(ids)} cases: {total:.1f} s  (target < {TARGET_S:.0f} s) {verdict}")
        if total >= TARGET_S:
            sys.exit(1)


if __name__ == "__main__":
    main()
