"""The `admindesk` sandbox type: Inspect's per-task and per-sample lifecycle for our Env
workers. Inspect calls `task_init` once per task of an eval and `task_cleanup` at its end,
`sample_init`/`sample_cleanup` around each sample; so the pool of Env workers (host.py)
lives exactly as long as the eval's task, and each sample borrows one worker.

The sandbox is a browser, not a machine: it has no shell and no files to read or write
(there is no exec anywhere in AdminDesk); the solver drives it through `host` only.
"""
from __future__ import annotations

from typing import Any, ClassVar

import anyio
from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from pydantic import BaseModel

from admindesk.harness.integrations.inspect.host import EpisodeHost, HostConfig, HostPool

SANDBOX_NAME = "admindesk"
NO_SHELL = "the AdminDesk sandbox is a browser driven through actions: it has no shell or files"


def _config(config: SandboxEnvironmentConfigType | None) -> HostConfig:
    if isinstance(config, HostConfig):
        return config
    if config is None:
        return HostConfig()
    raise ValueError(f"the {SANDBOX_NAME} sandbox takes a HostConfig, not {config!r}")


@sandboxenv(name=SANDBOX_NAME)
class AdminDeskSandbox(SandboxEnvironment):
    """One sample's borrowed Env worker, and what the episode left for the scorer."""

    # (task name, config) -> the pool of that eval task's workers.
    _pools: ClassVar[dict[tuple[str, HostConfig], HostPool]] = {}

    def __init__(self, host: EpisodeHost) -> None:
        super().__init__()
        self.host = host
        # The solver's episode (solver.Episode), which the scorer takes the record from.
        self.episode: Any = None

    @classmethod
    def _pool(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> HostPool:
        key = (task_name, _config(config))
        if key not in cls._pools:
            cls._pools[key] = HostPool(key[1])
        return cls._pools[key]

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return HostConfig(**config)

    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        cls._pool(task_name, config)  # workers start with the first samples, as many as run at once

    @classmethod
    async def sample_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                          metadata: dict[str, str]) -> dict[str, SandboxEnvironment]:
        return {"default": cls(cls._pool(task_name, config).acquire())}

    @classmethod
    async def sample_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                             environments: dict[str, SandboxEnvironment], interrupted: bool) -> None:
        pool = cls._pool(task_name, config)
        for environment in environments.values():
            # An interrupted episode may have left a request running in the worker.
            pool.release(environment.as_type(AdminDeskSandbox).host, discard=interrupted)

    @classmethod
    async def task_cleanup(cls, task_name: str, config: SandboxEnvironmentConfigType | None,
                           cleanup: bool) -> None:
        pool = cls._pools.pop((task_name, _config(config)), None)
        if pool is not None:
            await anyio.to_thread.run_sync(pool.close)

    async def exec(self, cmd: list[str], input: str | bytes | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None, user: str | None = None, timeout: int | None = None,
                   timeout_retry: bool = True, concurrency: bool = True) -> ExecResult[str]:
        raise NotImplementedError(NO_SHELL)

    async def write_file(self, file: str, contents: str | bytes) -> None:
        raise NotImplementedError(NO_SHELL)

    async def read_file(self, file: str, text: bool = True) -> str | bytes:  # type: ignore[override]
        raise NotImplementedError(NO_SHELL)
