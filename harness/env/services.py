"""The four apps as child processes: start, health, concurrent reset, restart, shutdown.

Every child runs in its own process group (so its whole tree can be killed at once) and
asks the kernel to SIGTERM it if the harness dies (PR_SET_PDEATHSIG), so no app outlives
the harness, not even after a SIGKILL. A registry closed at interpreter exit covers the
ordinary exit and exception paths.
"""
from __future__ import annotations

import atexit
import copy
import ctypes
import http.client
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from admindesk.harness.env.app_zygote import ForkedApp, Zygote, ZygoteError
from admindesk.harness.env.cooperative import pause, wait_for

APP_NAMES: tuple[str, ...] = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
HOST = "127.0.0.1"
BENCH_TOKEN_HEADER = "X-Bench-Token"
# How an app is given its bench token: a command line is readable by every local user
# (/proc/<pid>/cmdline), an environment only by the process's owner.
BENCH_TOKEN_ENV = "ADMINDESK_BENCH_TOKEN"
# Bench calls answer in milliseconds (a reset is a file copy, a snapshot a few table
# reads); an app that has not answered in these many seconds is hung, not busy.
HEALTH_TIMEOUT = 2.0
RESET_TIMEOUT = 5.0
# Building a task's template the first time takes seconds, more on a busy machine.
PREPARE_TIMEOUT = 120.0
SNAPSHOT_TIMEOUT = 10.0


class ServiceError(RuntimeError):
    """An app failed to start, answer, or reset."""


class AppUnreachable(ServiceError):
    """An app did not answer at all (dead, hung, or its port closed), as opposed to an error reply."""


def available_apps(names: tuple[str, ...] = APP_NAMES) -> list[str]:
    """The apps whose package can be run with `python -m` (has a `__main__` module)."""
    found = []
    for name in names:
        try:
            spec = importlib.util.find_spec(f"admindesk.envs.{name}.__main__")
        except ModuleNotFoundError:
            spec = None
        if spec is not None:
            found.append(name)
    return found


def default_launcher(name: str) -> list[str]:
    """The command (without its --port/--data-dir options) that runs app `name`."""
    return [sys.executable, "-m", f"admindesk.envs.{name}"]


def free_port() -> int:
    """A loopback port that was free a moment ago (the app binding it may still race)."""
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """`count` distinct loopback ports that were free a moment ago (each held until all are
    chosen, so none is handed out twice; the apps binding them may still race)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind((HOST, 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _die_with_parent() -> None:
    """Runs in the child before exec: its own process group, SIGTERM when the parent dies."""
    os.setsid()
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except OSError:
        pass  # not Linux: the process group and the atexit registry still apply


def bench_call(port: int, token: str, method: str, path: str, body: dict | None = None,
               timeout: float = RESET_TIMEOUT) -> Any:
    """One call to an app's bench API; returns the decoded JSON or raises ServiceError."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {BENCH_TOKEN_HEADER: token}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
    except OSError as exc:  # refused, reset, or timed out (socket.timeout is an OSError)
        raise AppUnreachable(f"{method} {path} on port {port}: {exc!r}") from exc
    finally:
        conn.close()
    if response.status != 200:
        raise ServiceError(f"{method} {path} on port {port}: HTTP {response.status} "
                           f"{data[:200]!r}")
    return json.loads(data)


