"""Episodes per minute of an agent (default: the reference agent) with 1 and 2 workers on
the same task sample, their ratio, and peak memory per worker.

Memory is the proportional set size (PSS: a page shared by n processes counts 1/n to
each, so shared pages count once) summed over a worker process and everything below it
(its four app processes, the Playwright driver, Chromium and its renderers), read from
/proc/<pid>/smaps_rollup once a second; the peak over the run is reported per worker.
Worker start-up (apps, browser) is inside the timed span, as it is in a real run.

`--breakdown` also prints, for each worker, its PSS by process kind (the worker itself,
each app, the Playwright driver, Chromium's browser/GPU/utility/renderer processes) at
the sample where the worker's total peaked, and the CPU seconds each kind used over the
run (as last sampled: up to a second of a process's final work can be missed). CPU
seconds per episode over the wall time of an episode is how many cores one worker keeps
busy, which bounds what a second worker can add on 2 cores: with 1 and 2 workers measured,
the last lines give that bound (the ceiling), counting the extra CPU the same episodes
cost when two workers share the cores.

`--at-rest` first starts the workers and measures each once it is up and before its first
episode: the fixed cost of the processes a worker owns, with no page open.

Targets: ratio >= 1.6 on 2 cores; <= 600 MB PSS per worker. Linux only.
"""
from __future__ import annotations

import argparse
import os
import re
import tempfile
import threading
import time
from pathlib import Path

from pydantic import ValidationError

from admindesk.harness.cli.run import select_tasks
from admindesk.harness.env import faults
from admindesk.harness.env.app_zygote import ZYGOTE_MODULE
from admindesk.harness.env.observation import OBSERVATION_MODES
from admindesk.harness.env.services import APP_NAMES
from admindesk.harness.running.pool import Job, LocalBackend, LocalWorker, drive
from admindesk.harness.running.worker import WorkerConfig
from admindesk.schema.task_model import load_tasks

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
RATIO_TARGET = 1.6
PSS_TARGET_MB = 600.0
REST_TIMEOUT_S = 120.0
# What a started worker has before its first episode (a renderer comes with the first page).
REST_PARTS = {"worker", "driver", "chromium:browser", *(f"app:{name}" for name in APP_NAMES)}


