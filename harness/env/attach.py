"""Driving apps that run elsewhere: `Env(attach=AttachSpec(token, ports, bench_ports))`.

`admindesk serve` (or play mode) prints its bench token and both sets of ports (the
pages', the bench API's); an Env given those
drives the same app processes instead of starting its own. Every episode still begins
with a bench reset of every attached app, so episodes stay isolated; what an attached
Env cannot do is restart an app that died (it did not start it): that is an error
naming the app, and whoever started the apps restarts them.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from admindesk.harness.env.services import (
    _LIVE,
    APP_NAMES,
    HEALTH_TIMEOUT,
    AppProcess,
    ServiceError,
    Services,
)

ATTACHED_RESET_TIMEOUT = 180.0


@dataclass(frozen=True)
class AttachSpec:
    """Where running apps answer: their bench token, app name -> loopback port of its pages,
    and app name -> loopback port of its bench API."""

    token: str
    ports: dict[str, int] = field(default_factory=dict)
    bench_ports: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("an AttachSpec needs the apps' bench token (printed by `admindesk serve`)")
        if not self.ports:
            raise ValueError("an AttachSpec needs at least one app port")
        unknown = sorted(set(self.ports) - set(APP_NAMES))
        if unknown:
            raise ValueError(f"unknown app(s) {unknown}; apps are {list(APP_NAMES)}")
        if set(self.bench_ports) != set(self.ports):
            raise ValueError(f"every attached app needs its bench port too (printed by `admindesk serve`): "
                             f"pages' ports for {sorted(self.ports)}, bench ports for {sorted(self.bench_ports)}")
        bad = {name: port for name, port in [*self.ports.items(), *self.bench_ports.items()]
               if not isinstance(port, int) or not 0 < port < 65536}
        if bad:
            raise ValueError(f"ports must be integers in 1..65535, not {bad}")


@dataclass(eq=False)
class AttachedServices(Services):
    """Services over apps another process started: reset and snapshot, never start or stop."""

    spec: AttachSpec | None = None

    def start(self) -> "AttachedServices":
        """Check every attached app answers its health check with the token, then use them."""
        if self.spec is None:
            raise ServiceError("AttachedServices needs an AttachSpec")
        self.token = self.spec.token
        for name, port in self.spec.ports.items():
            app = AppProcess(name=name, ports=[port], bench_ports=[self.spec.bench_ports[name]],
                             data_dir=Path("."), token=self.token, log_path=Path("/dev/null"), launcher=[],
                             prepared=[set()])
            try:
                app.bench("GET", "/_bench/health", timeout=HEALTH_TIMEOUT)
            except ServiceError as exc:
                raise ServiceError(f"cannot attach to {name}'s bench API on port {app.bench_port} (is it "
                                   f"running, and are the token and ports the ones `admindesk serve` "
                                   f"printed?): {exc}") from exc
            self.processes[name] = app
        self._pool = ThreadPoolExecutor(max_workers=len(self.processes),
                                        thread_name_prefix="attached-apps")
        _LIVE.add(self)
        return self

    def _reset_one(self, app: AppProcess, now: datetime | None, task: str | None) -> Any:
        # A case world builds inside the reset (seconds on a loaded machine): an app we
        # cannot restart is given the time to finish instead of the hang timeout.
        body: dict[str, Any] = {} if now is None else {"now": now.isoformat()}
        if task is not None:
            body["task"] = task
        return app.bench("POST", "/_bench/reset", body, timeout=ATTACHED_RESET_TIMEOUT)

    def ensure_alive(self) -> list[str]:
        """Nothing to check locally: an attached app's liveness shows at its reset."""
        return []

    def restart(self, names: list[str], seen_starts: dict[str, int] | None = None) -> list[str]:
        """What a restart can be here: an app that still answers its health check was only
        slow (a case world building) and is retried as it is; one that does not answer is
        an error, since it runs in another process."""
        for name in names:
            try:
                self.processes[name].bench("GET", "/_bench/health", timeout=HEALTH_TIMEOUT)
            except ServiceError as exc:
                raise ServiceError(f"attached app {name} does not answer; it runs in another "
                                   f"process (restart it there): {exc}") from exc
        return names


def attached_services(spec: AttachSpec) -> AttachedServices:
    """Started (health-checked) services over the apps `spec` names."""
    return AttachedServices(spec=spec).start()
