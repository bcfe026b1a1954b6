"""A parallel run: N workers (local processes, or Ray actors via run_ray), a queue of
(task, trial) episodes, results back to the driver, which alone writes the run folder.

Each worker owns an Env (its own four app processes and Chromium), so episodes are as
isolated as in a serial run and a deterministic agent gets the same results.

Failure handling, by kind:
- agent failure or agent exception: scored as the episode's result (fail / error);
- episode timeout (`episode_timeout_s` of wall time): the worker is killed and replaced,
  the episode is `timeout`, scored as a failure and rerun by a resumed run;
- infra error (an app died, the browser crashed, a worker could not start or vanished,
  the model endpoint failed: down, key refused, 429/5xx after the SDK's retries):
  the worker is discarded and the episode is retried on a fresh worker, at most
  `max_infra_retries` times; every retry is listed in run.json, and an episode that keeps
  failing ends as `infra_error`, which no metric scores.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait as wait_connections
from pathlib import Path
from typing import Any, Callable, Protocol

from admindesk.harness.env import faults
from admindesk.harness.running.folder import (
    episode_name,
    install_episode,
    plan_episodes,
    run_versions,
    sweep_staging,
    write_json_atomic,
)
from admindesk.harness.running.inflight import InflightWorker
from admindesk.harness.running.metrics import run_metrics
from admindesk.harness.running.worker import EpisodeWorker, WorkerConfig, make_run_agent
from admindesk.harness.task_tools.folders import refuse_other_split, split_record
from admindesk.schema.task_model import Task

DEFAULT_EPISODE_TIMEOUT_S = 1800.0
DEFAULT_MAX_INFRA_RETRIES = 2


@dataclass(frozen=True)
class Job:
    """One episode to run: a task's trial, and how many times infra failed it already."""

    task: Task
    trial: int
    attempt: int = 0

    @property
    def name(self) -> str:
        return episode_name(self.task.id, self.trial)


class WorkerLost(Exception):
    """A worker vanished or could not start (an infra error of the episode it held)."""


class WorkerHandle(Protocol):
    """The driver's side of one worker, whatever runs it."""

    def submit(self, job: Job) -> None: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...


class Backend(Protocol):
    """Starts workers and waits for their replies."""

    def start_worker(self) -> WorkerHandle: ...

    def wait(self, handles: list[WorkerHandle], timeout: float
             ) -> list[tuple[WorkerHandle, dict[str, Any] | WorkerLost]]: ...

    def shutdown(self) -> None: ...


# ---- local processes ----------------------------------------------------------------------
def _worker_main(config: WorkerConfig, connection: Connection) -> None:
    """A local worker process: build the worker, then run jobs until told to stop."""
    if config.concurrency > 1:
        _inflight_worker_main(config, connection)
        return
    try:
        worker = EpisodeWorker(config)
    except Exception as exc:  # the first job's reply says why (an infra error)
        connection.send(WorkerLost(f"worker could not start: {type(exc).__name__}: {exc}"))
        return
    try:
        while True:
            job = connection.recv()
            if job is None:
                break
            connection.send(worker.run(job.task, job.trial, job.attempt))
    finally:
        worker.close()


def _inflight_worker_main(config: WorkerConfig, connection: Connection) -> None:
    """A local worker process with `config.concurrency` episodes in flight: jobs are read as
    they come and replies sent as lanes finish, in whatever order (each names its episode)."""
    try:
        worker = InflightWorker(config)
    except Exception as exc:
        connection.send(WorkerLost(f"worker could not start: {type(exc).__name__}: {exc}"))
        return
    replies: queue.Queue = queue.Queue()

    def send_replies() -> None:  # one sender: a reply may be MBs, and lanes must not block on the pipe
        while (reply := replies.get()) is not None:
            connection.send(reply)

    sender = threading.Thread(target=send_replies, name="replies", daemon=True)
    sender.start()

    def reply_of(job: Job, done: Future) -> dict[str, Any]:
        try:
            return done.result()
        except Exception as exc:  # a lane that broke outside the episode: retried elsewhere
            return {"episode": job.name, "summary": None, "files": {},
                    "infra": f"worker error: {type(exc).__name__}: {exc}"}

    try:
        while (job := connection.recv()) is not None:
            worker.submit(job).add_done_callback(lambda done, job=job: replies.put(reply_of(job, done)))
    finally:
        worker.close()
        replies.put(None)
        sender.join()


