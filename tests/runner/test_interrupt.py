"""Ctrl-C in the middle of `admindesk run` leaves a consistent run folder, no stray
processes, and a rerun that finishes only what was missing."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from admindesk.verifiers.record_files import RECORD_FILE

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TASKS = "pa-easy-01,pa-easy-02,pa-easy-03"


def admindesk_run(out: Path, **popen) -> subprocess.Popen:
    command = [shutil.which("admindesk") or pytest.fail("the admindesk script is not installed"), "run", "--agent", "noop", "--tasks", TASKS,
               "--out", str(out)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **popen)


def session_processes(session: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[3]) == session and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def finished_episodes(out: Path) -> set[str]:
    return {p.parent.name for p in out.glob("*/scores.json") if (p.parent / RECORD_FILE).is_file()}


def test_ctrl_c_leaves_a_consistent_folder_and_the_rerun_completes_it(tmp_path):
    out = tmp_path / "run"
    process = admindesk_run(out, start_new_session=True)
    deadline = time.monotonic() + 240
    while not finished_episodes(out) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    assert finished_episodes(out), process.communicate(timeout=60)[0].decode()[-2000:]
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
    process.communicate(timeout=120)
    time.sleep(2)
    assert session_processes(process.pid) == []  # workers, apps and browsers are gone

    interrupted = json.loads((out / "run.json").read_text())
    done = finished_episodes(out)
    # run.json lists exactly the finished episodes (an interrupted one is rerun, not listed).
    assert {e["folder"] for e in interrupted["episodes"] if e["result"] != "infra_error"} == done
    rerun = admindesk_run(out)
    output, _ = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, output.decode()
    final = json.loads((out / "run.json").read_text())
    assert sorted(final["resumed_episodes"]) == sorted(done)
    assert [e["task_id"] for e in final["episodes"]] == TASKS.split(",")
    assert finished_episodes(out) == {f"{task_id}-t0" for task_id in TASKS.split(",")}
    assert not list(out.glob(".staging-*"))
