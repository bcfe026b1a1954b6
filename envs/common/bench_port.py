"""The bench API's own port: an app process listens on two loopback ports.

The app port serves the pages (and the apps' APIs) to the agent; the bench port serves
the bench API (reset, prepare, snapshot, health, the fax line) to the harness and to the
other apps, and nothing else. The agent's browser is let reach the app ports only (a
refusing proxy takes every other connection, see harness/env/browser.py), so no request
of the agent's ever reaches the bench port, and the browser needs no request
interception to keep it out of the bench API.

On the app port the bench token is never read: every spelling of a bench path is the
app's own "not found", whatever headers come with it. The port a request came in on is
the listening socket's (waitress's SERVER_PORT), not anything the client sent.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from admindesk.envs.common.request_guards import BENCH_PATHS, is_bench_spelling

BENCH_TOKEN_ENVIRON = "HTTP_X_BENCH_TOKEN"
NOT_FOUND = b"not found: the bench port serves the bench API only\n"

WsgiApp = Callable[[dict[str, Any], Callable], Iterable[bytes]]


class BenchPortSplit:
    """WSGI middleware: the bench API on `bench_port` only, and only the bench API there."""

    def __init__(self, app: WsgiApp, bench_port: int) -> None:
        self.app = app
        self.bench_port = str(bench_port)

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if environ.get("SERVER_PORT") == self.bench_port:
            if environ.get("PATH_INFO", "") not in BENCH_PATHS:
                start_response("404 Not Found", [("Content-Type", "text/plain"),
                                                 ("Content-Length", str(len(NOT_FOUND)))])
                return [NOT_FOUND]
        elif is_bench_spelling(environ.get("PATH_INFO", "")):
            environ.pop(BENCH_TOKEN_ENVIRON, None)  # the app's guard then answers its 404 page
        return self.app(environ, start_response)


def serve_split(app: WsgiApp, *, host: str, port: int, bench_port: int, threads: int, ident: str) -> None:
    """Serve `app` on `port` and its bench API on `bench_port` (one process, one thread pool)."""
    if port == bench_port:
        raise ValueError(f"the bench port must differ from the app port ({port})")
    from waitress import serve  # imported here: only the service process needs it

    serve(BenchPortSplit(app, bench_port), listen=f"{host}:{port} {host}:{bench_port}", threads=threads,
          ident=ident, clear_untrusted_proxy_headers=True)
