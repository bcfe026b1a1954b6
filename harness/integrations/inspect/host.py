"""Env workers for an Inspect eval: local processes that each own an Env (four apps, one
Chromium) and play it one step at a time for the driver, whose Inspect model decides.

The processes are the runner's own (`running.pool.LocalWorker`, spawned clean); only what
they run differs: instead of whole episodes with an agent of their own (`_worker_main`),
`host_main` serves requests over the pipe:

    ("reset", Task)        -> (Observation, goal)
    ("step", action dict)  -> (Observation, terminated, truncated)
    ("record",)            -> EpisodeRecord
    None                   -> close the Env and exit

and answers each with ("ok", value) or ("error", "Kind: message"). A `HostPool` starts a
worker only when every one it has is busy and keeps them for the next sample, so an eval
starts as many workers as it runs samples at once (`--max-samples`), once.
"""
from __future__ import annotations

from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict

from admindesk.harness.running.pool import LocalWorker


class HostConfig(BaseModel):
    """How every worker of one eval builds its Env (the sandbox's config in the log)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    observation: str = "screenshot"
    tasks_dir: str | None = None
    frame_size: tuple[int, int] = (1280, 800)


class HostError(RuntimeError):
    """The worker's Env failed a request (or the worker is gone); the sample errors."""


def host_main(config: HostConfig, connection: Connection) -> None:
    """A worker process: build the Env, then serve requests until told to stop."""
    from admindesk.harness.env.environment import Env

    try:
        env = Env(config.observation, frame_size=config.frame_size,  # type: ignore[arg-type]
                  tasks_dir=Path(config.tasks_dir) if config.tasks_dir else None)
    except Exception as exc:  # the first request's reply says why
        connection.send(("error", f"the Env could not start: {type(exc).__name__}: {exc}"))
        return
    try:
        while True:
            try:
                request = connection.recv()
            except EOFError:  # the driver went away
                break
            if request is None:
                break
            connection.send(_serve(env, request))
    finally:
        env.close()


def _serve(env: Any, request: tuple[Any, ...]) -> tuple[str, Any]:
    kind = request[0]
    try:
        if kind == "reset":
            observation, info = env.reset(request[1])
            return "ok", (observation, info["goal"])
        if kind == "step":
            observation, terminated, truncated, _info = env.step(request[1])
            return "ok", (observation, terminated, truncated)
        if kind == "record":
            return "ok", env.record()
        return "error", f"unknown request {kind!r}"
    except Exception as exc:  # the Env's failure is the sample's error, not the worker's end
        return "error", f"{type(exc).__name__}: {exc}"


class EpisodeHost:
    """The driver's side of one worker: each request runs in a thread, so the event loop
    (other samples, the model calls) goes on while the Env works."""

    def __init__(self, config: HostConfig) -> None:
        self.worker = LocalWorker(config, main=host_main)
        # Set when a request failed: the Env may be in any state, so it is not reused.
        self.broken = False

    async def request(self, *request: Any) -> Any:
        """The worker's answer to `request` (HostError when it failed)."""
        return await anyio.to_thread.run_sync(self._request, request)

    def _request(self, request: tuple[Any, ...]) -> Any:
        try:
            self.worker.submit(request)  # type: ignore[arg-type]
            status, value = self.worker.connection.recv()
        except (EOFError, OSError) as exc:
            self.broken = True
            raise HostError(f"the Env worker exited (exit code {self.worker.process.exitcode})") from exc
        if status != "ok":
            self.broken = True
            raise HostError(value)
        return value

    def close(self) -> None:
        """Stop the worker's Env and the process (killed if it does not stop)."""
        if self.broken:
            self.worker.kill()
        else:
            self.worker.close()


class HostPool:
    """The workers of one eval task: idle ones are reused, a broken one is dropped."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self._idle: list[EpisodeHost] = []
        self._all: list[EpisodeHost] = []

    def acquire(self) -> EpisodeHost:
        """An idle worker, or a new one when all are busy."""
        if self._idle:
            return self._idle.pop()
        host = EpisodeHost(self.config)
        self._all.append(host)
        return host

    def release(self, host: EpisodeHost, *, discard: bool = False) -> None:
        """Give a worker back; a broken (or discarded) one is stopped instead."""
        if host.broken or discard:
            self._all.remove(host)
            host.close()
        else:
            self._idle.append(host)

    def close(self) -> None:
        """Stop every worker."""
        hosts, self._idle, self._all = self._all, [], []
        for host in hosts:
            host.close()
