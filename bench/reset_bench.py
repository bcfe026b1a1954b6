"""Median time of `POST /_bench/reset` on every app, served as it is in a run.

Each app runs as its own waitress process (the harness' Services); the figure is the
round trip seen by the client, over --resets resets per app, after one warm-up reset.
The apps' template databases are built (or taken from the cache) before timing starts.
With --task, every reset names that task (the world + its case); its first reset, which
builds the task's templates unless cached, is timed apart. Target: <= 50 ms median per app.
First, the synthetic world's generation from its seed (what every template build starts
from), median of five. Target: < 2 s.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from admindesk.envs.world import generate_world
from admindesk.harness.env.services import APP_NAMES, Services, default_launcher
from admindesk.schema.task_model import TASKS_ROOT

TARGET_MS = 50.0


def time_resets(services: Services, app: str, count: int, task: str | None) -> tuple[list[float], int]:
    bench_api = services.processes[app]
    body = {"now": "2026-11-16T09:00:00", **({"task": task} if task else {})}
    bench_api.bench("POST", "/_bench/reset", body)  # warm-up
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        bench_api.bench("POST", "/_bench/reset", body)
        timings.append((time.perf_counter() - started) * 1000)
    snapshot = bench_api.bench("GET", "/_bench/snapshot")
    rows = sum(len(v) for k, v in snapshot.items() if k != "_meta")
    return timings, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resets", type=int, default=30, help="timed resets per app (>= 20)")
    parser.add_argument("--task", default=None, help="reset with this task's case (a task file's id)")
    parser.add_argument("--tasks-dir", type=Path, default=TASKS_ROOT, help="folder of task files")
    args = parser.parse_args()
    if args.resets < 1:
        parser.error("--resets must be at least 1")
    world_timings = []
    for _ in range(5):
        started = time.perf_counter()
        generate_world(20261129)
        world_timings.append(time.perf_counter() - started)
    world_median = statistics.median(world_timings)
    print(f"world generated in {world_median:.2f} s median of 5 ({'ok' if world_median < 2 else 'OVER'}, target < 2 s)")
    launchers = {name: [*default_launcher(name), f"--tasks-dir={args.tasks_dir}"] for name in APP_NAMES}
    started = time.perf_counter()
    with Services(launchers=launchers) as services:
        print(f"apps up in {time.perf_counter() - started:.1f} s: {', '.join(services.ports)}")
        if args.task:
            started = time.perf_counter()
            services.reset_all(task=args.task)
            print(f"first reset for {args.task} (builds its templates unless cached): "
                  f"{time.perf_counter() - started:.1f} s")
        print(f"{'app':<16}{'rows':>8}{'median ms':>11}{'p90 ms':>9}{'max ms':>9}  target <= {TARGET_MS:.0f} ms")
        for app in services.ports:
            timings, rows = time_resets(services, app, args.resets, args.task)
            p90 = statistics.quantiles(timings, n=10)[-1] if len(timings) > 1 else timings[0]
            median = statistics.median(timings)
            verdict = "ok" if median <= TARGET_MS else "OVER"
            print(f"{app:<16}{rows:>8}{median:>11.1f}{p90:>9.1f}{max(timings):>9.1f}  {verdict}")


if __name__ == "__main__":
    main()
