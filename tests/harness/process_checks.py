"""Process checks the harness tests share: is a pid gone, do apps die with a killed harness."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def gone(pid: int) -> bool:
    """The process ended (a zombie still answers kill(0); its /proc status says so)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/status") as status:
        return "zombie" in status.read()


def app_dies_with_killed_harness(start_services: str, app: str) -> bool:
    """Start apps in a child harness (`start_services` is Python that binds `services`),
    SIGKILL it, and tell whether `app`'s process ends within 5 s: a killed harness cannot
    clean up, so the kernel or the zygote must end its apps."""
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(REPO)!r})
    """) + textwrap.dedent(start_services) + textwrap.dedent(f"""
        print(services.processes[{app!r}].process.pid, flush=True)
        time.sleep(120)
    """)
    harness = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        app_pid = int(harness.stdout.readline())
        assert not gone(app_pid), "the app was not running"
    finally:
        harness.kill()
        harness.wait()
    for _ in range(100):
        if gone(app_pid):
            return True
        time.sleep(0.05)  # the death signal is delivered asynchronously
    return gone(app_pid)
