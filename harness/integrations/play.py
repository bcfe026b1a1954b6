"""Play mode: a person does a task in the apps, presses Done, and sees how the checks judge it.

`PlaySession` starts the apps on fixed ports, resets them to the task's state, and serves
a task card (goal, guidance, links into the apps, a box for the final answer and a Done
button) from a small server of its own, outside the apps. Done scores the apps' current
state with the task's checks, exactly as the harness scores an agent's episode, prints
the check-by-check result (a query's `{{name}}` shown as the value it ran with) and shows
it on the card, whose timer stops at the first Done. For a human baseline the first Done
also writes the attempt as JSON (human_attempt.py); only the first Done counts.

The card server takes Done only from the card's own page (any web page could post to a
loopback port): it answers only its own host name, and Done needs a same-origin request
carrying the session's CSRF token. Used by designers trying a new task and for human
baselines (docs/human_baseline.md).
"""
from __future__ import annotations

import hmac
import html
import json
import re
import secrets
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Mapping
from urllib.parse import parse_qs

from admindesk.harness.agents.prompting import app_guidance
from admindesk.harness.env.environment import APP_LABELS, DEFAULT_PASSWORD, DEFAULT_USERNAME
from admindesk.harness.env.services import HOST, Services
from admindesk.harness.integrations.human_attempt import (
    HumanAttempt,
    Participant,
    build_attempt,
    write_attempt,
)
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, Task, load_tasks
from admindesk.schema.values import CaseReferenceError, resolve
from admindesk.verifiers.judge import Judge
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import NamedResult, TaskResult, score_task

MAX_FORM_BYTES = 64_000
PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
CSRF_FIELD = "csrf_token"
# The card may not be framed by another page (a framed Done button can be clicked for the
# person) nor cached (it carries the CSRF token). "same-origin", not "no-referrer": under
# no-referrer Chromium sends the card's own Done with `Origin: null`, which is refused.
CARD_HEADERS = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'",
                "Cache-Control": "no-store", "Referrer-Policy": "same-origin"}


def find_task(task_id: str, tasks_dir: Path = TASKS_ROOT) -> Task:
    """The task with id `task_id` under `tasks_dir` (KeyError naming the folder otherwise)."""
    for task in load_tasks(tasks_dir):
        if task.id == task_id:
            return task
    raise KeyError(f"no task {task_id!r} under {tasks_dir}")


def _query_values(task: Task) -> dict[str, dict[str, str]]:
    """Check or guard id -> its queries' `{{name}}` parameters, each as the JSON value the
    query ran with (explanations quote a check's query as written, placeholders and all)."""
    case = case_values(task)
    values: dict[str, dict[str, str]] = {}
    for check in [*task.checks(), *task.guards]:
        for query in check.app_queries():
            for name, spec in query.params.items():
                try:
                    shown = json.dumps(resolve(spec, case))
                except CaseReferenceError:
                    continue  # the check itself failed on this; its explanation says so
                values.setdefault(check.id, {})[name] = shown
    return values


def _filled(text: str, values: dict[str, str]) -> str:
    """`text` with each `{{name}}` replaced by its value (`name` when none is known)."""
    return PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(1)), text)


def result_lines(result: TaskResult, task: Task) -> list[str]:
    """The verdict, then each subtask's checks and each guard, one line each, with the
    queries' placeholders filled in from the task's case."""
    values = _query_values(task)

    def line(named: NamedResult) -> str:
        why = _filled(" ".join(named.result.explanation.split()), values.get(named.id, {}))
        return f"    {named.result.state.upper():<8} {named.kind:<10} {named.id}: {why[:160]}"

    lines = [f"{result.task_id}: {result.outcome.upper()} "
             f"({result.n_checks_passed}/{result.n_checks} checks passed)"]
    for subtask in result.subtasks:
        lines.append(f"  subtask {subtask.id} ({subtask.category}): {subtask.outcome}")
        lines.extend(line(named) for named in subtask.checks)
    if result.guards:
        lines.append("  guards:")
        lines.extend(line(named) for named in result.guards)
    return lines


