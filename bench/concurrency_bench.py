"""Episodes in flight per worker: throughput, memory and step overhead at K = 1, 4, 8, 16, 24.

A model-bound run waits on its model most of the time, so what one worker does in an hour is
set by how many episodes it keeps in flight (`admindesk run --concurrency K`). This bench
stands a loopback model server in for the model: it speaks the OpenAI chat-completions
protocol to the `openai-compatible` agent (through the official SDK, as a real endpoint
would) and answers every turn with a valid action after a set latency (default 3 s):
scrolling the page down and up, clicking, pressing Tab. Each episode takes `--steps` steps
(the step budget ends it). One worker runs a fixed sample of tasks, `--episodes-per-lane`
episodes per lane, at each K.

Printed per K: episodes per hour (worker start-up included, as in a real run), the worker's
PSS at rest (started, no episode yet) and at its peak (its process, the apps, the Playwright
driver, Chromium and every renderer; shared pages counted once), PSS added per episode in
flight ((peak at K - peak at K=1) / (K - 1)), and the harness's time per step (Env.step's
own time, the model's excluded, median and 90th percentile) against K=1's.

Targets (issue: many episodes in flight): K=24 without errors, whole-run peak PSS <= 8 GB,
<= 250 MB added per episode in flight, and throughput at K=16 >= 10x K=1. Linux only.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from throughput_bench import SampledBackend, at_rest

from admindesk.harness.cli.run import select_tasks
from admindesk.harness.running.pool import Job, drive
from admindesk.harness.running.worker import WorkerConfig
from admindesk.schema.task_model import load_tasks

MODEL = "bench-model"
PEAK_TARGET_MB = 8 * 1024
PER_EPISODE_TARGET_MB = 250
SPEEDUP_TARGET = 10.0
# What the model answers, by step (cycled): each a valid action of the coordinate space.
ACTIONS = [{"type": "scroll", "x": 640, "y": 420, "dx": 0, "dy": 400},
           {"type": "scroll", "x": 640, "y": 420, "dx": 0, "dy": -400},
           {"type": "key", "keys": "Tab"},
           {"type": "click", "x": 1200, "y": 760}]


class ModelServer:
    """A loopback chat-completions endpoint answering each turn with an action after `latency`."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def do_GET(self) -> None:  # the agent's preflight lists the models
                self._reply({"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0,
                                                         "owned_by": "bench"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                turn = sum(message["role"] == "user" for message in body["messages"]) - 2
                time.sleep(server.latency)  # each request on its own thread: the model "thinking"
                server.calls += 1
                content = json.dumps({"thought": "bench", "action": ACTIONS[turn % len(ACTIONS)]})
                self._reply({"id": f"bench-{server.calls}", "object": "chat.completion", "created": 0,
                             "model": MODEL, "usage": {"prompt_tokens": 1000, "completion_tokens": 20,
                                                       "total_tokens": 1020},
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": content}}]})

            def _reply(self, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()


def step_times(out: Path) -> list[float]:
    """Env.step's own time (ms) of every step of every episode in run folder `out`."""
    times = []
    for trajectory in out.glob("*/trajectory.jsonl*"):
        opener = gzip.open if trajectory.suffix == ".gz" else open
        with opener(trajectory, "rt", encoding="utf-8") as lines:
            times += [entry["timing"]["total_ms"] for entry in map(json.loads, lines)
                      if entry.get("action") is not None and "timing" in entry]
    return times


def measure(config: WorkerConfig, tasks, concurrency: int, per_lane: int) -> dict:
    """One worker with `concurrency` episodes in flight over `per_lane` episodes per lane."""
    config = config.model_copy(update={"concurrency": concurrency})
    rest = sum(at_rest(config, 1)[0].values())
    jobs = [Job(tasks[index % len(tasks)], index // len(tasks)) for index in range(concurrency * per_lane)]
    backend = SampledBackend(config)
    with tempfile.TemporaryDirectory(prefix="admindesk-concurrency-") as out:
        started = time.perf_counter()
        state = drive(backend, jobs, 1, Path(out), concurrency=concurrency)
        elapsed = time.perf_counter() - started
        steps = step_times(Path(out))
    results = [summary["result"] for summary in state.summaries.values()]
    problems = sorted({f"{s['task_id']}: {s['result']}: {(s.get('error') or '').splitlines()[0][:160]}"
                       for s in state.summaries.values() if s["result"] in ("error", "timeout", "infra_error")})
    problems += sorted({f"infra retry: {retry['reason'].splitlines()[0][:160]}" for retry in state.retried})
    return {"k": concurrency, "episodes": len(results), "wall_s": elapsed,
            "per_hour": len(results) / elapsed * 3600, "rest_mb": rest,
            "peak_mb": max(backend.peaks.values(), default=0.0), "infra_retries": len(state.retried),
            "problems": problems, "step_median": statistics.median(steps) if steps else 0.0,
            "step_p90": statistics.quantiles(steps, n=10)[-1] if len(steps) >= 10 else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,4,8,16,24", help="episodes in flight to measure, comma-separated")
    parser.add_argument("--latency", type=float, default=3.0, help="seconds the model takes per turn")
    parser.add_argument("--steps", type=int, default=12, help="steps per episode")
    parser.add_argument("--episodes-per-lane", type=int, default=2)
    parser.add_argument("--tasks", default="pa-easy-01,pa-easy-02,appeal-easy-01,appeal-easy-02,dme-easy-01,dme-easy-02,"
                                           "pa-medium-01,dme-medium-01",
                        help="task selection, as for `admindesk run --tasks` (default: every workflow)")
    parser.add_argument("--sample", type=int, default=8, help="how many of the selected tasks to cycle through")
    args = parser.parse_args()
    try:
        levels = [int(level) for level in args.levels.split(",")]
    except ValueError:
        parser.error(f"--levels must be comma-separated whole numbers, not {args.levels!r}")
    if not levels or min(levels) < 1 or max(levels) > 64:
        parser.error(f"--levels must be between 1 and 64, not {args.levels!r}")
    for flag, value in (("--latency", args.latency), ("--steps", args.steps),
                        ("--episodes-per-lane", args.episodes_per_lane)):
        if value <= 0:
            parser.error(f"{flag} must be positive, not {value}")
    tasks = select_tasks(args.tasks, load_tasks())[: args.sample]
    if not tasks:
        parser.error(f"the selection {args.tasks!r} names no task")
    model = ModelServer(args.latency)
    config = WorkerConfig(agent_name="openai-compatible", keep_screenshots=False, max_steps=args.steps,
                          agent_options={"model": MODEL, "base_url": model.url, "max_retries": 0})
    print(f"model latency {args.latency:g} s, {args.steps} steps an episode, {args.episodes_per_lane} episode(s) "
          f"per lane, tasks {', '.join(task.id for task in tasks)}")
    runs = []
    try:
        for level in levels:
            run = measure(config, tasks, level, args.episodes_per_lane)
            runs.append(run)
            print(f"K={run['k']:>2}: {run['episodes']} episodes in {run['wall_s']:.0f} s = {run['per_hour']:.0f}/h; "
                  f"PSS at rest {run['rest_mb']:.0f} MB, peak {run['peak_mb']:.0f} MB; step (harness) median "
                  f"{run['step_median']:.0f} ms, p90 {run['step_p90']:.0f} ms; infra retries {run['infra_retries']}",
                  flush=True)
            for problem in run["problems"]:
                print(f"      {problem}")
    finally:
        model.close()
    base = next((run for run in runs if run["k"] == 1), None)
    if base is None:
        return
    for run in runs:
        if run["k"] == 1:
            continue
        added = (run["peak_mb"] - base["peak_mb"]) / (run["k"] - 1)
        print(f"K={run['k']:>2} vs K=1: throughput {run['per_hour'] / base['per_hour']:.1f}x; "
              f"{added:.0f} MB PSS added per episode in flight (target <= {PER_EPISODE_TARGET_MB}); "
              f"step overhead {run['step_median'] / base['step_median']:.2f}x median")
    peak = max(run["peak_mb"] for run in runs)
    print(f"peak PSS of any run: {peak:.0f} MB (target <= {PEAK_TARGET_MB}); "
          f"target throughput at K=16 >= {SPEEDUP_TARGET:g}x K=1")


if __name__ == "__main__":
    main()
