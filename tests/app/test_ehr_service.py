"""`python -m admindesk.envs.ehr_web` serves on waitress: its pages on one port, its bench API on
another (and only there), byte-stable resets; one process serves several lanes (episodes in
flight), each with its own ports and state."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from admindesk.harness.env.services import free_ports

pytestmark = pytest.mark.slow
TOKEN = "service-test-token"


def call(url: str, method: str = "GET", token: str | None = TOKEN) -> tuple[int, bytes]:
    request = urllib.request.Request(url, method=method, headers={"X-Bench-Token": token} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def service(app_data_dir):
    port, bench_port, other_port, other_bench_port = free_ports(4)
    process = subprocess.Popen([sys.executable, "-m", "admindesk.envs.ehr_web", "--port", f"{port},{other_port}",
                                "--bench-port", f"{bench_port},{other_bench_port}", "--data-dir", str(app_data_dir),
                                "--token", TOKEN],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    pages, base = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{bench_port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if call(f"{base}/_bench/health")[0] == 200:
                break
        except OSError:
            pass  # not listening yet: the template may still be building
        time.sleep(0.2)
    else:
        process.kill()
        pytest.fail(process.stdout.read().decode())
    yield {"bench": base, "pages": pages, "other_bench": f"http://127.0.0.1:{other_bench_port}",
           "other_pages": f"http://127.0.0.1:{other_port}"}
    process.terminate()
    process.wait(timeout=10)


def test_bench_api_hidden_without_token(service):
    assert call(f"{service['bench']}/_bench/snapshot", token=None)[0] == 404
    assert call(f"{service['bench']}/_bench/health", token="wrong")[0] == 404


@pytest.mark.parametrize("path", ["/_bench/health", "/_bench/snapshot", "//_bench/health", "/%5Fbench/health"])
def test_the_pages_port_never_answers_the_bench_api_even_with_the_token(service, path):
    status, body = call(f"{service['pages']}{path}")
    assert status == 404 and b"<html" in body.lower()  # the app's own page, not the bench's answer


@pytest.mark.parametrize("path", ["/", "/login", "/queues/prior-auth", "/fhir/metadata", "/_bench/nothing"])
def test_the_bench_port_answers_the_bench_api_only(service, path):
    assert call(f"{service['bench']}{path}")[0] == 404
    assert call(f"{service['pages']}/login", token=None)[0] == 200


def test_reset_then_snapshot_gives_the_same_bytes(service):
    snapshots = []
    for _ in range(2):
        assert call(f"{service['bench']}/_bench/reset", "POST")[0] == 200
        status, body = call(f"{service['bench']}/_bench/snapshot")
        assert status == 200
        snapshots.append(body)
    assert snapshots[0] == snapshots[1]
    assert len(json.loads(snapshots[0])["patients"]) >= 300


def test_pages_need_login(service):
    request = urllib.request.Request(f"{service['pages']}/queues/prior-auth")
    opener = urllib.request.build_opener(type("NoRedirect", (urllib.request.HTTPRedirectHandler,),
                                              {"redirect_request": lambda *args, **kwargs: None}))
    with pytest.raises(urllib.error.HTTPError) as error:
        opener.open(request, timeout=10)
    assert error.value.code == 302 and "/login" in error.value.headers["Location"]


def test_each_lane_keeps_its_own_state(service):
    assert call(f"{service['bench']}/_bench/reset", "POST")[0] == 200
    before = call(f"{service['bench']}/_bench/snapshot")[1]
    request = urllib.request.Request(f"{service['other_bench']}/_bench/reset", method="POST",
                                     data=json.dumps({"task": "pa-easy-01", "now": "2026-11-20T09:00:00"}).encode(),
                                     headers={"X-Bench-Token": TOKEN, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 200
    other = json.loads(call(f"{service['other_bench']}/_bench/snapshot")[1])
    assert call(f"{service['bench']}/_bench/snapshot")[1] == before  # the first lane never saw it
    assert len(other["patients"]) > len(json.loads(before)["patients"])  # the task's case was added


@pytest.mark.parametrize("path", ["/_bench/health", "/_bench/snapshot"])
def test_every_lanes_pages_port_refuses_the_bench_api(service, path):
    assert call(f"{service['other_pages']}{path}")[0] == 404
    assert call(f"{service['other_bench']}{path}")[0] == 200


def test_the_initial_state_is_what_the_last_reset_left_whatever_happened_since(service):
    body = json.dumps({"task": "pa-easy-01", "now": "2026-11-20T09:00:00"}).encode()
    request = urllib.request.Request(f"{service['bench']}/_bench/reset", method="POST", data=body,
                                     headers={"X-Bench-Token": TOKEN, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 200
    right_after = call(f"{service['bench']}/_bench/snapshot")[1]
    # A failed sign-in writes to the live state (the audit trail), not to the initial one.
    login = urllib.request.Request(f"{service['pages']}/login", method="POST",
                                   data=b"username=coordinator&password=wrong")
    try:
        urllib.request.urlopen(login, timeout=10)
    except urllib.error.HTTPError:
        pass  # refused without a CSRF token: still a request the app saw
    status, initial = call(f"{service['bench']}/_bench/snapshot?state=initial")
    assert status == 200 and initial == right_after
    assert call(f"{service['bench']}/_bench/snapshot?state=later")[0] == 400