class PlaySession:
    """The apps in one task's state plus the task card server. Use as a context manager."""

    def __init__(self, task: Task, *, base_port: int = 5100, card_port: int = 5099,
                 judge: Judge | None = None, echo: Callable[[str], None] = print,
                 services: Services | None = None, attempt_file: Path | None = None,
                 participant: Participant | None = None, judge_spec: str | None = None,
                 guidance_dir: Path | None = None) -> None:
        """With `attempt_file` and `participant`, the first Done writes the human-baseline
        attempt (harness/integrations/human_attempt.py) there; `judge_spec` names `judge`.
        The card shows the apps' guidance from `guidance_dir` (default: the suite's), as an
        agent in the general prompt mode reads it."""
        if (attempt_file is None) != (participant is None):
            raise ValueError("a human-baseline attempt needs both its file and its participant")
        self.task, self.judge, self.echo = task, judge, echo
        self.attempt_file, self.participant, self.judge_spec = attempt_file, participant, judge_spec
        self.services = services or Services(base_port=base_port)
        self.card_port = card_port
        self.conventions = app_guidance(guidance_dir)
        self.result: TaskResult | None = None
        self.seconds_on_task: float | None = None
        self.started_at = 0.0
        self.started_wall = datetime.now(timezone.utc)
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()
        # Any web page the person visits can post to a loopback port; only the card's own
        # form carries this token, and only the card's own page can read it.
        self.csrf_token = secrets.token_urlsafe(24)

    def __enter__(self) -> "PlaySession":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def card_url(self) -> str:
        """Where the task card is served."""
        return f"http://{HOST}:{self.card_port}/"

    @property
    def card_hosts(self) -> frozenset[str]:
        """The Host headers the card answers (any other name is DNS rebinding)."""
        return frozenset(f"{name}:{self.card_port}" for name in (HOST, "localhost"))

    def host_refusal(self, headers: Mapping[str, str]) -> str | None:
        """Why a request naming another host must be refused (DNS rebinding), else None."""
        host = (headers.get("Host") or "").strip().lower()
        if host not in self.card_hosts:
            return f"the task card answers only as {self.card_url} (Host {host[:100] or '(none)'!r} refused)"
        return None

    def done_refusal(self, headers: Mapping[str, str], form: Mapping[str, list[str]]) -> str | None:
        """Why a Done post must be refused, else None.

        Done must come from the card's own page: a foreign Origin or Sec-Fetch-Site is
        refused, and the form must carry this session's CSRF token (a client that sends
        neither header still needs the token, which only the card's page shows).
        """
        origin = headers.get("Origin")
        if origin is not None and origin.strip().lower() not in {f"http://{name}" for name in self.card_hosts}:
            return f"Done is accepted only from the task card's own page (Origin {origin[:100]!r} refused)"
        site = headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() != "same-origin":
            return f"Done is accepted only from the task card's own page (Sec-Fetch-Site {site[:40]!r})"
        supplied = form.get(CSRF_FIELD, [""])[0]
        if not hmac.compare_digest(supplied.encode(), self.csrf_token.encode()):
            return "this Done form is not the current card's: reload the card and press Done again"
        return None

    def start(self) -> "PlaySession":
        """Start the apps, reset them to the task's state, and serve the card."""
        try:
            if not self.services.processes:
                self.services.start()
            task = self.task
            builds_state = task.case is not None or bool(task.seed) or bool(task.interruptions)
            self.services.reset_all(task.now, task.id if builds_state else None)
            self.initial_snapshots = self.services.snapshot_all()
            self._server = ThreadingHTTPServer((HOST, self.card_port), self._handler())
            threading.Thread(target=self._server.serve_forever, name="task-card", daemon=True).start()
        except BaseException:
            self.close()
            raise
        self.started_at = time.monotonic()
        self.started_wall = datetime.now(timezone.utc)
        return self

    def done(self, answer: str = "") -> TaskResult:
        """Score the apps' current state with the task's checks; print and keep the result."""
        with self._lock:
            record = EpisodeRecord(task_id=self.task.id, initial_snapshots=self.initial_snapshots,
                                   final_snapshots=self.services.snapshot_all(),
                                   answer=answer.strip() or None)
            first_done = self.result is None
            self.result = score_task(self.task, record, self.judge)
            elapsed = time.monotonic() - self.started_at
            if first_done:
                self.seconds_on_task = elapsed
            for text in [*result_lines(self.result, self.task), f"  time on task: {elapsed:.0f} s"]:
                self.echo(text)
            if self.attempt_file is not None and not first_done:
                self.echo(f"  attempt in {self.attempt_file} kept as the first Done wrote it (only the first counts)")
            elif self.attempt_file is not None and self.participant is not None:
                self._write_attempt(build_attempt(
                    self.task, self.participant, self.result, answer=answer.strip(),
                    started_at=self.started_wall, finished_at=datetime.now(timezone.utc),
                    seconds=elapsed, judge_spec=self.judge_spec), self.attempt_file)
            return self.result

    def _write_attempt(self, attempt: HumanAttempt, path: Path) -> None:
        try:
            write_attempt(path, attempt)
        except FileExistsError:
            self.echo(f"  attempt NOT written: {path} already exists (only a first attempt counts)")
            return
        self.echo(f"  attempt written to {path}")

    def close(self) -> None:
        """Stop the card server and the apps (idempotent)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.services.close()

    # ---- the card ------------------------------------------------------------------------
    def card_html(self) -> str:
        """The task card: goal, guidance, where to start, the answer box and Done."""
        task, esc = self.task, html.escape
        start = self.services.url(task.start.app, task.start.path)
        apps = "".join(f'<li><a href="{esc(self.services.url(name))}" target="_blank">'
                       f"{esc(APP_LABELS.get(name, name))}</a></li>" for name in self.services.processes)
        guidance = "".join(f"<li>{esc(line)}</li>" for line in task.guidance)
        verdict, timer = "", self._timer_html()
        if self.result is not None:
            verdict = (f'<section aria-labelledby="verdict-h"><h2 id="verdict-h">Result: '
                       f'<span id="outcome">{esc(self.result.outcome)}</span></h2><pre id="checks">'
                       f"{esc(chr(10).join(result_lines(self.result, task)))}</pre></section>")
        return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Task {esc(task.id)}</title><style>body{{font:16px/1.5 sans-serif;max-width:60rem;margin:2rem auto;
color:#1a1a1a}}pre{{white-space:pre-wrap;background:#f2f2f2;padding:1rem}}button{{font-size:1.1rem;
padding:.5rem 1.5rem}}textarea{{width:100%}}</style></head><body>
<h1>Task {esc(task.id)}</h1>{timer}<p id="goal">{esc(task.goal)}</p>
{f'<h2>Guidance</h2><ol>{guidance}</ol>' if guidance else ''}
<details id="conventions"><summary>How the applications work, and the desk's conventions</summary>
<pre>{esc(self.conventions)}</pre></details>
<p>Start here: <a id="start" href="{esc(start)}" target="_blank">{esc(start)}</a>
(sign in as <b>{DEFAULT_USERNAME}</b> / <b>{DEFAULT_PASSWORD}</b>).</p><h2>Apps</h2><ul>{apps}</ul>
<form method="post" action="/done">
<input type="hidden" name="{CSRF_FIELD}" value="{esc(self.csrf_token)}">
<label for="answer">Your final report (what you did and found)</label>
<textarea id="answer" name="answer" rows="4"></textarea><p><button type="submit">Done</button></p></form>
{verdict}</body></html>"""

    def _timer_html(self) -> str:
        """Time on task, counting on the card until the first Done, then the time Done gave."""
        stopped = self.seconds_on_task is not None
        seconds = int(self.seconds_on_task if stopped else time.monotonic() - self.started_at)
        shown = f"{seconds // 60}:{seconds % 60:02d}"
        script = "" if stopped else (
            '<script>(function(){var t=document.getElementById("timer"),s=Number(t.dataset.seconds),'
            'at=Date.now();setInterval(function(){var n=s+Math.floor((Date.now()-at)/1000);'
            't.textContent=Math.floor(n/60)+":"+String(n%60).padStart(2,"0");},1000);}());</script>')
        return (f'<p>Time on task: <span id="timer" role="timer" data-seconds="{seconds}" '
                f'data-stopped="{str(stopped).lower()}">{shown}</span>'
                f'{" (stopped at Done)" if stopped else ""}</p>{script}')

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        session = self

        class CardHandler(BaseHTTPRequestHandler):
            def end_headers(self) -> None:
                for name, value in CARD_HEADERS.items():
                    self.send_header(name, value)
                super().end_headers()

            def foreign_host(self) -> bool:
                refused = session.host_refusal(self.headers)
                if refused:
                    self.send_error(403, refused)
                return refused is not None

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.foreign_host():
                    return
                if self.path != "/":
                    self.send_error(404, "the card is at /")
                    return
                body = session.card_html().encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                if self.foreign_host():
                    return
                if self.path != "/done":
                    self.send_error(404, "Done posts to /done")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    length = -1
                if not 0 <= length <= MAX_FORM_BYTES:
                    self.send_error(400, f"a Done form is 0..{MAX_FORM_BYTES} bytes")
                    return
                form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
                refused = session.done_refusal(self.headers, form)
                if refused:
                    self.send_error(403, refused)
                    return
                session.done(form.get("answer", [""])[0])
                self.send_response(303)
                self.send_header("Location", "/")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                """Quiet: the terminal shows the verdicts, not the card's requests."""

        return CardHandler
