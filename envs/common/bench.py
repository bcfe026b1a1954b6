"""The bench API: prepare, reset, snapshot, checkpoint and restore, health; and the apps'
fax line (see fax_line).

A checkpoint saves an episode's state at some point; a restore starts an episode from it,
as a reset starts one from a task's template, with the logins of that moment signed in
(see Kit.checkpoint, Kit.restore).

Hidden (404) without the run's token: `request_guards.guard_bench_paths` checks every
request whose path resolves here, however it is spelled.
"""
from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, jsonify, request

from admindesk.envs.common import clock
from admindesk.envs.common.fax_line import FaxDelivery, FaxReply
from admindesk.envs.common.state.database import UnknownCheckpoint
from admindesk.envs.common.state.seeding import SeedError
from admindesk.envs.common.state.snapshot import build_snapshot, dumps
from admindesk.envs.common.state.task_templates import UnknownTask
from admindesk.process_memory import trim_free_memory

bench = Blueprint("bench", __name__, url_prefix="/_bench")


def _trimmed_after(response: Response) -> Response:
    """`response`, with the allocator trimmed once it is sent: a template build (a task's
    first prepare or reset) and a snapshot leave MB of garbage, and trimming after the
    send keeps it off the caller's round trip."""
    response.call_on_close(trim_free_memory)
    return response


@bench.get("/health")
def health():
    kit = current_app.extensions["admindesk"]
    return jsonify(ok=True, app=kit.spec.name, generation=kit.generation)


def _request_body() -> tuple[dict | None, str | None]:
    """The JSON object a bench POST carries, or an error message."""
    body = request.get_json(silent=True) if request.data else {}
    if not isinstance(body, dict):
        return None, "the body must be a JSON object"
    task = body.get("task")
    if task is not None and (not isinstance(task, str) or not task):
        return None, "'task' must be a task id (a non-empty string) or null"
    return body, None


@bench.post("/prepare")
def prepare():
    """Build a task's template now, so the reset that follows is a plain copy.

    The first reset of a task builds its template (seconds on a busy machine); a client
    that keeps resets on a short timeout (to tell a hung app quickly) prepares first.
    """
    body, error = _request_body()
    if error or not body.get("task"):
        return jsonify(ok=False, error=error or "'task' names the task to prepare"), 400
    started = time.perf_counter()
    try:
        current_app.extensions["admindesk"].task_templates.template_for(body["task"])
    except (UnknownTask, SeedError) as exc:
        return jsonify(ok=False, error=str(exc)), 400
    return _trimmed_after(jsonify(ok=True, task=body["task"], ms=round((time.perf_counter() - started) * 1000, 2)))


@bench.post("/reset")
def reset():
    body, error = _request_body()
    if error:
        return jsonify(ok=False, error=f"reset: {error}"), 400
    try:
        now = clock.parse_now(body["now"]) if "now" in body else clock.DEFAULT_NOW
    except ValueError as exc:
        return jsonify(ok=False, error=str(exc)), 400
    task = body.get("task")
    started = time.perf_counter()
    kit = current_app.extensions["admindesk"]
    try:
        kit.reset(now, task)
    except (UnknownTask, SeedError) as exc:
        return jsonify(ok=False, error=str(exc)), 400
    return _trimmed_after(jsonify(ok=True, now=now.isoformat(), task=task, generation=kit.generation,
                                  ms=round((time.perf_counter() - started) * 1000, 2)))


@bench.get("/snapshot")
def snapshot():
    """Every table now; with `?state=initial`, as the last reset left them (see Kit.initial_snapshot)."""
    kit = current_app.extensions["admindesk"]
    state = request.args.get("state", "now")
    if state == "initial":
        return _trimmed_after(Response(kit.initial_snapshot(), mimetype="application/json"))
    if state != "now":
        return jsonify(ok=False, error=f"snapshot: state is now or initial, not {state!r}"), 400
    return _trimmed_after(Response(dumps(build_snapshot(kit.db, kit.db.request_session(), kit.spec.name,
                                                        clock.now())), mimetype="application/json"))


@bench.post("/checkpoint")
def checkpoint():
    """Save the episode's state now: its id, for /restore, and its generation."""
    started = time.perf_counter()
    kit = current_app.extensions["admindesk"]
    checkpoint_id = kit.checkpoint()
    return jsonify(ok=True, checkpoint=checkpoint_id, generation=kit.generation,
                   ms=round((time.perf_counter() - started) * 1000, 2))


@bench.post("/restore")
def restore():
    """Start an episode from a checkpoint (JSON `{"checkpoint": id}`), its logins signed in."""
    body = request.get_json(silent=True)
    checkpoint_id = body.get("checkpoint") if isinstance(body, dict) else None
    if not isinstance(checkpoint_id, str) or not checkpoint_id:
        return jsonify(ok=False, error="restore: the body must be a JSON object naming the checkpoint, "
                                       '{"checkpoint": "<the id /checkpoint answered>"}'), 400
    started = time.perf_counter()
    kit = current_app.extensions["admindesk"]
    try:
        kit.restore(checkpoint_id)
    except UnknownCheckpoint as exc:
        return jsonify(ok=False, error=f"restore: {exc}"), 400
    return jsonify(ok=True, generation=kit.generation, ms=round((time.perf_counter() - started) * 1000, 2))


@bench.post("/fax-line")
def fax_line():
    """A fax another app transmitted to some number: this app files it if the number is its own."""
    kit = current_app.extensions["admindesk"]
    try:
        delivery = FaxDelivery.from_json(request.get_json(silent=True))
    except (TypeError, ValueError) as exc:
        return jsonify(ok=False, error=f"fax-line: {exc}"), 400
    receiver = kit.spec.fax_receiver
    session = kit.db.request_session()
    answer = receiver(session, delivery) if receiver else False
    session.commit()
    if isinstance(answer, FaxReply):
        return jsonify(ok=True, accepted=True, reply=answer.to_json())
    return jsonify(ok=True, accepted=bool(answer))