def pss_kb(pid: int) -> int:
    """PSS of one process in kB (0 if it exited meanwhile)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds `pid` has used so far (0 if it exited meanwhile)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


def process_kind(pid: int, root: int) -> str:
    """What process `pid` is within the worker `root`: worker, app:NAME, driver, chromium:TYPE."""
    if pid == root:
        return "worker"
    command = faults.cmdline(pid)
    if ZYGOTE_MODULE in command:  # the zygote and the apps it forked (named by their comm)
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            return "other"
        return f"app:{name}" if name in APP_NAMES else "app-zygote"
    app = re.search(r"admindesk\.envs\.(\w+)", command)
    if app:
        return f"app:{app.group(1)}"
    if "run-driver" in command:
        return "driver"
    if "chromium" not in command:
        return "other"
    kind = re.search(r"--type=(\S+)", command)
    if kind is None:
        return "chromium:browser"
    utility = re.search(r"--utility-sub-type=([\w]+)", command)
    return f"chromium:{kind.group(1)}" + (f":{utility.group(1)}" if utility else "")


def pss_by_kind(root: int, seen: dict[int, tuple[str, float]] | None = None) -> dict[str, float]:
    """PSS in MB by process kind of `root` and every process below it now; `seen` (pid ->
    (kind, CPU seconds so far)) is updated, and names the kind of a process that exited."""
    seen = {} if seen is None else seen
    kinds: dict[str, float] = {}
    for pid in [root, *faults.descendants(root)]:
        kind = process_kind(pid, root)
        if kind == "other" and pid in seen:  # exited (a zombie has no command line)
            kind = seen[pid][0]
        # A process caught exiting reads as 0 CPU seconds: keep what it had used by then.
        seen[pid] = (kind, max(cpu_s(pid), seen[pid][1] if pid in seen else 0.0))
        kinds[kind] = kinds.get(kind, 0.0) + pss_kb(pid) / 1024
    return kinds


def at_rest(config: WorkerConfig, workers: int, timeout: float = REST_TIMEOUT_S) -> list[dict[str, float]]:
    """PSS by kind of each of `workers` started workers, before any episode: what the
    parts a worker must own (apps, browser, driver, itself) cost with no page open.

    A worker is at rest once its apps, driver and browser are up and its total has stayed
    within 1% for three one-second samples.
    """
    backend = LocalBackend(config)
    handles = [backend.start_worker() for _ in range(workers)]
    try:
        history: dict[int, list[dict[str, float]]] = {handle.process.pid: [] for handle in handles}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(1.0)
            for pid, samples in history.items():
                samples.append(pss_by_kind(pid))
            if all(_resting(samples) for samples in history.values()):
                return [samples[-1] for samples in history.values()]
        raise SystemExit(f"the workers did not come to rest within {timeout:.0f} s")
    finally:
        for handle in handles:
            handle.close()


def _resting(samples: list[dict[str, float]]) -> bool:
    if len(samples) < 3 or not REST_PARTS <= set(samples[-1]):
        return False
    totals = [sum(sample.values()) for sample in samples[-3:]]
    return max(totals) <= min(totals) * 1.01


class SampledBackend(LocalBackend):
    """Local workers whose process trees are sampled for PSS while the run goes on."""

    def __init__(self, config: WorkerConfig) -> None:
        super().__init__(config)
        self.peaks: dict[int, float] = {}
        # Worker pid -> PSS per process kind at the sample where its total peaked.
        self.peak_kinds: dict[int, dict[str, float]] = {}
        # Worker pid -> {pid below it: (kind, CPU seconds when last seen)}.
        self.cpu_seen: dict[int, dict[int, tuple[str, float]]] = {}
        self._workers: list[LocalWorker] = []
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def start_worker(self) -> LocalWorker:
        worker = super().start_worker()
        self._workers.append(worker)
        return worker

    def _sample(self) -> None:
        while not self._stop.wait(1.0):
            for worker in list(self._workers):
                if worker.process.is_alive():
                    self._sample_worker(worker.process.pid)

    def _sample_worker(self, root: int) -> None:
        """PSS by kind of `root` and every process below it now (kept if the worker's peak),
        and each process's CPU seconds so far."""
        kinds = pss_by_kind(root, self.cpu_seen.setdefault(root, {}))
        if sum(kinds.values()) > self.peaks.get(root, 0.0):
            self.peaks[root], self.peak_kinds[root] = sum(kinds.values()), kinds

    def cpu_by_kind(self, worker_pid: int) -> dict[str, float]:
        """CPU seconds per process kind of one worker over the run."""
        kinds: dict[str, float] = {}
        for kind, seconds in self.cpu_seen.get(worker_pid, {}).values():
            kinds[kind] = kinds.get(kind, 0.0) + seconds
        return kinds

    def shutdown(self) -> None:
        self._stop.set()
        self._sampler.join()


def measure(config: WorkerConfig, tasks, workers: int) -> dict:
    """Run every task once with `workers` workers; episodes per minute and peak PSS."""
    backend = SampledBackend(config)
    with tempfile.TemporaryDirectory(prefix="admindesk-throughput-") as out:
        started = time.perf_counter()
        state = drive(backend, [Job(task, 0) for task in tasks], workers, Path(out), concurrency=config.concurrency)
        elapsed = time.perf_counter() - started
    results = [summary["result"] for summary in state.summaries.values()]
    return {"workers": workers, "episodes": len(results), "wall_s": round(elapsed, 1),
            "episodes_per_min": round(len(results) / elapsed * 60, 2),
            "results": {r: results.count(r) for r in sorted(set(results))},
            "infra_retries": len(state.retried),
            "errors": sorted({f"{s['task_id']}: {(s.get('error') or '').splitlines()[0][:160]}"
                              for s in state.summaries.values() if s["result"] in ("error", "timeout")}),
            "peak_pss_mb_per_worker": sorted(round(v, 1) for v in backend.peaks.values()),
            "peak_breakdown": [backend.peak_kinds[pid] for pid in sorted(backend.peaks)],
            "cpu_breakdown": [backend.cpu_by_kind(pid) for pid in sorted(backend.peaks)]}


def print_breakdown(kinds: dict[str, float], unit: str) -> None:
    """One worker's figures by process kind, largest first."""
    for kind, value in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"    {kind:<34} {value:7.1f} {unit}")


