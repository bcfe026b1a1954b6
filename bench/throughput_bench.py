"""Episodes per minute of an agent (default: the reference agent) with 1 and 2 workers on
the same task sample, their ratio, and peak memory per worker.

Memory is the proportional set size (PSS: a page shared by n processes counts 1/n to
each, so shared pages count once) summed over a worker process and everything below it
(its four app processes, the Playwright driver, Chromium and its renderers), read from
/proc/<pid>/smaps_rollup once a second; the peak over the run is reported per worker.
Worker start-up (apps, browser) is inside the timed span, as it is in a real run.

Targets: ratio >= 1.6 on 2 cores; <= 600 MB PSS per worker. Linux only.
"""
from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from admindesk.harness import faults
from admindesk.harness.cli_run import select_tasks
from admindesk.harness.run_pool import Job, LocalBackend, LocalWorker, drive
from admindesk.harness.run_worker import WorkerConfig
from admindesk.verifiers.task_model import load_tasks

RATIO_TARGET = 1.6
PSS_TARGET_MB = 600.0


def pss_kb(pid: int) -> int:
    """PSS of one process in kB (0 if it exited meanwhile)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def tree_pss_mb(root: int) -> float:
    """PSS of `root` and every process below it, in MB."""
    return sum(pss_kb(pid) for pid in [root, *faults.descendants(root)]) / 1024


class SampledBackend(LocalBackend):
    """Local workers whose process trees are sampled for PSS while the run goes on."""

    def __init__(self, config: WorkerConfig) -> None:
        super().__init__(config)
        self.peaks: dict[int, float] = {}
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
                    pid = worker.process.pid
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), tree_pss_mb(pid))

    def shutdown(self) -> None:
        self._stop.set()
        self._sampler.join()


def measure(config: WorkerConfig, tasks, workers: int) -> dict:
    """Run every task once with `workers` workers; episodes per minute and peak PSS."""
    backend = SampledBackend(config)
    with tempfile.TemporaryDirectory(prefix="admindesk-throughput-") as out:
        started = time.perf_counter()
        state = drive(backend, [Job(task, 0) for task in tasks], workers, Path(out))
        elapsed = time.perf_counter() - started
    results = [summary["result"] for summary in state.summaries.values()]
    return {"workers": workers, "episodes": len(results), "wall_s": round(elapsed, 1),
            "episodes_per_min": round(len(results) / elapsed * 60, 2),
            "results": {r: results.count(r) for r in sorted(set(results))},
            "infra_retries": len(state.retried),
            "errors": sorted({f"{s['task_id']}: {(s.get('error') or '').splitlines()[0][:160]}"
                              for s in state.summaries.values() if s["result"] in ("error", "timeout")}),
            "peak_pss_mb_per_worker": sorted(round(v, 1) for v in backend.peaks.values())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="reference")
    parser.add_argument("--tasks", default="template=portal_b_precert",
                        help="task selection, as for `admindesk run --tasks`")
    parser.add_argument("--sample", type=int, default=4, help="how many of the selected tasks to run")
    args = parser.parse_args()
    tasks = select_tasks(args.tasks, load_tasks())[: args.sample]
    if not tasks:
        parser.error(f"the selection {args.tasks!r} names no task")
    config = WorkerConfig(agent_name=args.agent, keep_screenshots=False)
    print(f"{args.agent} on {len(tasks)} tasks: {', '.join(t.id for t in tasks)}")
    runs = [measure(config, tasks, workers) for workers in (1, 2)]
    for run in runs:
        print(f"{run['workers']} worker(s): {run['episodes']} episodes in {run['wall_s']} s = "
              f"{run['episodes_per_min']} episodes/min; results {run['results']}; "
              f"infra retries {run['infra_retries']}; peak PSS per worker {run['peak_pss_mb_per_worker']} MB")
        for error in run["errors"]:
            print(f"  {error}")
    ratio = runs[1]["episodes_per_min"] / runs[0]["episodes_per_min"]
    peak = max(max(run["peak_pss_mb_per_worker"], default=0.0) for run in runs)
    print(f"ratio 2/1 workers: {ratio:.2f} (target >= {RATIO_TARGET}); "
          f"peak PSS per worker: {peak:.0f} MB (target <= {PSS_TARGET_MB:.0f} MB)")


if __name__ == "__main__":
    main()
