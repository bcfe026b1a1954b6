"""The task card server scores Done only when the card's own page posts it: a cross-origin
post (any web page the person visits can post to a loopback port), a post without the
card's CSRF token, and any request naming another host (DNS rebinding) are refused."""
from __future__ import annotations

import http.client
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest

from admindesk.harness.env.services import HOST, free_port
from admindesk.harness.integrations.play import PlaySession, find_task
from tests.harness.conftest import fixture_services
from tests.integrations.comment_task import write_comment_task

CSRF_FIELD = "csrf_token"  # the card form's field


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("card-tasks")
    write_comment_task(folder, "card-comment-01", "ORD-1")
    printed: list[str] = []
    with PlaySession(find_task("card-comment-01", folder), card_port=free_port(),
                     services=fixture_services(), echo=printed.append) as played:
        played.printed = printed
        yield played


@pytest.fixture(autouse=True)
def unscored(session):
    session.result = None
    session.printed.clear()


def request(session: PlaySession, method: str, path: str, headers: dict[str, str],
            form: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection(HOST, session.card_port, timeout=30)
    try:
        body = urlencode(form).encode() if form is not None else None
        if body is not None:
            headers = {"Content-Type": "application/x-www-form-urlencoded",
                       "Content-Length": str(len(body)), **headers}
        conn.putrequest(method, path, skip_host=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, response.read().decode(), dict(response.getheaders())
    finally:
        conn.close()


def own_host(session: PlaySession) -> dict[str, str]:
    return {"Host": f"{HOST}:{session.card_port}"}


def card_token(session: PlaySession) -> str:
    status, page, _ = request(session, "GET", "/", own_host(session))
    assert status == 200
    return re.search(rf'name="{CSRF_FIELD}" value="([^"]+)"', page).group(1)


def test_the_cards_own_form_is_scored(session):
    token = card_token(session)
    headers = {**own_host(session), "Origin": f"http://{HOST}:{session.card_port}",
               "Sec-Fetch-Site": "same-origin"}
    status, page, reply = request(session, "POST", "/done", headers, {CSRF_FIELD: token, "answer": "done"})
    assert status == 303 and reply["Location"] == "/", page
    assert session.result is not None and session.printed


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},  # another loopback port is another origin
])
def test_a_cross_origin_done_is_refused_even_with_the_token(session, headers):
    form = {CSRF_FIELD: card_token(session), "answer": "forged"}
    status, page, _ = request(session, "POST", "/done", {**own_host(session), **headers}, form)
    assert status == 403 and "card's own page" in page
    assert session.result is None and not session.printed


@pytest.mark.parametrize("token", [None, "", "guessed-token"])
def test_a_done_without_the_cards_token_is_refused(session, token):
    form = {"answer": "forged"} if token is None else {CSRF_FIELD: token, "answer": "forged"}
    headers = {**own_host(session), "Origin": f"http://localhost:{session.card_port}"}
    status, page, _ = request(session, "POST", "/done", headers, form)
    assert status == 403 and "reload the card" in page
    assert session.result is None


@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("host", ["evil.example", "evil.example:{P}", "127.0.0.1", "{H}:1"])
def test_a_foreign_host_header_is_refused(session, method, host):
    host = host.replace("{P}", str(session.card_port)).replace("{H}", HOST)
    form = {CSRF_FIELD: session.csrf_token, "answer": "forged"} if method == "POST" else None
    status, page, _ = request(session, method, "/" if method == "GET" else "/done", {"Host": host}, form)
    assert status == 403 and "answers only as" in page
    assert session.csrf_token not in page and session.result is None


def test_the_card_cannot_be_framed_or_cached(session):
    _, _, reply = request(session, "GET", "/", own_host(session))
    assert reply["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in reply["Content-Security-Policy"]
    assert reply["Cache-Control"] == "no-store"


@pytest.mark.browser
def test_in_chromium_another_sites_form_is_refused_and_the_cards_own_is_scored(session, page):
    attack = (f'<form method="post" action="http://{HOST}:{session.card_port}/done">'
              '<input name="answer" value="forged"><button id="go">go</button></form>').encode()

    class AttackerPage(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(attack)

        def log_message(self, *args: object) -> None:
            """Quiet."""

    attacker = ThreadingHTTPServer((HOST, 0), AttackerPage)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://{HOST}:{attacker.server_address[1]}/")
        with page.expect_navigation():
            page.click("#go")
        assert "card's own page" in page.content() and session.result is None
    finally:
        attacker.shutdown()
        attacker.server_close()
    page.goto(session.card_url)
    page.fill("#answer", "Commented on the order.")
    with page.expect_navigation():
        page.click("button:text-is('Done')")
    assert session.result is not None and session.printed, page.content()