def print_ceiling(one: dict, two: dict) -> None:
    """What the CPU figures allow two workers on 2 cores: one worker keeps `cores` busy,
    and the same episodes cost `inflation` times the CPU when two workers share the
    cores; even perfectly packed, the ratio cannot pass 2 / (cores * inflation)."""
    cpu_one = sum(sum(kinds.values()) for kinds in one["cpu_breakdown"])
    cpu_two = sum(sum(kinds.values()) for kinds in two["cpu_breakdown"])
    if not cpu_one or two["episodes"] != one["episodes"]:
        return
    cores, inflation = cpu_one / one["wall_s"], cpu_two / cpu_one
    print(f"one worker keeps {cores:.2f} cores busy; two workers use {inflation:.2f}x its CPU for the "
          f"same episodes: ceiling on 2 cores {2 / (cores * inflation):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="reference")
    parser.add_argument("--tasks", default="template=portal_b_precert",
                        help="task selection, as for `admindesk run --tasks`")
    parser.add_argument("--sample", type=int, default=4, help="how many of the selected tasks to run")
    parser.add_argument("--workers", default="1,2",
                        help="worker counts to measure, comma-separated (the ratio needs 1 and 2)")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="episodes in flight per worker (admindesk run --concurrency)")
    parser.add_argument("--observation", choices=OBSERVATION_MODES, default="screenshot",
                        help="what each step shows the agent (`none`: no frame, as `tasks check` runs the "
                             "scripted agents)")
    parser.add_argument("--breakdown", action="store_true",
                        help="print each worker's peak PSS by process kind")
    parser.add_argument("--at-rest", action="store_true",
                        help="first measure each worker's PSS once started, before any episode")
    args = parser.parse_args()
    try:
        counts = [int(count) for count in args.workers.split(",")]
    except ValueError:
        parser.error(f"--workers must be comma-separated whole numbers, not {args.workers!r}")
    if not counts or min(counts) < 1:
        parser.error(f"--workers needs at least one count of 1 or more, not {args.workers!r}")
    tasks = select_tasks(args.tasks, load_tasks())[: args.sample]
    if not tasks:
        parser.error(f"the selection {args.tasks!r} names no task")
    try:
        config = WorkerConfig(agent_name=args.agent, keep_screenshots=False, concurrency=args.concurrency,
                              observation=args.observation)
    except ValidationError as exc:  # its bounds are the runner's (--concurrency 1-64)
        parser.error("; ".join(f"--{error['loc'][0]}: {error['msg']}" for error in exc.errors()))
    if args.at_rest:
        for workers in counts:
            for number, kinds in enumerate(at_rest(config, workers), 1):
                print(f"{workers} worker(s), worker {number} at rest (started, no episode yet): "
                      f"{sum(kinds.values()):.0f} MB PSS")
                if args.breakdown:
                    print_breakdown(kinds, "MB")
    print(f"{args.agent} on {len(tasks)} tasks, observation {args.observation}, {args.concurrency} in flight "
          f"per worker: {', '.join(t.id for t in tasks)}")
    runs = [measure(config, tasks, workers) for workers in counts]
    for run in runs:
        print(f"{run['workers']} worker(s): {run['episodes']} episodes in {run['wall_s']} s = "
              f"{run['episodes_per_min']} episodes/min; results {run['results']}; "
              f"infra retries {run['infra_retries']}; peak PSS per worker {run['peak_pss_mb_per_worker']} MB")
        for error in run["errors"]:
            print(f"  {error}")
        if args.breakdown:
            for number, (kinds, cpu) in enumerate(zip(run["peak_breakdown"], run["cpu_breakdown"]), 1):
                print(f"  worker {number} PSS at its peak:")
                print_breakdown(kinds, "MB")
                print(f"  worker {number} CPU over the run ({sum(cpu.values()):.1f} s in all):")
                print_breakdown(cpu, "s")
    by_count = {run["workers"]: run for run in runs}
    if 1 in by_count and 2 in by_count:
        ratio = by_count[2]["episodes_per_min"] / by_count[1]["episodes_per_min"]
        print(f"ratio 2/1 workers: {ratio:.2f} (target >= {RATIO_TARGET})")
        print_ceiling(by_count[1], by_count[2])
    peak = max(max(run["peak_pss_mb_per_worker"], default=0.0) for run in runs)
    print(f"peak PSS per worker: {peak:.0f} MB (target <= {PSS_TARGET_MB:.0f} MB)")


if __name__ == "__main__":
    main()
