"""`python -m admindesk.envs.common.app_zygote APP...`: import the apps once, fork each on request.

Four app processes that each import Flask, SQLAlchemy, the kit and their own package hold
four private copies of ~100 MB of the same code and objects. The zygote imports them once,
freezes the garbage collector (so collections in a child do not write to, and thereby
unshare, the inherited objects' pages), and forks one child per app: each child is still
its own process with its own port and database, but the pages it only reads stay shared
copy-on-write with the zygote and its siblings.

Protocol, one JSON object per line. On stdin, a request to start an app:
`{"app": NAME, "argv": [serve flags], "log": PATH, "env": {NAME: VALUE}}` ("env" optional:
variables the app sees, such as its bench token, which must not be on any command line).
On stdout: `{"ready": true}` once the
apps are imported; `{"pid": PID, "app": NAME}` for each request (or `{"error": ...}`);
`{"exited": PID, "code": CODE}` when a child exits (CODE as `Popen.returncode`: negative
for a signal). The zygote exits when its stdin closes; its children then get SIGTERM.
"""
from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import signal
import sys
import threading

from admindesk.process_memory import limit_arenas

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15


def _prctl(option: int, value: int | bytes) -> None:
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(option, value, 0, 0, 0)
    except OSError:
        pass  # not Linux: the process group still lets the harness kill the app


def _say(message: dict) -> None:
    # One os.write per line: a line is shorter than PIPE_BUF, so it reaches the reader whole
    # even when the exit reporter (a signal handler) writes between two replies.
    os.write(sys.stdout.fileno(), (json.dumps(message) + "\n").encode())


def _report_exits(signum: int, frame: object) -> None:
    """SIGCHLD: reap every exited child and tell the harness its exit code."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _say({"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _become_app(name: str, package, argv: list[str], log_path: str, env: dict[str, str],
                zygote_pid: int) -> None:
    """In the forked child: detach, log to `log_path`, serve app `name` until killed."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()  # its own process group: the harness kills the app's whole tree at once
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != zygote_pid:  # the zygote died before the line above took effect
        os._exit(1)
    _prctl(PR_SET_NAME, name.encode()[:15])  # `ps`, and the bench's breakdown, show the app
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(devnull)
    os.environ.update(env)
    from admindesk.envs.common.serve import serve_main

    code = 0
    try:
        serve_main(name, package.create_app, argv)
    except SystemExit as exc:  # argparse's errors and exits
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # never return into the zygote's request loop


def serve_requests(packages: dict[str, object]) -> None:
    """Fork an app for every request line on stdin, until stdin closes."""
    zygote_pid = os.getpid()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            name, argv, log_path = request["app"], list(request["argv"]), str(request["log"])
            env = dict(request.get("env", {}))
            if not all(isinstance(item, str) for pair in env.items() for item in pair):
                raise TypeError("env names and values must be strings")
            package = packages[name]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            _say({"error": f"bad request {line.strip()[:200]!r}: {exc!r} "
                           f"(apps loaded: {sorted(packages)})"})
            continue
        if threading.active_count() != 1:  # a fork copies one thread; others' locks would hang
            _say({"error": f"the zygote has {threading.active_count()} threads; refusing to fork"})
            continue
        pid = os.fork()
        if pid == 0:
            _become_app(name, package, argv, log_path, env, zygote_pid)
        _say({"pid": pid, "app": name})


def main(argv: list[str] | None = None) -> None:
    """Import the named apps and the server, then fork apps on request."""
    names = sys.argv[1:] if argv is None else argv
    if not names:
        sys.exit("usage: python -m admindesk.envs.common.app_zygote APP [APP...]")
    packages = {name: importlib.import_module(f"admindesk.envs.{name}") for name in names}
    importlib.import_module("waitress")  # what serve_main imports in the child
    limit_arenas()  # before fork: the children inherit the allocator's settings
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, _report_exits)
    _say({"ready": True})
    serve_requests(packages)


if __name__ == "__main__":
    main()
