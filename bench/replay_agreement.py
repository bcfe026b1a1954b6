"""Replay agreement: run agents over tasks, replay every episode in a fresh Env, count agreement.

The leaderboard ranks only replayed entries (harness/leaderboard/replay.py), so every
source of divergence between a run and its replay is a bug. For each agent (default: the
reference, the random agent and the wrong-patient control, a scripted mistake) this runs
the selected tasks into a scratch run folder, replays each episode and prints, per agent,
episodes, agreeing episodes, agreement (target 100%) and each disagreement's findings
(episode, app, step, what differs), plus the median run and replay time per episode.

    python bench/replay_agreement.py [--tasks SEL] [--agents reference,random,wrong-patient]
        [--sample-per-template N] [--seed S] [--workers N]
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from admindesk.harness.cli.run import select_tasks
from admindesk.harness.leaderboard.replay import ReplayJob, replay_jobs, replay_settings
from admindesk.schema.task_model import TASKS_ROOT, load_tasks
from admindesk.verifiers.record_files import record_file


def stratified(tasks, per_template: int, seed: int):
    """`per_template` tasks of each template (seeded choice), in suite order."""
    rng = random.Random(seed)
    by_template: dict[str, list] = {}
    for task in tasks:
        by_template.setdefault(task.template or task.id, []).append(task)
    chosen = {task.id for group in by_template.values() for task in rng.sample(group, min(per_template, len(group)))}
    return [task for task in tasks if task.id in chosen]


def measure(agent: str, tasks, workers: int) -> dict:
    """Run `agent` over `tasks` with `workers` workers (as `admindesk run` does), then replay
    every recorded episode with as many Envs, so the two times per episode compare."""
    with tempfile.TemporaryDirectory(prefix=f"replay-{agent}-") as scratch:
        out = Path(scratch)
        started = time.perf_counter()
        subprocess.run([str(Path(sys.executable).with_name("admindesk")), "run", "--agent", agent,
                        "--tasks", ",".join(task.id for task in tasks), "--workers", str(workers),
                        "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
        run_s = time.perf_counter() - started
        run = json.loads((out / "run.json").read_text())
        jobs = [ReplayJob(episode=line["folder"], task_id=line["task_id"], record_path=record_file(out / line["folder"]))
                for line in run["episodes"] if line.get("folder") and record_file(out / line["folder"])]
        started = time.perf_counter()
        outcomes = replay_jobs(jobs, replay_settings(run, TASKS_ROOT), workers)
        replay_s = time.perf_counter() - started
    disagreeing = [outcome for outcome in outcomes if outcome.findings]
    return {"agent": agent, "episodes": len(outcomes), "agreeing": len(outcomes) - len(disagreeing),
            "run_s_per_episode": run_s / max(len(tasks), 1), "replay_s_per_episode": replay_s / max(len(jobs), 1),
            "findings": [finding.describe() for outcome in disagreeing for finding in outcome.findings]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="all", help="Task selection, as `admindesk run --tasks`.")
    parser.add_argument("--agents", default="reference,random,wrong-patient")
    parser.add_argument("--sample-per-template", type=int, default=None,
                        help="Replay only this many tasks of each template (seeded).")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="Workers running, and Envs replaying, at once.")
    args = parser.parse_args()
    tasks = select_tasks(args.tasks, load_tasks())
    if args.sample_per_template:
        tasks = stratified(tasks, args.sample_per_template, args.seed)
    print(f"{len(tasks)} task(s): {', '.join(task.id for task in tasks)}")
    total = agreeing = 0
    for agent in args.agents.split(","):
        figures = measure(agent.strip(), tasks, args.workers)
        total, agreeing = total + figures["episodes"], agreeing + figures["agreeing"]
        print(f"{figures['agent']:<14} {figures['agreeing']}/{figures['episodes']} episodes replay to their record "
              f"({100 * figures['agreeing'] / max(figures['episodes'], 1):.1f}%); run {figures['run_s_per_episode']:.1f} s, "
              f"replay {figures['replay_s_per_episode']:.1f} s per episode")
        for finding in figures["findings"]:
            print(f"    {finding}")
    print(f"overall: {agreeing}/{total} ({100 * agreeing / max(total, 1):.1f}%) agree")


if __name__ == "__main__":
    main()
