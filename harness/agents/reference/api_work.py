"""What an API-channel reference solution works with: the case and the phases of `Work`
(ablation by subtask), and calls to the apps' APIs through `ApiEnv.step`, so the solution
acts only through the channel's public actions, as a tool-calling agent would.

A template's API solution is `solve_api(work: ApiWork)` in the template's module, beside its
screens solution `solve(work)`.
"""
from __future__ import annotations

import json
from typing import Any

from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed
from admindesk.harness.env.api_env import ApiEnv
from admindesk.schema.task_model import Task


class ApiWork(Work):
    """One API-channel reference episode (see the module docstring)."""

    def __init__(self, env: ApiEnv, task: Task, skip: str | None = None, route: str | None = None) -> None:
        super().__init__(env, task, skip=skip, route=route)  # type: ignore[arg-type]
        self.actor = None  # no pages to act on

    def call(self, server: str, method: str, path: str, body: dict | None = None) -> dict[str, Any]:
        """One API request; its JSON body. ScriptFailed when the server refuses it."""
        obs, *_ = self.env.step({"type": "api_request", "server": server, "method": method, "path": path,
                                 "body": body})
        status_line, _, text = obs.text.partition("\n")
        if obs.last_action_error:
            raise ScriptFailed(f"{method} {path} on {server}: {obs.last_action_error or status_line}: {text[:600]}")
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ScriptFailed(f"{method} {path} on {server} answered no JSON: {text[:300]!r}") from exc

    def get(self, server: str, path: str) -> dict[str, Any]:
        return self.call(server, "GET", path)

    def post(self, server: str, path: str, body: dict) -> dict[str, Any]:
        return self.call(server, "POST", path, body)

    def finish(self, answer: str) -> None:
        """End the episode with the final answer."""
        self.env.step({"type": "done", "answer": answer})
