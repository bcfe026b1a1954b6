"""Guards every app applies to a request before its views see it.

- The bench API has a port of its own (`BenchPortSplit`, applied where the app is served).
- The bench API answers only its exact paths with the run's token; every other spelling
  the server would route there (`//_bench`, `/./_bench`, `/%2F_bench`, any method) is 404,
  and no redirect an app answers points there or to another host (a `next` in a form or a
  query is data a page can set, and the browser follows a redirect without the harness
  seeing it).
- The apps' APIs answer API clients, not browsers: the screens' agent is kept off them.
- Integer URL parts beyond SQLite's range are "not found", not a database overflow.
- A text field too long for any form is refused with a message naming the field.
- An identical form posted again right after it succeeded is not applied twice.
"""
from __future__ import annotations

import hashlib
import hmac
import threading
import time
from urllib.parse import unquote, urlsplit

from flask import abort, current_app, flash, g, redirect, render_template, request, session, url_for
from werkzeug.routing import IntegerConverter

from admindesk.envs.common.api_access import is_api_endpoint
from admindesk.envs.common.messages import message

BENCH_SEGMENT = "_bench"
BENCH_PATHS = frozenset({"/_bench/reset", "/_bench/prepare", "/_bench/snapshot", "/_bench/health",
                         "/_bench/checkpoint", "/_bench/restore", "/_bench/fax-line"})
BENCH_PORT_NOT_FOUND = b"not found: the bench port serves the bench API only\n"
SQLITE_MAX_INTEGER = 2**63 - 1
# Longest text any form field takes; the longest real inputs (appeal letters) are far shorter.
MAX_TEXT_FIELD_CHARS = 100_000
# An identical successful POST repeated within this many (wall-clock) seconds is a double click.
DOUBLE_SUBMIT_SECONDS = 2.0


class BoundedIntConverter(IntegerConverter):
    """`<int:...>` that matches only ids SQLite can store (larger ones are 404, not 500)."""

    def __init__(self, map, fixed_digits: int = 0, min: int | None = None,  # noqa: A002
                 max: int | None = SQLITE_MAX_INTEGER, signed: bool = False) -> None:  # noqa: A002
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


def _path_segments(path: str) -> list[str]:
    """The path as a server or browser would resolve it: decoded, dot segments applied."""
    for _ in range(3):  # %252F -> %2F -> /
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    segments: list[str] = []
    for segment in path.replace("\\", "/").lower().split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    return segments


def is_bench_spelling(path: str) -> bool:
    """True if some resolution of `path` reaches the bench API."""
    return BENCH_SEGMENT in _path_segments(path)


def guard_bench_paths():
    """before_request: only the exact bench path with the right token gets through."""
    # Werkzeug routes on `request.path`, which drops repeated leading slashes; the raw
    # PATH_INFO shows the spelling that was sent.
    raw_path = request.environ.get("PATH_INFO", "")
    if not (is_bench_spelling(request.path) or is_bench_spelling(raw_path)):
        return None
    expected = current_app.extensions["admindesk"].config.token
    supplied = request.headers.get("X-Bench-Token", "")
    exact = raw_path in BENCH_PATHS and request.routing_exception is None
    if not (exact and expected and hmac.compare_digest(supplied, expected)):
        abort(404)
    return None


def keep_browsers_off_apis():
    """before_request: an API endpoint (FHIR, PAS, OAuth) is not found for a request a browser
    makes. Chromium sends Sec-Fetch-Mode with every request to a loopback origin, and no page
    script can remove it (a forbidden header); the tool channel's HTTP client sends none."""
    if request.endpoint and is_api_endpoint(request.endpoint) and "Sec-Fetch-Mode" in request.headers:
        abort(404)
    return None


def keep_redirects_out_of_bench(response):
    """after_request: a redirect into the bench API, or to another host (`//host/...` is
    one), goes to the app's home page instead."""
    location = response.location if 300 <= response.status_code < 400 else None
    if location:
        target = urlsplit(location)
        if (target.netloc and target.netloc != request.host) or is_bench_spelling(target.path):
            response.headers["Location"] = url_for(current_app.extensions["admindesk"].spec.home_endpoint)
    return response


