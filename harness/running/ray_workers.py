"""Workers as Ray actors, so a run spreads over a Ray cluster (`pip install admindesk[ray]`).

Each actor builds its own EpisodeWorker on its node (four apps and a Chromium there);
episode files come back to the driver as bytes, so the run folder is the driver's. Ray is
imported only when this backend is used. A run over a generated split (`--tasks-dir DIR`)
needs DIR at the same path on every node (a shared or copied folder): the actors' apps read
the task files there, and an actor that does not find it fails to start (an infra error).
"""
from __future__ import annotations

from typing import Any

from admindesk.harness.running.inflight import InflightWorker
from admindesk.harness.running.pool import Job, WorkerLost
from admindesk.harness.running.worker import EpisodeWorker, WorkerConfig


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("the ray backend needs Ray: pip install 'admindesk[ray]'") from exc
    return ray


class _ActorBody:
    """The actor's class body: one EpisodeWorker built in the actor's process, or with
    `concurrency` above 1 an InflightWorker, whose `run` calls (one per episode in flight,
    on the actor's threads) each wait for their lane's reply."""

    def __init__(self, config: WorkerConfig) -> None:
        self.worker = InflightWorker(config) if config.concurrency > 1 else EpisodeWorker(config)

    def run(self, job: Job) -> dict[str, Any]:
        if isinstance(self.worker, InflightWorker):
            return self.worker.submit(job).result()
        return self.worker.run(job.task, job.trial, job.attempt)

    def close(self) -> None:
        self.worker.close()


class RayWorker:
    """The driver's handle on one actor and the episodes it is running."""

    def __init__(self, actor_class: Any, config: WorkerConfig) -> None:
        self.actor = actor_class.options(max_concurrency=config.concurrency).remote(config)
        self.pending: list[Any] = []

    def submit(self, job: Job) -> None:
        self.pending.append(self.actor.run.remote(job))

    def kill(self) -> None:
        _ray().kill(self.actor, no_restart=True)

    def close(self) -> None:
        """Stop the actor's Env, then end the actor."""
        ray = _ray()
        try:
            ray.get(self.actor.close.remote(), timeout=120)
        except Exception:  # a broken actor cannot close itself; killing it frees the node
            pass
        ray.kill(self.actor, no_restart=True)


class RayBackend:
    """Workers as Ray actors (one CPU each); connects to `address` or starts a local Ray."""

    def __init__(self, config: WorkerConfig, *, address: str | None = None) -> None:
        ray = _ray()
        self.config = config
        self._started_ray = False
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
            self._started_ray = True
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0)(_ActorBody)

    def start_worker(self) -> RayWorker:
        return RayWorker(self._actor_class, self.config)

    def wait(self, handles: list[RayWorker], timeout: float
             ) -> list[tuple[RayWorker, dict[str, Any] | WorkerLost]]:
        ray = _ray()
        by_ref = {ref: handle for handle in handles for ref in handle.pending}
        ready, _ = ray.wait(list(by_ref), num_returns=1, timeout=timeout)
        replies = []
        for ref in ready:
            handle = by_ref[ref]
            handle.pending.remove(ref)
            try:
                replies.append((handle, ray.get(ref)))
            except ray.exceptions.RayError as exc:  # the actor died or could not start
                replies.append((handle, WorkerLost(f"ray actor lost: {type(exc).__name__}: {exc}")))
        return replies

    def shutdown(self) -> None:
        """Disconnect from Ray if this backend started it."""
        if self._started_ray:
            _ray().shutdown()
