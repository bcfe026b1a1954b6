"""The bench API: reset, snapshot and health.

Hidden (404) without the run's token: `request_guards.guard_bench_paths` checks every
request whose path resolves here, however it is spelled.
"""
from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, jsonify, request

from . import clock
from .seeding import SeedError
from .snapshot import build_snapshot, dumps
from .task_templates import UnknownTask

bench = Blueprint("bench", __name__, url_prefix="/_bench")


@bench.get("/health")
def health():
    kit = current_app.extensions["admindesk"]
    return jsonify(ok=True, app=kit.spec.name, generation=kit.generation)


@bench.post("/reset")
def reset():
    body = request.get_json(silent=True) if request.data else {}
    if not isinstance(body, dict):
        return jsonify(ok=False, error="reset body must be a JSON object"), 400
    try:
        now = clock.parse_now(body["now"]) if "now" in body else clock.DEFAULT_NOW
    except ValueError as exc:
        return jsonify(ok=False, error=str(exc)), 400
    task = body.get("task")
    if task is not None and (not isinstance(task, str) or not task):
        return jsonify(ok=False, error="'task' must be a task id (a non-empty string) or null"), 400
    started = time.perf_counter()
    kit = current_app.extensions["admindesk"]
    try:
        kit.reset(now, task)
    except (UnknownTask, SeedError) as exc:
        return jsonify(ok=False, error=str(exc)), 400
    return jsonify(ok=True, now=now.isoformat(), task=task, generation=kit.generation,
                   ms=round((time.perf_counter() - started) * 1000, 2))


@bench.get("/snapshot")
def snapshot():
    kit = current_app.extensions["admindesk"]
    return Response(dumps(build_snapshot(kit.db, kit.db.request_session(), kit.spec.name, clock.now())),
                    mimetype="application/json")
