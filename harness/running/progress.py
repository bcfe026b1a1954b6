"""A parallel run with a rich progress bar: episodes done, running success rate, ETA.

Until the first episode ends the bar says the workers are starting: a worker's apps build
their template databases on a machine's first run, a minute or two with nothing else to show.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from admindesk.harness.running.metrics import deterministic_pass
from admindesk.harness.running.pool import run_parallel
from admindesk.harness.running.worker import WorkerConfig
from admindesk.schema.task_model import Task


def run_with_progress(config: WorkerConfig, tasks: list[Task], out_dir: Path, *, trials: int,
                      workers: int, backend: str, ray_address: str | None,
                      episode_timeout_s: float, console: Console | None = None,
                      retry_errors: bool = False) -> dict[str, Any]:
    """`run_parallel` with a progress bar and one line per finished episode; returns run.json."""
    console = console or Console(stderr=True)
    scored = {"done": 0, "passed": 0, "deterministic": 0}
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("deterministic {task.fields[deterministic]} end-to-end {task.fields[success]}"),
                        TimeElapsedColumn(),
                        TextColumn("ETA"), TimeRemainingColumn(), console=console)
    # Deterministic success beside end-to-end: without a judge, rubric checks stay unjudged and
    # end-to-end success reads 0% even for a run that did every step right.
    bar = progress.add_task("starting", total=None, success="-", deterministic="-")

    def plan(total: int, already_done: int) -> None:
        progress.update(bar, total=total - already_done,
                        description=f"starting {min(workers, total - already_done)} worker(s)")
        if already_done:
            console.print(f"resuming: {already_done} of {total} episodes already finished in {out_dir}")
        if total > already_done:
            console.print("starting workers: each starts four apps and Chromium; on this machine's first "
                          "run the apps also build their template databases (a minute or two, once)")

    def episode(summary: dict[str, Any]) -> None:
        if summary["result"] != "infra_error":
            scored["done"] += 1
            scored["passed"] += summary["result"] == "pass"
            scored["deterministic"] += deterministic_pass(summary)
        share = {key: f"{scored[key] / scored['done']:.0%}" if scored["done"] else "-" for key in ("passed", "deterministic")}
        progress.update(bar, advance=1, success=share["passed"], deterministic=share["deterministic"],
                        description="episodes")
        detail = summary.get("agent_note") or (summary.get("error") or "").split("\n", 1)[0]
        console.print(f"{summary['task_id']:<16} t{summary['trial']} {summary['result']:<11} "
                      f"subtasks {summary['subtask_pass_rate']:.2f} steps {summary['steps']:>3} "
                      f"{summary['wall_s']:6.1f} s" + (f"  ({detail})" if detail else ""))

    with progress:
        return run_parallel(config, tasks, out_dir, trials=trials, workers=workers, backend=backend,
                            ray_address=ray_address, episode_timeout_s=episode_timeout_s,
                            on_episode=episode, on_plan=plan, retry_errors=retry_errors)
