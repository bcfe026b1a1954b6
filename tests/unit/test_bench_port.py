"""The bench port split (request_guards.BenchPortSplit): the bench API on its own port only, and
nothing but the bench API there; on the pages' port the bench token is never read."""
from __future__ import annotations

import pytest
from werkzeug.test import Client

from admindesk.envs.common.request_guards import BenchPortSplit
from admindesk.envs.common.serve import LaneDispatcher, serve_main

PAGES_PORT, BENCH_PORT = "5100", "5104"


def echo_app(environ, start_response):
    """Answers what reached it: the path and the bench token it was given, if any."""
    body = f"{environ['PATH_INFO']} token={environ.get('HTTP_X_BENCH_TOKEN')}".encode()
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [body]


def call(path: str, port: str) -> tuple[int, str]:
    client = Client(BenchPortSplit(echo_app, int(BENCH_PORT)))
    # PATH_INFO as the server passes it: the test client would read "//x" as a host.
    response = client.get("/", headers={"X-Bench-Token": "secret"},
                          environ_overrides={"SERVER_PORT": port, "PATH_INFO": path})
    return response.status_code, response.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/_bench/snapshot", "/_bench/reset", "/_bench/fax-line"])
def test_the_bench_port_hands_bench_calls_on_with_their_token(path):
    assert call(path, BENCH_PORT) == (200, f"{path} token=secret")


@pytest.mark.parametrize("path", ["/", "/login", "/patients/1", "/fhir/metadata", "/_bench/unknown",
                                  "//_bench/snapshot", "/_bench/snapshot/"])
def test_the_bench_port_answers_nothing_but_the_exact_bench_paths(path):
    status, body = call(path, BENCH_PORT)
    assert status == 404 and "bench port" in body


@pytest.mark.parametrize("path", ["/_bench/snapshot", "//_bench/health", "/%5Fbench/snapshot", "/x/../_bench/reset",
                                  "/_BENCH/health"])
def test_the_pages_port_drops_the_bench_token_of_every_bench_spelling(path):
    status, body = call(path, PAGES_PORT)
    assert status == 200 and body.endswith("token=None")  # the app's guard then answers not found


def test_the_pages_port_hands_pages_on_untouched():
    assert call("/patients/1", PAGES_PORT) == (200, "/patients/1 token=secret")


def test_one_port_cannot_serve_both(tmp_path, capsys):
    with pytest.raises(SystemExit):
        serve_main("fax", lambda config: None, ["--port", "5100", "--bench-port", "5100", "--data-dir",
                                                str(tmp_path), "--token", "t"])
    assert "--bench-port must differ from --port (5100)" in capsys.readouterr().err


def test_requests_reach_the_lane_of_the_port_they_arrived_on():
    lanes = LaneDispatcher({5100: lambda environ, start: [b"lane 0"], 5104: lambda environ, start: [b"lane 0"],
                            5101: lambda environ, start: [b"lane 1"], 5105: lambda environ, start: [b"lane 1"]})
    assert lanes({"SERVER_PORT": "5101"}, None) == [b"lane 1"]
    assert lanes({"SERVER_PORT": "5104"}, None) == [b"lane 0"]


@pytest.mark.parametrize("flags, message", [
    (["--port", "5100,5101", "--bench-port", "5104"], "--port lists 2 port(s) and --bench-port 1"),
    (["--port", "5100,5101", "--bench-port", "5104,5101"], "every lane's pages' and bench ports must all differ"),
    (["--port", "5100,x", "--bench-port", "5104,5105"], "--port takes a port or a comma-separated list"),
    (["--port", "5100,5101", "--bench-port", "5104,5105", "--peer", "fax=http://127.0.0.1:1"],
     "--peer fax gives 1 URL(s) for 2 lane(s)"),
    (["--port", "5100", "--bench-port", "70000"], "--bench-port ports must be between 1 and 65535"),
])
def test_lane_flags_that_do_not_add_up_are_refused(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit):
        serve_main("fax", lambda config: None, [*flags, "--data-dir", str(tmp_path), "--token", "t"])
    assert message in capsys.readouterr().err
