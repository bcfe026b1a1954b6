"""Fixtures for the integration tests: the apps run by `admindesk serve` in a child process."""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass

import pytest

from admindesk.harness.env.services import free_port

SERVE_START_TIMEOUT = 240.0


@dataclass
class ServedApps:
    """A running `admindesk serve`: its bench token, the apps' pages' and bench ports, its process id."""

    token: str
    ports: dict[str, int]
    bench_ports: dict[str, int]
    pid: int


# serve binds the apps' pages and then their bench APIs on consecutive ports from its base port.
SERVED_PORTS = 8


def free_port_run(count: int) -> int:
    """A base port with `count` consecutive loopback ports free a moment ago (one free port is
    not enough: on a busy machine a later app of the run found its port taken)."""
    while True:
        base = free_port()
        if base + count > 65535:
            continue
        try:
            with contextlib.ExitStack() as held:
                for port in range(base, base + count):
                    sock = held.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                    sock.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue


@pytest.fixture(scope="module")
def served_apps(tmp_path_factory):
    """`admindesk serve --token T` in a child process; yields its printed token and ports."""
    token = "integration-" + secrets.token_hex(8)
    out = tmp_path_factory.mktemp("serve") / "serve.out"
    with open(out, "wb") as sink:
        child = subprocess.Popen(
            [shutil.which("admindesk") or "admindesk", "serve", f"--base-port={free_port_run(SERVED_PORTS)}",
             f"--token={token}"], stdout=sink, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVE_START_TIMEOUT
        printed = {}
        while time.monotonic() < deadline and child.poll() is None:
            for line in out.read_text().splitlines():
                key, _, value = line.partition(": ")
                if key in ("bench token", "ports", "bench ports"):
                    printed[key] = value
            if len(printed) == 3:
                break
            time.sleep(0.5)  # waiting on another process's output: nothing to block on
        assert len(printed) == 3, f"serve did not print its token and ports:\n{out.read_text()}"
        yield ServedApps(token=printed["bench token"], ports=json.loads(printed["ports"]),
                         bench_ports=json.loads(printed["bench ports"]), pid=child.pid)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGTERM)
            child.wait(timeout=30)

