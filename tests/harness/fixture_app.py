"""A tiny stand-in app that honours the AdminDesk app contract, for fast harness tests.

Run as `ADMINDESK_BENCH_TOKEN=T python fixture_app.py --app NAME --port P --bench-port B
--data-dir D`, as the harness runs the apps (the token never on a command line). It has the
bench API (token-guarded, 404 without, on port B only, split off as the apps split it), a login form with a CSRF field, a playground page whose
widgets report every mouse/keyboard interaction to the server (so tests read effects from
the snapshot), a download, an upload form and a link that opens a new tab.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import os
import secrets
from functools import wraps
from urllib.parse import unquote

from flask import Flask, Response, abort, jsonify, redirect, request, session

from admindesk.envs.common.request_guards import BenchPortSplit

DOWNLOAD_BYTES = b"%PDF-1.4\n% fixture report\n" + bytes(range(256)) * 4

LOGIN_PAGE = """<!doctype html><title>Sign in - {app}</title><h1>{app} sign in</h1>
<form method=post action="/login?next={next}">
<input type=hidden name=csrf_token value="{csrf}">
<label>Username <input name=username></label>
<label>Password <input name=password type=password></label>
<button type=submit>Sign in</button></form>"""

PLAYGROUND = """<!doctype html><title>Playground - {app}</title>
<style>body{{margin:0;font:14px sans-serif}} .box{{position:absolute;width:120px;height:60px;
background:#cde;border:1px solid #345}} #tall{{height:3000px}}</style>
<script>
function report(kind, detail) {{
  fetch('/event', {{method: 'POST', headers: {{'Content-Type': 'application/json'}},
                   body: JSON.stringify({{kind: kind, detail: String(detail)}})}});
}}
let dragStart = null;
// What this page found of an earlier visit, then its own marks (isolation tests read it).
window.foundEarlierVisit = [localStorage.getItem('seen'), sessionStorage.getItem('seen'),
                            document.cookie.includes('client_mark='), window.name];
localStorage.setItem('seen', '1');
sessionStorage.setItem('seen', '1');
document.cookie = 'client_mark=1; path=/';
window.name = 'seen';
</script>
<h1 style="margin:8px">Playground {app}</h1>
<button class=box style="left:20px;top:60px" id=click onclick="report('click', 1)">Click</button>
<div class=box style="left:160px;top:60px" ondblclick="report('double_click', 1)">Double</div>
<div class=box style="left:300px;top:60px"
     oncontextmenu="event.preventDefault(); report('right_click', 1)">Right</div>
<div class=box style="left:440px;top:60px" onmouseenter="report('move', 1)">Hover</div>
<div class=box style="left:580px;top:60px" id=drag
     onmousedown="dragStart=[event.clientX, event.clientY]"
     onmouseup="if (dragStart) report('drag', event.clientX - dragStart[0])">Drag</div>
<form method=post action=/submit style="position:absolute;left:20px;top:160px">
  <input type=hidden name=csrf_token value="{csrf}">
  <label>Query <input name=q id=q autocomplete=off></label>
  <button type=submit>Submit</button>
</form>
<input id=keys style="position:absolute;left:20px;top:200px" placeholder="keys"
       onkeydown="report('key', (event.ctrlKey ? 'Control+' : '') + event.key)">
<div style="position:absolute;left:20px;top:240px">
  <a href="/page2" target="_blank" id=newtab>Open page two in a new tab</a> |
  <a href="/files/report.pdf" id=download>Download report</a> |
  <a href="/upload" id=upload>Upload form</a> |
  <button onclick="setTimeout(() => fetch('/slow').then(r => r.text()).then(t =>
     document.getElementById('late').textContent = t), 50)" id=slowbtn>Slow</button>
  <span id=late></span> |
  <a href="/files/report.pdf" download id=saveas>Save report as</a>
