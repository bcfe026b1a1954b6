"""The bench token is on no command line: any local user can read every process's
/proc/<pid>/cmdline (`ps`), while a process's environment is readable by its owner only."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from admindesk.harness.env.services import BENCH_TOKEN_ENV, Services, available_apps
from tests.harness.conftest import fixture_services

APPS = [name for name in ("fax", "payer_portal_b") if name in available_apps()]


def command_lines_holding(secret: str) -> dict[int, str]:
    """pid -> command line, for every process whose command line contains `secret`."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # exited while we looked
        if secret.encode() in words:
            found[int(entry.name)] = words.replace(b"\0", b" ").decode(errors="replace")
    return found


@pytest.mark.slow
@pytest.mark.skipif(not APPS, reason="needs the fax and portal B apps")
@pytest.mark.parametrize("fork_apps", [True, False], ids=["zygote", "own-process"])
def test_apps_started_by_the_harness_carry_the_token_on_no_command_line(fork_apps):
    with Services(apps=APPS, fork_apps=fork_apps) as services:
        assert set(services.snapshot_all()) == set(APPS)  # they took the token they were given
        assert command_lines_holding(services.token) == {}
        for app in services.processes.values():
            assert not any(services.token in word for word in app.process.args)


def test_test_doubles_started_from_launchers_carry_it_on_no_command_line():
    with fixture_services() as services:
        assert services.snapshot_all()["fax"]["_meta"]["app"] == "fax"
        assert command_lines_holding(services.token) == {}


def test_an_app_run_by_hand_without_a_token_says_how_to_give_one(tmp_path):
    env = {name: value for name, value in os.environ.items() if name != BENCH_TOKEN_ENV}
    done = subprocess.run([sys.executable, "-m", "admindesk.envs.fax", "--port=1", "--bench-port=2",
                           f"--data-dir={tmp_path}"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and f"set {BENCH_TOKEN_ENV}" in done.stderr
