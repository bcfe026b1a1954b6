"""App processes: start, bench token, concurrent reset, restart after a crash, no orphans."""
from __future__ import annotations

import os
import signal
import urllib.error
import urllib.request

import pytest

from admindesk.harness.env.services import ServiceError, bench_call
from tests.harness.conftest import fixture_services
from tests.harness.process_checks import app_dies_with_killed_harness, gone


def test_start_reset_restart_and_close():
    with fixture_services() as services:
        assert set(services.ports) == {"ehr_web", "fax"}
        assert len(set(services.ports.values())) == 2
        results = services.reset_all()
        assert all(result["ok"] for result in results.values())
        crashed = services.processes["fax"].process
        os.killpg(crashed.pid, signal.SIGKILL)
        crashed.wait()
        assert services.ensure_alive() == ["fax"]
        assert services.reset_all()["fax"]["ok"]
        pids = [app.process.pid for app in services.processes.values()]
    assert all(gone(pid) for pid in pids)


def test_bench_api_needs_the_token_and_its_own_port():
    with fixture_services(["ehr_web"]) as services:
        port, bench_port = services.ports["ehr_web"], services.bench_ports["ehr_web"]
        assert port != bench_port
        with pytest.raises(urllib.error.HTTPError) as denied:
            urllib.request.urlopen(f"http://127.0.0.1:{bench_port}/_bench/snapshot")
        assert denied.value.code == 404
        with pytest.raises(ServiceError):
            bench_call(bench_port, "wrong-token", "GET", "/_bench/snapshot")
        with pytest.raises(ServiceError, match="404"):  # the pages' port never serves it
            bench_call(port, services.token, "GET", "/_bench/snapshot")
        assert bench_call(bench_port, services.token, "GET", "/_bench/snapshot")["_meta"]["app"] == "ehr_web"


def test_apps_die_with_a_killed_harness():
    # A harness process that is SIGKILLed cannot clean up; the kernel must end its apps.
    assert app_dies_with_killed_harness("""
        from tests.harness.conftest import fixture_services
        services = fixture_services(["ehr_web"]).start()
    """, "ehr_web")
