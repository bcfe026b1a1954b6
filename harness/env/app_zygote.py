"""The harness's end of the app zygote (`admindesk.envs.common.app_zygote`).

One zygote per `Services` imports the apps once and forks each app from that image, so
the apps share the pages of their common code copy-on-write. A forked app is not the
harness's child, so `ForkedApp` stands in for its `subprocess.Popen`: the pid and the
command the app would have run, a pidfd to see it exit, and the exit code the zygote
reports when it reaps it.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

ZYGOTE_MODULE = "admindesk.envs.common.app_zygote"
# The zygote imports the four apps before it answers: seconds, more on a busy machine.
READY_TIMEOUT = 120.0
# A reaped child's exit line follows its pidfd turning readable within milliseconds.
EXIT_REPORT_WAIT = 1.0


class ZygoteError(RuntimeError):
    """The zygote could not start, or refused or failed to fork an app."""


class Zygote:
    """A zygote process that has imported `apps` and forks them on request."""

    def __init__(self, apps: list[str], log_path: Path, preexec_fn: Callable[[], None]) -> None:
        self.apps = list(apps)
        self._log_path = log_path
        self._exit_codes: dict[int, int] = {}
        self._replies: list[dict] = []
        self._ready = False
        self._changed = threading.Condition()
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", ZYGOTE_MODULE, *self.apps],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=log, preexec_fn=preexec_fn, close_fds=True)
        self._reader = threading.Thread(target=self._read, name="app-zygote", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            message = json.loads(line)
            with self._changed:
                if "exited" in message:
                    self._exit_codes[message["exited"]] = message["code"]
                elif "ready" in message:
                    self._ready = True
                else:
                    self._replies.append(message)
                self._changed.notify_all()
        with self._changed:  # the zygote is gone: wake anyone waiting for it
            self._changed.notify_all()

    def alive(self) -> bool:
        """True while the zygote process runs."""
        return self.process.poll() is None

    def fork(self, app: str, argv: list[str], log_path: Path, command: list[str],
             env: dict[str, str] | None = None, timeout: float = READY_TIMEOUT) -> "ForkedApp":
        """Have the zygote fork app `app` serving with flags `argv`, logging to `log_path`.

        `command` is the command line the app would have run standalone (kept as its args).
        `env` adds environment variables (secrets go here: they travel over the zygote's
        private pipe, never on a command line).
        """
        if app not in self.apps:
            raise ZygoteError(f"the zygote did not load app {app!r} (loaded: {self.apps})")
        request = json.dumps({"app": app, "argv": argv, "log": str(log_path), "env": env or {}}) + "\n"
        try:
            self.process.stdin.write(request.encode())
            self.process.stdin.flush()
        except OSError as exc:
            raise ZygoteError(f"the app zygote is gone ({exc!r}); log: {self._log_path}") from exc
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._replies:
                left = deadline - time.monotonic()
                if not self.alive() or left <= 0:
                    raise ZygoteError(f"the app zygote did not fork {app} "
                                      f"({'exited' if not self.alive() else f'no reply in {timeout}s'})"
                                      f"; log: {self._log_path}")
                self._changed.wait(min(left, 0.5))
            reply = self._replies.pop(0)
        if "error" in reply:
            raise ZygoteError(f"the app zygote refused to fork {app}: {reply['error']}")
        return ForkedApp(self, reply["pid"], command)

    def exit_code(self, pid: int, wait: float) -> int | None:
        """The exit code the zygote reported for child `pid`, waiting up to `wait` seconds."""
        deadline = time.monotonic() + wait
        with self._changed:
            while pid not in self._exit_codes:
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive():
                    return self._exit_codes.get(pid)
                self._changed.wait(left)
            return self._exit_codes[pid]

    def close(self) -> None:
        """Close the zygote's stdin (it exits) and wait for it; kill it if it lingers."""
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=3)


class ForkedApp:
    """A forked app, with the parts of `subprocess.Popen` the harness uses."""

    def __init__(self, zygote: Zygote, pid: int, args: list[str]) -> None:
        self.zygote, self.pid, self.args = zygote, pid, args
        self.returncode: int | None = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # already exited and reaped: its exit line says how
            self._pidfd = None

    def _exited(self, timeout: float) -> bool:
        if self._pidfd is None:
            return True
        readable, _, _ = select.select([self._pidfd], [], [], timeout)
        return bool(readable)

    def _settle(self) -> int:
        code = self.zygote.exit_code(self.pid, EXIT_REPORT_WAIT)
        # No report means the zygote died first, and its death sent the app SIGTERM.
        self.returncode = code if code is not None else -signal.SIGTERM
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        return self.returncode

    def poll(self) -> int | None:
        """None while the app runs, else its exit code."""
        if self.returncode is None and self._exited(0):
            self._settle()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Block until the app exits; raise `subprocess.TimeoutExpired` after `timeout` s."""
        if self.returncode is None:
            if not self._exited(timeout):
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._settle()
        return self.returncode