def refuse_overlong_fields():
    """before_request: a text field longer than any form takes gets a message naming it."""
    if request.method != "POST" or not request.form:
        return None
    for name, value in request.form.items(multi=True):
        if len(value) > MAX_TEXT_FIELD_CHARS:
            text = message("field_too_long", field=name, length=len(value), limit=MAX_TEXT_FIELD_CHARS)
            return render_template("error.html", code=413, title=message("text_too_long_title"),
                                   message=text), 413
    return None


class DoubleSubmitGuard:
    """Remembers each user's last successful form posts for a moment.

    A form posted twice in a row by a double click, or a retry of a request that already
    succeeded, must not create two notes, two faxes or two appeals. A post that failed
    validation is not remembered, so correcting and re-sending a form always works.
    """

    def __init__(self, window_seconds: float = DOUBLE_SUBMIT_SECONDS):
        self.window = window_seconds
        self._lock = threading.Lock()
        self._recent: dict[tuple, tuple[float, str]] = {}

    @staticmethod
    def _key() -> tuple | None:
        username = session.get("username")
        if request.method != "POST" or not username or request.endpoint in (None, "auth.login"):
            return None
        digest = hashlib.sha256(request.full_path.encode())
        for name, value in sorted(request.form.items(multi=True)):
            if name != "csrf_token":
                digest.update(f"\0{name}\0{value}".encode())
        for name, upload in sorted(request.files.items(multi=True)):
            digest.update(f"\0{name}\0{upload.filename}".encode())
        # The episode's database file, not the login's generation: a restore brings back a
        # generation, and a post made from the same checkpoint in an earlier episode is no repeat.
        episode = current_app.extensions["admindesk"].db.pinned().path
        return (episode, username, digest.hexdigest())

    def before_request(self):
        """Refuse a repeat of a form that just succeeded: back to where the first one went."""
        key = self._key()
        if key is None:
            return None
        g.double_submit_key = key
        with self._lock:
            seen = self._recent.get(key)
        if seen is not None and time.monotonic() - seen[0] < self.window:
            flash(message("double_submit"), "warning")
            return redirect(seen[1], code=303)
        return None

    def after_request(self, response):
        """Remember a successful post (one that redirects onward, the apps' success pattern)."""
        key = g.get("double_submit_key")
        if key is not None and response.status_code in (302, 303) and response.location:
            now = time.monotonic()
            with self._lock:
                self._recent = {k: v for k, v in self._recent.items() if now - v[0] < self.window}
                self._recent[key] = (now, response.location)
        return response


class BenchPortSplit:
    """WSGI middleware: the bench API on `bench_port` only, and only the bench API there.

    An app process listens on two loopback ports. The pages' port serves the pages (and the
    apps' APIs) to the agent; the bench port serves the bench API (reset, prepare, snapshot,
    checkpoint, restore, health, the fax line) to the harness and the other apps. The
    agent's browser reaches the pages' ports only (a refusing proxy takes every other
    connection, see harness/env/browser.py), so it needs no request interception to stay
    out of the bench API. On the pages' port the bench token is never read: every spelling of a bench path
    gets the app's own "not found", whatever headers come with it. The port is the
    listening socket's (the server's SERVER_PORT), not anything the client sent.
    """

    def __init__(self, app, bench_port: int) -> None:
        self.app = app
        self.bench_port = str(bench_port)

    def __call__(self, environ: dict, start_response):
        if environ.get("SERVER_PORT") == self.bench_port:
            if environ.get("PATH_INFO", "") not in BENCH_PATHS:
                start_response("404 Not Found", [("Content-Type", "text/plain"),
                                                 ("Content-Length", str(len(BENCH_PORT_NOT_FOUND)))])
                return [BENCH_PORT_NOT_FOUND]
        elif is_bench_spelling(environ.get("PATH_INFO", "")):
            environ.pop("HTTP_X_BENCH_TOKEN", None)  # the guard above then answers its 404 page
        return self.app(environ, start_response)