@dataclass
class AppProcess:
    """One running app: its name, ports (pages, bench API), data folder and child process.

    An app process may serve several episodes at once, one per lane: lane i has the pages'
    port `ports[i]` and the bench port `bench_ports[i]`, a database of its own, and the peers
    `peers[i]` (see envs/common/serve.py). One lane is the usual case.
    """

    name: str
    ports: list[int]
    bench_ports: list[int]
    data_dir: Path
    token: str
    log_path: Path
    launcher: list[str]
    # The folder the app finds task files in (None: the app's default, the public suite).
    tasks_dir: Path | None = None
    # Forks the app from a shared image (None: the app runs `launcher` as a fresh process).
    zygote: Zygote | None = None
    process: subprocess.Popen | ForkedApp | None = None
    starts: int = 0
    # True while a lane restarts it (the others wait for that restart instead of starting their own).
    restarting: bool = False
    # Per lane, the tasks whose templates that lane has built (a reset of them is a plain copy).
    prepared: list[set[str]] = field(default_factory=list)
    # Per lane, the other apps of the run, name -> bench URL (where a fax this app transmits
    # is offered).
    peers: list[dict[str, str]] = field(default_factory=list)

    @property
    def port(self) -> int:
        """The pages' port of lane 0."""
        return self.ports[0]

    @property
    def bench_port(self) -> int:
        """The bench port of lane 0."""
        return self.bench_ports[0]

    @property
    def base_url(self) -> str:
        """The URL the browser uses to reach this app (lane 0)."""
        return f"http://{HOST}:{self.port}"

    def bench(self, method: str, path: str, body: dict | None = None, timeout: float = RESET_TIMEOUT,
              lane: int = 0) -> Any:
        """One call to the bench API of one lane of this app, on its bench port (see `bench_call`)."""
        return bench_call(self.bench_ports[lane], self.token, method, path, body, timeout=timeout)

    def spawn(self) -> None:
        """Start the child (without waiting for it to answer)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.prepared = [set() for _ in self.ports]
        flags = [f"--port={','.join(map(str, self.ports))}",
                 f"--bench-port={','.join(map(str, self.bench_ports))}", f"--data-dir={self.data_dir}"]
        if self.tasks_dir is not None:
            flags.append(f"--tasks-dir={self.tasks_dir}")
        if self.peers and self.peers[0]:
            flags.extend(f"--peer={name}={','.join(lane[name] for lane in self.peers)}"
                         for name in sorted(self.peers[0]))
        command = [*self.launcher, *flags]
        secret = {BENCH_TOKEN_ENV: self.token}
        if self.zygote is not None:
            try:
                self.process = self.zygote.fork(self.name, flags, self.log_path, command, secret)
            except ZygoteError as exc:
                raise ServiceError(f"{self.name} could not be started: {exc}") from exc
            self.starts += 1
            return
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env={**os.environ, **secret},
                                            preexec_fn=_die_with_parent, close_fds=True)
        self.starts += 1

    def alive(self) -> bool:
        """True while the child process has not exited."""
        return self.process is not None and self.process.poll() is None

    def wait_healthy(self, timeout: float) -> None:
        """Block until `/_bench/health` answers, the child dies, or `timeout` passes."""
        deadline = time.monotonic() + timeout
        while True:
            if not self.alive():
                raise ServiceError(f"{self.name} exited during start-up "
                                   f"(code {self.process and self.process.returncode}); "
                                   f"log: {self.log_path}\n{self.log_tail()}")
            try:
                self.bench("GET", "/_bench/health", timeout=HEALTH_TIMEOUT)
                return
            except ServiceError:
                if time.monotonic() > deadline:
                    raise ServiceError(f"{self.name} did not become healthy in {timeout}s; "
                                       f"log: {self.log_path}\n{self.log_tail()}") from None
                time.sleep(0.05)  # polling a starting server: there is no event to wait on

    def working(self, window: float = 0.5) -> bool:
        """True when the app used CPU within `window` seconds: busy (with other lanes'
        requests, or building a task's case), not hung. A stopped or deadlocked app uses none."""
        before = self._cpu_ticks()
        pause(window)
        after = self._cpu_ticks()
        return before is not None and after is not None and after > before

    def _cpu_ticks(self) -> int | None:
        if self.process is None:
            return None
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime
        except (OSError, ValueError, IndexError):
            return None

    def log_tail(self, lines: int = 15) -> str:
        """The last lines of the app's log, for error messages."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, grace: float = 3.0, *, hung: bool = False) -> None:
        """Terminate the child's whole process group; kill it if it lingers.

        A `hung` child (stopped, deadlocked) would not act on SIGTERM: it is killed at once.
        """
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        signals = ((signal.SIGKILL, grace),) if hung else ((signal.SIGTERM, grace),
                                                           (signal.SIGKILL, grace))
        for sig, wait in signals:
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                continue


_LIVE: "weakref.WeakSet[Services]" = weakref.WeakSet()


@atexit.register
def _close_all_services() -> None:
    for services in list(_LIVE):
        services.close()


@dataclass(eq=False)  # identity semantics: instances live in a weak set
class Services:
    """A set of app processes owned by one Env (or one `admindesk serve`).

    Use as a context manager, or call `close()`; either way the children are gone after.
    Create and use it from one long-lived thread: the children are tied to the thread that
    spawned them. `launchers` overrides the command of some apps (test doubles).
    """

    apps: list[str] | None = None
    launchers: dict[str, list[str]] = field(default_factory=dict)
    base_port: int | None = None
    work_dir: Path | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    # An app's first start on a machine builds its template database (a minute or two on a
    # quiet machine, several on a loaded one): a start is given that long before it counts
    # as an infra error.
    startup_timeout: float = 300.0
    # Where every app finds the task files a reset names (None: the public suite, tasks/).
    tasks_dir: Path | None = None
    # Fork the apps that run their default command from one zygote, so they share the pages
    # of the code they all import (four separate interpreters hold ~100 MB each of it).
    fork_apps: bool = True
    # Episodes each app process serves at once, one per lane (see `lane`).
    lanes: int = 1
    processes: dict[str, AppProcess] = field(default_factory=dict, init=False)
    # The lane this object resets and snapshots (a `lane` view's; the owner's is 0), and the
    # Services that owns the processes when this is a view.
    lane_index: int = field(default=0, init=False)
    _owner: "Services | None" = field(default=None, init=False)
    _owns_work_dir: bool = field(default=False, init=False)
    _pool: ThreadPoolExecutor | None = field(default=None, init=False)
    _zygote: Zygote | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    # (now, task) of the last reset_futures call, for await_resets' retry, and the apps' start
    # counts then (see `restart`).
    _reset_request: tuple[datetime | None, str | None] = field(default=(None, None), init=False)
    _reset_starts: dict[str, int] = field(default_factory=dict, init=False)

    def start(self) -> "Services":
        """Spawn every app, then wait (concurrently) until all answer their health check."""
        if self.lanes < 1:
            raise ValueError(f"lanes must be at least 1, not {self.lanes}")
        names = list(self.apps) if self.apps is not None else available_apps()
        if not names:
            raise ServiceError("no app package has a __main__ module yet")
        if self.work_dir is None:
            self.work_dir = Path(tempfile.mkdtemp(prefix="admindesk-apps-"))
            self._owns_work_dir = True
        # A thread per app and lane (up to 8 lanes' worth): one hung app's calls, waiting out
        # their timeouts, must not hold up the other apps' calls of every lane.
        self._pool = ThreadPoolExecutor(max_workers=len(names) * min(self.lanes, 8), thread_name_prefix="apps")
        _LIVE.add(self)
        try:
            forked = [name for name in names if name not in self.launchers] if self.fork_apps else []
            if forked:
                self._zygote = Zygote(forked, self.work_dir / "app-zygote.log", _die_with_parent)
            # Every port is chosen before any app starts: each app is told its peers' bench
            # URLs (where a fax it transmits is offered). From a base port, the apps' pages
            # take the first len(names) x lanes ports (lane by lane) and their bench APIs the
            # next as many.
            count = len(names) * self.lanes
            chosen = (list(range(self.base_port, self.base_port + 2 * count)) if self.base_port
                      else free_ports(2 * count))
            pages = {name: chosen[index:count:len(names)] for index, name in enumerate(names)}
            benches = {name: chosen[count + index::len(names)] for index, name in enumerate(names)}
            for name in names:
                self.processes[name] = AppProcess(
                    name=name, ports=pages[name], bench_ports=benches[name], data_dir=self.work_dir / name,
                    token=self.token,
                    log_path=self.work_dir / f"{name}.log",
                    launcher=self.launchers.get(name) or default_launcher(name),
                    tasks_dir=self.tasks_dir.resolve() if self.tasks_dir is not None else None,
                    zygote=self._zygote if name in forked else None,
                    # A replacement launcher (a test double) takes only the flags above.
                    peers=[{} if name in self.launchers else
                           {peer: f"http://{HOST}:{ports[lane]}" for peer, ports in benches.items() if peer != name}
                           for lane in range(self.lanes)])
                self.processes[name].spawn()
            self._for_each(lambda app: app.wait_healthy(self.startup_timeout))
        except BaseException:
            self.close()
            raise
        return self

    def __enter__(self) -> "Services":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def lane(self, index: int) -> "Services":
        """The apps as the episode on lane `index` sees them: its own ports, resets and
        snapshots, over the same processes. Closing a lane closes nothing; restarting a dead
        app from it restarts the app for every lane (the episodes on the others then find
        it restarted: see `EpisodeApps`). Use it from the owner's thread."""
        if not 0 <= index < self.lanes:
            raise ValueError(f"lane {index} is not one of these services' {self.lanes} lane(s)")
        view = copy.copy(self)
        view.lane_index, view._owner = index, self._owner or self
        return view

    @property
    def ports(self) -> dict[str, int]:
        """App name -> the port of its pages (the browser's), on this lane."""
        return {name: app.ports[self.lane_index] for name, app in self.processes.items()}

    @property
    def bench_ports(self) -> dict[str, int]:
        """App name -> the port of its bench API (the harness's), on this lane."""
        return {name: app.bench_ports[self.lane_index] for name, app in self.processes.items()}

    def url(self, app: str, path: str = "/") -> str:
        """Absolute URL of `path` inside `app`, on this lane."""
        if app not in self.processes:
            raise ServiceError(f"app {app!r} is not running (running: {sorted(self.processes)})")
        return f"http://{HOST}:{self.ports[app]}" + (path if path.startswith("/") else "/" + path)

    def ensure_alive(self) -> list[str]:
        """Restart any app whose process died; returns the names restarted."""
        return self.restart([app.name for app in self.processes.values() if not app.alive()])

    def restart(self, names: list[str], seen_starts: dict[str, int] | None = None) -> list[str]:
        """Kill (process group, at once) and respawn apps `names`, then wait until healthy.

        With episodes in flight, several lanes may find the same app dead or hung: an app
        another lane is restarting is waited for, and one restarted since `seen_starts` (its
        start count when the caller's reset began) is not restarted again.
        """
        apps = []
        for name in names:
            app = self.processes[name]
            if app.restarting:  # another lane's restart of it is this one's too
                while app.restarting:
                    pause(0.05)
                continue
            if seen_starts is not None and app.starts != seen_starts.get(name, app.starts):
                continue  # restarted since the caller's reset began
            apps.append(app)
        if self._zygote is not None and not self._zygote.alive() and apps:
            self._replace_zygote()
        for app in apps:
            app.restarting = True
        try:
            # Spawned from this thread: PR_SET_PDEATHSIG fires when the spawning *thread*
            # exits, so children must never be started from the pool threads.
            for app in apps:
                app.stop(hung=True)
                app.spawn()
            if apps:
                self._for_each(lambda app: app.wait_healthy(self.startup_timeout), apps)
        finally:
            for app in apps:
                app.restarting = False
        return names

    def _replace_zygote(self) -> None:
        """Start a new zygote in place of a dead one (its apps died with it, by SIGTERM)."""
        old = self._zygote
        old.close()
        self._zygote = Zygote(old.apps, self.work_dir / "app-zygote.log", _die_with_parent)
        for app in self.processes.values():
            if app.zygote is old:
                app.zygote = self._zygote

    def reset_all(self, now: datetime | None = None, task: str | None = None) -> dict[str, Any]:
        """POST /_bench/reset to every app at once (clock frozen at `now`, `task` seeded)."""
        return self.await_resets(self.reset_futures(now, task))

    def reset_futures(self, now: datetime | None = None, task: str | None = None
                      ) -> dict[str, Future]:
        """Restart dead apps, then start resetting every app; app name -> Future of its reply.

        `task` names a task file's task (the apps add its case); ad-hoc tasks send none.
        Collect the replies with `await_resets`, which recovers hung apps.
        """
        self.ensure_alive()
        self._reset_request = (now, task)
        self._reset_starts = {name: app.starts for name, app in self.processes.items()}
        return self._submit_each(lambda app: self._reset_one(app, now, task))

    def await_resets(self, futures: dict[str, Future]) -> dict[str, Any]:
        """The replies of `reset_futures`; an app that did not answer is restarted and reset
        again, once: a second failure is a ServiceError naming the app and its log. An error
        reply (the app refused the reset) is raised as it is.
        """
        replies, failed = {}, {}
        for name, future in futures.items():
            try:
                replies[name] = wait_for(future)
            except AppUnreachable as exc:
                failed[name] = exc
        if failed:
            # An app serving other lanes may just be slow: one still using CPU is asked again,
            # and only one that is dead or idle (hung) is restarted, which costs every lane.
            busy = [name for name in failed if self.lanes > 1 and self.processes[name].working()]
            self.restart([name for name in failed if name not in busy], self._reset_starts)
            retries = self._submit_each(lambda app: self._reset_one(app, *self._reset_request),
                                        [self.processes[name] for name in failed])
            for name, future in retries.items():
                try:
                    replies[name] = wait_for(future)
                except ServiceError as exc:
                    raise ServiceError(f"{name} failed to reset twice ({failed[name]}; then "
                                       f"{exc}); log: {self.processes[name].log_path}\n"
                                       f"{self.processes[name].log_tail()}") from exc
        return replies

    def _reset_one(self, app: AppProcess, now: datetime | None, task: str | None) -> Any:
        body: dict[str, Any] = {} if now is None else {"now": now.isoformat()}
        if task is not None:
            body["task"] = task
            self._prepare(app, task)
        return app.bench("POST", "/_bench/reset", body, timeout=self.patience(RESET_TIMEOUT), lane=self.lane_index)

    def _prepare(self, app: AppProcess, task: str) -> None:
        """Have the app build the task's template first, on a long timeout, so the reset
        keeps its short one (which is how a hung app is told apart from a busy one)."""
        prepared = app.prepared[self.lane_index]
        if task in prepared:
            return
        app.bench("GET", "/_bench/health", timeout=self.patience(HEALTH_TIMEOUT), lane=self.lane_index)
        app.bench("POST", "/_bench/prepare", {"task": task}, timeout=PREPARE_TIMEOUT, lane=self.lane_index)
        prepared.add(task)

    def snapshot_all(self) -> dict[str, dict[str, Any]]:
        """GET /_bench/snapshot from every app at once."""
        return {name: wait_for(future) for name, future in self.snapshot_futures().items()}

    def snapshot_futures(self, initial: bool = False) -> dict[str, Future]:
        """Start fetching every app's snapshot; returns app name -> Future of its JSON.

        Lets a caller overlap the fetch with browser work. A hung app's future fails with
        a ServiceError after SNAPSHOT_TIMEOUT.
        """
        path = "/_bench/snapshot?state=initial" if initial else "/_bench/snapshot"
        return self._submit_each(lambda app: app.bench("GET", path, timeout=self.patience(SNAPSHOT_TIMEOUT),
                                                       lane=self.lane_index))

    def checkpoint(self) -> dict[str, str]:
        """Save every app's state on this lane now, at once; app name -> checkpoint id, for
        `restore`. An app that fails is a ServiceError naming it."""
        replies = self._await_each(self._submit_each(lambda app: app.bench(
            "POST", "/_bench/checkpoint", timeout=self.patience(RESET_TIMEOUT), lane=self.lane_index)), "checkpoint")
        return {name: reply["checkpoint"] for name, reply in replies.items()}

    def restore(self, checkpoints: dict[str, str]) -> None:
        """Start this lane's apps named in `checkpoints` (app name -> id `checkpoint` gave) from
        those checkpoints, at once. An app that fails is a ServiceError naming it; one that
        restarted since the checkpoint holds it no more."""
        unknown = sorted(set(checkpoints) - set(self.processes))
        if unknown:
            raise ServiceError(f"cannot restore {unknown}: not running (running: {sorted(self.processes)})")
        futures = self._submit_each(lambda app: app.bench(
            "POST", "/_bench/restore", {"checkpoint": checkpoints[app.name]},
            timeout=self.patience(RESET_TIMEOUT), lane=self.lane_index),
            [self.processes[name] for name in checkpoints])
        self._await_each(futures, "restore")

    def _await_each(self, futures: dict[str, Future], what: str) -> dict[str, Any]:
        """App name -> reply, once every call has ended; a ServiceError names each app that failed."""
        replies, failures = {}, []
        for name, future in futures.items():
            try:
                replies[name] = wait_for(future)
            except ServiceError as exc:
                failures.append(f"{name}: {exc}")
        if failures:
            raise ServiceError(f"{what} failed on lane {self.lane_index}: " + "; ".join(failures))
        return replies

    def patience(self, timeout: float) -> float:
        """How long a bench call may take before its app counts as hung: an app serving many
        lanes answers them in turn, and a restart would cost every lane its episode."""
        return timeout * (1 + (self.lanes - 1) / 4)

    def _submit_each(self, fn, apps: list[AppProcess] | None = None) -> dict[str, Future]:
        targets = apps if apps is not None else list(self.processes.values())
        return {app.name: self._pool.submit(fn, app) for app in targets}

    def _for_each(self, fn, apps: list[AppProcess] | None = None) -> dict[str, Any]:
        futures = self._submit_each(fn, apps)
        return {name: wait_for(future) for name, future in futures.items()}

    def close(self) -> None:
        """Stop every app (idempotent) and remove the temporary work folder; a lane's view
        closes nothing (its owner does)."""
        if self._owner is not None:
            return
        with self._lock:
            for app in self.processes.values():
                app.stop()
            if self._zygote is not None:
                self._zygote.close()
                self._zygote = None
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
            if self._owns_work_dir and self.work_dir is not None:
                shutil.rmtree(self.work_dir, ignore_errors=True)
                self._owns_work_dir = False
            _LIVE.discard(self)