class LocalWorker:
    """A worker in a local process, talked to over a pipe. `main(config, connection)` is what
    the process runs: by default whole episodes (`_worker_main`); the Inspect integration
    runs one whose Env is stepped by the driver's model."""

    def __init__(self, config: Any, main: Callable[[Any, Connection], None] = _worker_main) -> None:
        context = multiprocessing.get_context("spawn")  # a clean interpreter: no inherited threads
        self.connection, child_end = context.Pipe()
        self.process = context.Process(target=main, args=(config, child_end), daemon=False)
        self.process.start()
        child_end.close()

    def submit(self, job: Job) -> None:
        self.connection.send(job)

    def kill(self) -> None:
        """SIGKILL the worker and everything below it (apps, Playwright, Chromium)."""
        for pid in [*faults.descendants(self.process.pid), self.process.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
        self.process.join(timeout=10)
        self.connection.close()

    def close(self) -> None:
        """Ask the worker to stop its Env and exit; kill it if it does not."""
        try:
            self.connection.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=60)
        if self.process.is_alive():
            self.kill()
        self.connection.close()


class LocalBackend:
    """Workers as local processes."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config

    def start_worker(self) -> LocalWorker:
        return LocalWorker(self.config)

    def wait(self, handles: list[LocalWorker], timeout: float
             ) -> list[tuple[LocalWorker, dict[str, Any] | WorkerLost]]:
        by_connection = {handle.connection: handle for handle in handles}
        replies = []
        for connection in wait_connections(list(by_connection), timeout=timeout):
            handle = by_connection[connection]
            try:
                replies.append((handle, connection.recv()))
            except (EOFError, OSError) as exc:
                replies.append((handle, WorkerLost(f"worker process exited ({type(exc).__name__}, "
                                                   f"exit code {handle.process.exitcode})")))
        return replies

    def shutdown(self) -> None:
        """Nothing beyond the workers, which the driver closes."""


# ---- the driver ---------------------------------------------------------------------------
@dataclass
class RunState:
    """What the driver knows while a run goes on."""

    jobs_total: int
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    retried: list[dict[str, Any]] = field(default_factory=list)


def drive(backend: Backend, jobs: list[Job], workers: int, out_dir: Path, *,
          episode_timeout_s: float = DEFAULT_EPISODE_TIMEOUT_S,
          max_infra_retries: int = DEFAULT_MAX_INFRA_RETRIES,
          on_episode: Callable[[dict[str, Any]], None] | None = None,
          state: RunState | None = None, concurrency: int = 1) -> RunState:
    """Run `jobs` on at most `workers` workers of `backend`, each with up to `concurrency`
    episodes in flight, installing each finished episode into `out_dir` as it arrives."""
    state = state or RunState(jobs_total=len(jobs))
    pending: deque[Job] = deque(jobs)
    # Every live worker -> its episodes in flight (name -> job, start time).
    live: dict[WorkerHandle, dict[str, tuple[Job, float]]] = {}

    def finish(summary: dict[str, Any]) -> None:
        state.summaries[episode_name(summary["task_id"], summary["trial"])] = summary
        if on_episode is not None:
            on_episode(summary)

    def infra_failure(job: Job, reason: str, summary: dict[str, Any] | None) -> None:
        state.retried.append({"episode": job.name, "attempt": job.attempt, "reason": reason})
        if job.attempt < max_infra_retries:
            pending.appendleft(Job(job.task, job.trial, job.attempt + 1))
            return
        base = summary or {"task_id": job.task.id, "trial": job.trial, "subtask_pass_rate": 0.0,
                           "first_failing_subtask": None, "steps": 0, "wall_s": 0.0,
                           "folder": job.name, "workflow": job.task.workflow,
                           "difficulty": job.task.difficulty, "challenge": job.task.challenge}
        finish({**base, "result": "infra_error", "error": reason, "attempt": job.attempt})

    def lose(handle: WorkerHandle, reason: str) -> None:
        """Kill a worker; the episodes it still had in flight are infra failures."""
        handle.kill()
        for job, _started in live.pop(handle, {}).values():
            infra_failure(job, reason, None)

    try:
        while pending or any(live.values()):
            while pending:
                handle = next((h for h, flying in live.items() if len(flying) < concurrency), None)
                if handle is None:
                    if len(live) >= workers:
                        break
                    handle = backend.start_worker()
                    live[handle] = {}
                job = pending.popleft()
                try:
                    handle.submit(job)
                except (BrokenPipeError, OSError) as exc:
                    live[handle][job.name] = (job, time.monotonic())
                    lose(handle, f"worker unreachable: {exc}")
                    continue
                live[handle][job.name] = (job, time.monotonic())
            busy = [handle for handle, flying in live.items() if flying]
            if not busy:  # every start just failed for good: nothing left to wait on
                continue
            now = time.monotonic()
            next_deadline = min(started + episode_timeout_s for handle in busy
                                for _job, started in live[handle].values())
            for handle, reply in backend.wait(busy, timeout=max(0.05, next_deadline - now)):
                if handle not in live:
                    continue  # lost with an earlier reply of this batch
                if isinstance(reply, WorkerLost):
                    lose(handle, str(reply))
                    continue
                job, _started = live[handle].pop(reply["episode"])
                if reply["infra"] is not None:
                    if concurrency == 1:  # a fresh worker takes the retry: this one's Env broke
                        handle.close()
                        del live[handle]
                    # With episodes in flight, the others go on: the lanes' next reset
                    # restarts a dead app and relaunches a lost browser.
                    infra_failure(job, reply["infra"], reply["summary"])
                else:
                    install_episode(out_dir, job.name, reply["files"])
                    finish(reply["summary"])
            now = time.monotonic()
            for handle, flying in list(live.items()):
                late = [(job, started) for job, started in flying.values() if now - started >= episode_timeout_s]
                if not late:
                    continue
                for job, started in late:
                    del flying[job.name]
                    finish({"task_id": job.task.id, "trial": job.trial, "result": "timeout",
                            "subtask_pass_rate": 0.0, "first_failing_subtask": None, "steps": 0,
                            "wall_s": round(now - started, 2), "folder": job.name,
                            "workflow": job.task.workflow, "difficulty": job.task.difficulty,
                            "challenge": job.task.challenge, "attempt": job.attempt,
                            "error": f"episode exceeded {episode_timeout_s:g} s"})
                lose(handle, f"worker killed: an episode in flight beside it exceeded {episode_timeout_s:g} s")
    finally:
        for handle, flying in live.items():
            if flying:
                handle.kill()
            else:
                handle.close()
        backend.shutdown()
    return state


def run_parallel(config: WorkerConfig, tasks: list[Task], out_dir: Path, *, trials: int = 1,
                 workers: int = 1, backend: str = "local", ray_address: str | None = None,
                 episode_timeout_s: float = DEFAULT_EPISODE_TIMEOUT_S,
                 max_infra_retries: int = DEFAULT_MAX_INFRA_RETRIES,
                 on_episode: Callable[[dict[str, Any]], None] | None = None,
                 on_plan: Callable[[int, int], None] | None = None,
                 retry_errors: bool = False) -> dict[str, Any]:
    """Run `config`'s agent on every task `trials` times with `workers` workers; resume a
    run already in `out_dir` (of the same split only: see task_folders), rerunning its
    errored episodes too with `retry_errors` (folder.needs_retry). Writes and returns
    run.json. `on_plan(total, already_done)` is told the size of the run before it starts."""
    if trials < 1 or workers < 1:
        raise ValueError("trials and workers must be at least 1")
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be local or ray, not {backend!r}")
    if config.concurrency > 1 and config.channel != "screens":
        raise ValueError("--concurrency above 1 shares one browser among episodes: the api channel "
                         "runs one episode per worker (use --workers)")
    make_run_agent(config)  # a bad agent name or option fails here, before anything is written
    split = split_record(config.tasks_dir)
    refuse_other_split(out_dir, split)
    out_dir.mkdir(parents=True, exist_ok=True)
    sweep_staging(out_dir)
    names = [episode_name(task.id, trial) for task in tasks for trial in range(trials)]
    done, to_run = plan_episodes(out_dir, names, retry_errors=retry_errors)
    running = set(to_run)
    jobs = [Job(task, trial) for task in tasks for trial in range(trials)
            if episode_name(task.id, trial) in running]
    state = RunState(jobs_total=len(names), summaries=dict(done))
    if on_plan is not None:
        on_plan(len(names), len(done))
    header = {"agent": config.agent_name,
              "agent_options": {k: str(v) for k, v in config.agent_options.items()},
              "observation": config.observation, "channel": config.channel, "prompt_mode": config.prompt_mode,
              "max_steps": config.max_steps, "tasks": [t.id for t in tasks], "trials": trials,
              "workers": workers, "concurrency": config.concurrency, "backend": backend, "split": split,
              "versions": run_versions(tasks, config.frame_size)}
    started = time.perf_counter()

    def write_run_json() -> dict[str, Any]:
        episodes = [state.summaries[name] for name in names if name in state.summaries]
        run_json = {**header, "wall_s": round(time.perf_counter() - started, 2),
                    "resumed_episodes": sorted(done), "infra_retries": state.retried,
                    "episodes": episodes, "metrics": run_metrics(episodes)}
        write_json_atomic(out_dir / "run.json", run_json)
        return run_json

    def episode_done(summary: dict[str, Any]) -> None:
        write_run_json()  # after every episode, so an interrupted run's run.json is current
        if on_episode is not None:
            on_episode(summary)

    if backend == "ray":
        from admindesk.harness.running.ray_workers import RayBackend
        chosen: Backend = RayBackend(config, address=ray_address)
    else:
        chosen = LocalBackend(config)
    write_run_json()
    try:
        drive(chosen, jobs, workers, out_dir, episode_timeout_s=episode_timeout_s,
              max_infra_retries=max_infra_retries, on_episode=episode_done, state=state,
              concurrency=config.concurrency)
    finally:  # on Ctrl-C too: run.json then lists exactly the episodes finished so far
        run_json = write_run_json()
    return run_json