</div>
<div id=tall></div>
<script>window.addEventListener('scrollend', () => report('scroll', window.scrollY));</script>
"""


def create_app(name: str, token: str, bench_port: int) -> Flask:
    """The fixture app; state lives in memory and is cleared by reset."""
    app = Flask(name)
    app.secret_key = secrets.token_hex(16)
    app.config["SESSION_COOKIE_NAME"] = f"{name}_session"  # ports share one cookie jar
    at_reset: dict = {}  # "view": the snapshot the last reset left
    state: dict = {"now": None, "task": None, "events": [], "submissions": [], "uploads": [],
                   "logins": [], "bench_refused": 0, "bench_port_refused": 0, "bench_answered_on_pages_port": 0}

    def on_bench_port() -> bool:
        return request.environ.get("SERVER_PORT") == str(bench_port)

    @app.before_request
    def count_bench_requests_without_token():
        # Any spelling that decodes into the bench API (a real app's guard decodes it
        # repeatedly too), reached without the token. On the bench port, sandbox tests
        # require that the agent's page never gets this far.
        path = request.path
        while (decoded := unquote(path)) != path:
            path = decoded
        if "/_bench" in path.lower().replace("\\", "/") and request.headers.get("X-Bench-Token") != token:
            state["bench_port_refused" if on_bench_port() else "bench_refused"] += 1

    def bench_only(view):
        @wraps(view)
        def guarded(*args, **kwargs):
            if request.headers.get("X-Bench-Token") != token:
                abort(404)
            if not on_bench_port():  # BenchPortSplit must make this unreachable
                state["bench_answered_on_pages_port"] += 1
            return view(*args, **kwargs)
        return guarded

    def login_required(view):
        @wraps(view)
        def guarded(*args, **kwargs):
            if "user" not in session:
                return redirect(f"/login?next={request.path}")
            return view(*args, **kwargs)
        return guarded

    def csrf() -> str:
        session.setdefault("csrf", secrets.token_hex(8))
        return session["csrf"]

    @app.get("/_bench/health")
    @bench_only
    def health():
        return jsonify(ok=True, app=name)

    @app.post("/_bench/reset")
    @bench_only
    def reset():
        body = request.get_json(silent=True) or {}
        for rows in ("events", "submissions", "uploads", "logins"):
            state[rows] = []
        state["now"], state["task"] = body.get("now"), body.get("task")
        at_reset["view"] = copy.deepcopy(view())
        return jsonify(ok=True)

    @app.post("/_bench/prepare")
    @bench_only
    def prepare():
        state.setdefault("prepared", []).append((request.get_json(silent=True) or {}).get("task"))
        return jsonify(ok=True)

    @app.get("/_test/prepared")
    def prepared():
        return jsonify(state.get("prepared", []))

    def view() -> dict:
        return {"_meta": {"app": name, "now": state["now"], "task": state["task"]},
                **{k: v for k, v in state.items() if k not in ("now", "task", "prepared")}}

    @app.get("/_bench/snapshot")
    @bench_only
    def snapshot():
        # state=initial: as the last reset left it (the real apps rebuild it aside, factory.Kit).
        return jsonify(at_reset.get("view", view()) if request.args.get("state") == "initial" else view())

    @app.route("/login", methods=["GET", "POST"])
    def login():
        target = request.args.get("next", "/")
        if request.method == "POST":
            if (request.form.get("csrf_token") == session.get("csrf")
                    and request.form.get("username") == "coordinator"
                    and request.form.get("password") == "admindesk"):
                session["user"] = "coordinator"
                state["logins"].append({"user": "coordinator"})
                return redirect(target)
        return LOGIN_PAGE.format(app=name, next=target, csrf=csrf())

    @app.get("/")
    @login_required
    def playground():
        return PLAYGROUND.format(app=name, csrf=csrf())

    @app.get("/page2")
    @login_required
    def page_two():
        return f"<!doctype html><title>Page two - {name}</title><h1>Second page</h1>"

    @app.post("/event")
    @login_required
    def event():
        state["events"].append(request.get_json())
        return jsonify(ok=True)

    @app.post("/submit")
    @login_required
    def submit():
        state["submissions"].append({"q": request.form.get("q", "")})
        return redirect("/")

    @app.get("/poller")
    @login_required
    def poller():
        # Keeps writing for as long as it is open, as a busy page would: six loops, each posting
        # again 50 ms after its last post ended. A page the reset failed to stop would go on
        # writing into the next episode. (Posting again at once flooded the harness with
        # thousands of request events a second: on a loaded machine a step's frame then
        # missed its deadline, which is not what this page is for.)
        return (f"<!doctype html><title>Poller - {name}</title><h1>Polling</h1><script>"
                "const post = () => fetch('/event', {method: 'POST', headers: {'Content-Type':"
                " 'application/json'}, body: JSON.stringify({kind: 'poll', detail: '1'})})"
                ".finally(() => setTimeout(post, 50));\nfor (let i = 0; i < 6; i++) post();</script>")

    @app.get("/files/named")
    @login_required
    def download_named():
        # The server (not the harness) picks the name: it may try to climb out of Downloads.
        return Response(DOWNLOAD_BYTES, mimetype="application/octet-stream", headers={
            "Content-Disposition": f'attachment; filename="{request.args.get("name", "x")}"'})

    @app.get("/slow")
    def slow():
        import time
        time.sleep(0.3)
        return "late text arrived"

    @app.get("/files/report.pdf")
    @login_required
    def download():
        return Response(DOWNLOAD_BYTES, mimetype="application/pdf", headers={
            "Content-Disposition": "attachment; filename=report.pdf"})

    @app.route("/upload", methods=["GET", "POST"])
    @login_required
    def upload():
        if request.method == "POST":
            for stored in request.files.getlist("attachment"):
                data = stored.read()
                state["uploads"].append({"name": stored.filename,
                                         "sha256": hashlib.sha256(data).hexdigest()})
            return redirect("/upload")
        done = "".join(f"<li>{u['name']}</li>" for u in state["uploads"])
        return (f"<!doctype html><title>Upload - {name}</title><h1>Upload</h1>"
                "<form method=post enctype=multipart/form-data>"
                "<label>Attachment <input type=file name=attachment id=file></label>"
                f"<button type=submit>Send</button></form><ul>{done}</ul>")

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    for option in ("--app", "--data-dir"):
        parser.add_argument(option, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--bench-port", type=int, required=True)
    args = parser.parse_args()
    token = os.environ.pop("ADMINDESK_BENCH_TOKEN", "")
    if not token:
        parser.error("set ADMINDESK_BENCH_TOKEN")
    from waitress import serve
    serve(BenchPortSplit(create_app(args.app, token, args.bench_port), args.bench_port),
          listen=f"127.0.0.1:{args.port} 127.0.0.1:{args.bench_port}", threads=8, _quiet=True)


if __name__ == "__main__":
    main()
