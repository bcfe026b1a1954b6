"""Many episodes in flight in one worker process: one Playwright driver, one Chromium (a
context each), one set of app processes (a lane each: own ports, databases, bench API).

A model-bound episode spends most of its time waiting for its model, so a worker's speed is
the number of episodes it has in flight, and what one more costs is its browser context,
its renderer and its databases, not four app processes, a Chromium and a driver.

The episodes run as greenlets on one thread, which owns the driver (cooperative.run_lanes):
their browser calls interleave in the driver's event loop, and whatever else they wait on
(the agent's model call, the scoring's judge) runs on a thread pool while the others go on.
Each lane is an EpisodeWorker over its own lane of the services, so an episode is run,
recorded and scored exactly as in a worker of one.
"""
from __future__ import annotations

import shutil
import tempfile
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from admindesk.harness.env.browser import Browser, acquire_playwright, release_playwright
from admindesk.harness.env.cooperative import Gate, run_lanes, wait_for
from admindesk.harness.env.services import Services
from admindesk.harness.running.worker import EpisodeWorker, WorkerConfig

# Resets run at most this many at a time per worker (see Env's reset_gate): they take most of
# an episode's harness and app CPU, and the episodes in flight step meanwhile.
RESETS_AT_ONCE = 2


class JobQueue:
    """Jobs handed to the lanes from other threads; a lane waits for its next one cooperatively."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._backlog: deque[tuple[Any, Future]] = deque()
        self._waiting: deque[Future] = deque()
        self._closed = False

    def put(self, job: Any) -> "Future[dict[str, Any]]":
        """Queue `job`; the future gets the lane's reply."""
        reply: Future[dict[str, Any]] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker is closed")
            if self._waiting:
                self._waiting.popleft().set_result((job, reply))
            else:
                self._backlog.append((job, reply))
        return reply

    def get(self) -> tuple[Any, Future] | None:
        """The next job and its reply future, or None once the queue is closed and empty."""
        with self._lock:
            if self._backlog:
                return self._backlog.popleft()
            if self._closed:
                return None
            waiter: Future = Future()
            self._waiting.append(waiter)
        return wait_for(waiter)

    def close(self) -> None:
        """No more jobs: lanes finish what they have, then stop."""
        with self._lock:
            self._closed = True
            while self._waiting:
                self._waiting.popleft().set_result(None)


class InflightWorker:
    """`config.concurrency` episodes in flight on one thread of this process (see the module
    docstring). `submit` may be called from any thread."""

    def __init__(self, config: WorkerConfig) -> None:
        if config.channel != "screens":
            raise ValueError("episodes in flight share a browser: the api channel runs one episode per worker")
        self.config = config
        self._jobs = JobQueue()
        self._ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._main, name="episode-lanes", daemon=True)
        self._thread.start()
        self._ready.result()  # raises what stopped the start

    def submit(self, job: Any) -> "Future[dict[str, Any]]":
        """Run `job` (a pool Job) on the next free lane; the future gets EpisodeWorker.run's reply."""
        return self._jobs.put(job)

    def close(self) -> None:
        """Let the lanes finish their episodes, then stop the apps and the browser."""
        self._jobs.close()
        self._thread.join()

    def _main(self) -> None:
        scratch = Path(tempfile.mkdtemp(prefix="admindesk-inflight-"))
        lanes = self.config.concurrency
        services = browser = None
        workers: list[EpisodeWorker] = []
        driver = acquire_playwright()
        # The thread that starts the apps must outlive them (their PR_SET_PDEATHSIG is
        # per thread): this one does, and restarts them too.
        try:
            services = self.services = Services(lanes=lanes, tasks_dir=self.config.tasks_dir).start()
            browser = Browser()
            gate = Gate(RESETS_AT_ONCE)
            workers = [EpisodeWorker(self.config, lane=(services.lane(index), browser, gate, scratch))
                       for index in range(lanes)]
        except BaseException as exc:
            self._close(workers, browser, services, scratch)
            release_playwright()
            self._ready.set_exception(exc)
            return
        self._ready.set_result(None)
        model_calls = ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="model-calls")

        def offload(fn: Callable[..., Any], *args: Any) -> Any:
            return wait_for(model_calls.submit(fn, *args))

        try:
            run_lanes(driver, [lambda worker=worker: self._lane(worker, offload) for worker in workers])
        finally:
            model_calls.shutdown(wait=False, cancel_futures=True)
            self._close(workers, browser, services, scratch)
            release_playwright()

    def _lane(self, worker: EpisodeWorker, offload: Callable[..., Any]) -> None:
        while (item := self._jobs.get()) is not None:
            job, reply = item
            try:
                reply.set_result(worker.run(job.task, job.trial, job.attempt, offload=offload))
            except BaseException as exc:  # the submitter's future carries it
                reply.set_exception(exc)

    @staticmethod
    def _close(workers: list[EpisodeWorker], browser: Browser | None, services: Services | None,
               scratch: Path) -> None:
        for worker in workers:
            worker.close()
        if browser is not None:
            browser.close()
        if services is not None:
            services.close()
        shutil.rmtree(scratch, ignore_errors=True)
