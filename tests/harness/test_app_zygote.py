"""Apps forked from one zygote: each its own process, port and database, sharing code pages."""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from admindesk.harness.env.app_zygote import ForkedApp, Zygote, ZygoteError
from admindesk.harness.env.services import APP_NAMES, ServiceError, Services, available_apps
from tests.harness.process_checks import app_dies_with_killed_harness

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(set(available_apps()) != set(APP_NAMES), reason="needs all four apps")]


def _rollup(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        fields[key] = int(value.split()[0])
    return fields


@pytest.fixture(scope="module")
def services():
    with Services() as running:
        yield running


def test_each_forked_app_answers_on_its_own_port_with_its_own_database(services):
    pids = {name: app.process.pid for name, app in services.processes.items()}
    assert all(isinstance(app.process, ForkedApp) for app in services.processes.values())
    assert len(set(pids.values())) == 4 and len(set(services.ports.values())) == 4
    for name, pid in pids.items():
        # Not the harness's children: the zygote forked them, and named them after their app.
        assert Path(f"/proc/{pid}/comm").read_text().strip() == name[:15]
        parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert parent == services.processes[name].zygote.process.pid
    snapshots = services.snapshot_all()
    assert {name: snapshot["_meta"]["app"] for name, snapshot in snapshots.items()} == {
        name: name for name in APP_NAMES}
    for name, app in services.processes.items():
        assert f"--data-dir={app.data_dir}" in app.process.args
        assert any((app.data_dir / "live").glob("*.sqlite")), f"{name} keeps no database of its own"


def test_forked_apps_share_most_of_their_anonymous_memory(services):
    services.reset_all()
    services.snapshot_all()
    pids = [app.process.pid for app in services.processes.values()]
    pids.append(services.processes["ehr_web"].zygote.process.pid)
    rollups = [_rollup(pid) for pid in pids]
    resident = sum(r["Anonymous"] for r in rollups)
    proportional = sum(r["Pss_Anon"] for r in rollups)
    # Four separate interpreters share no anonymous page (PSS == RSS); forked ones share
    # the zygote's imports, so their proportional share is well under what they map.
    assert proportional < 0.75 * resident, (proportional, resident)


def test_a_killed_forked_app_reports_its_signal_and_is_restarted(services):
    fax = services.processes["fax"]
    killed = fax.process
    os.killpg(killed.pid, signal.SIGKILL)
    assert killed.wait(timeout=10) == -signal.SIGKILL
    assert services.ensure_alive() == ["fax"]
    assert fax.process.pid != killed.pid and fax.alive()
    assert services.reset_all()["fax"]["ok"]


def test_a_dead_zygote_is_replaced_and_its_apps_restarted(services):
    zygote = services.processes["fax"].zygote
    forked = [app.process for app in services.processes.values()]
    zygote.process.kill()
    zygote.process.wait()
    # Its death sends every app it forked SIGTERM (no exit report: the zygote is gone).
    assert [process.wait(timeout=10) for process in forked] == [-signal.SIGTERM] * 4
    assert sorted(services.ensure_alive()) == sorted(APP_NAMES)
    assert all(app.zygote is not zygote and app.alive() for app in services.processes.values())
    assert all(result["ok"] for result in services.reset_all().values())


def test_the_zygote_refuses_an_app_it_did_not_load(tmp_path):
    zygote = Zygote(["fax"], tmp_path / "zygote.log", preexec_fn=os.setsid)
    try:
        with pytest.raises(ZygoteError, match="did not load app 'ehr_web'"):
            zygote.fork("ehr_web", [], tmp_path / "ehr.log", ["ehr"])
        forked = zygote.fork("fax", ["--port=5", "--bench-port=6", f"--data-dir={tmp_path}", "--token= "],
                             tmp_path / "fax.log", ["fax"])
        assert forked.wait(timeout=60) == 2  # serve_main refuses an empty token, as argparse does
        assert "--token must not be empty" in (tmp_path / "fax.log").read_text()
    finally:
        zygote.close()


def test_forked_apps_die_with_a_killed_harness():
    # harness dies -> zygote gets SIGTERM -> app gets SIGTERM
    assert app_dies_with_killed_harness("""
        from admindesk.harness.env.services import Services
        services = Services(apps=["fax"]).start()
    """, "fax")


def test_services_without_forking_run_each_app_as_its_own_interpreter():
    with Services(apps=["fax"], fork_apps=False) as plain:
        assert isinstance(plain.processes["fax"].process, subprocess.Popen)
        with pytest.raises(ServiceError, match="not running"):
            plain.url("ehr_web")
