"""Is a held-out split as hard as the public one? The reference's steps per template, compared.

Reads the reference's runs (`admindesk tasks check --out DIR` or `admindesk run --agent
reference --out DIR` folders) of the public suite and of one or more generated splits. Each generated task is compared
with the public task it was drawn from (`pa-hard-07@heldout-3` with `pa-hard-07`), so a
sample that happens to hold harder rows does not look harder: per template it prints the
reference's steps summed over the split's tasks, the same sum over their public rows, and
the ratio. The target is a ratio within 20% of 1 for every template. Exit 1 when a template
misses it or a split task has no passing reference run on either side.

    python bench/split_difficulty.py --public checks/public --split checks/h1 --split-tasks splits/h1
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from admindesk.schema.task_model import load_tasks

TOLERANCE = 0.20


def reference_steps(folder: Path) -> dict[str, int]:
    """Task id -> the reference's steps, from every run.json below `folder` (`tasks check
    --out` folders or `admindesk run` folders), for episodes whose reference passed;
    ablated runs (a subtask skipped) do not count."""
    steps = {}
    for run_json in sorted(folder.glob("**/run.json")):
        run = json.loads(run_json.read_text(encoding="utf-8"))
        if run.get("agent") != "reference" or run.get("agent_options", {}).get("skip"):
            continue
        for episode in run["episodes"]:
            if episode["result"] in ("pass", "unjudged"):
                steps.setdefault(episode["task_id"], episode["steps"])
    return steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--public", type=Path, action="append", required=True,
                        help="reference runs of the public suite (tasks check or run folder; repeatable)")
    parser.add_argument("--split", type=Path, action="append", required=True,
                        help="reference runs of a generated split (repeatable)")
    parser.add_argument("--split-tasks", type=Path, action="append", required=True,
                        help="the split's task folder (repeatable, same order as --split)")
    args = parser.parse_args(argv)
    if len(args.split) != len(args.split_tasks):
        parser.error("give one --split-tasks folder per --split folder")
    public: dict[str, int] = {}
    for folder in args.public:
        public = {**reference_steps(folder), **public}  # the first folder given wins
    sums: dict[str, list[int]] = {}  # template -> [split steps, public steps, tasks]
    missing = []
    for check_dir, tasks_dir in zip(args.split, args.split_tasks):
        drawn = reference_steps(check_dir)
        for task in load_tasks(tasks_dir):
            prototype = task.id.split("@")[0]
            if task.id not in drawn or prototype not in public:
                missing.append(task.id)
                continue
            row = sums.setdefault(task.template, [0, 0, 0])
            row[0] += drawn[task.id]
            row[1] += public[prototype]
            row[2] += 1
    print(f"{'template':<34} {'tasks':>5} {'split steps':>11} {'public steps':>12} {'ratio':>6}")
    outside = 0
    for template, (ours, theirs, count) in sorted(sums.items()):
        ratio = ours / theirs
        flag = "" if abs(ratio - 1) <= TOLERANCE else "  OUTSIDE 20%"
        outside += bool(flag)
        print(f"{template:<34} {count:>5} {ours:>11} {theirs:>12} {ratio:>6.2f}{flag}")
    if missing:
        print(f"no passing reference run on one side for: {', '.join(missing)}")
    print(f"{outside} template(s) outside {TOLERANCE:.0%}; {len(missing)} task(s) missing")
    return 1 if outside or missing else 0


if __name__ == "__main__":
    sys.exit(main())
