"""Helpers for the agent tests: OpenAI Responses bodies (the chat and Anthropic ones are in
tests/unit/protocol_servers.py), element ids read from an accessibility tree, and the
pixel targets of the fax app's sign-in form."""
from __future__ import annotations

import re
from typing import Any

from tests.unit.protocol_servers import Reply, json_reply

SIGN_IN_TASK = {"id": "adhoc-sign-in", "goal": "Sign in to the fax server.",
                "start": {"app": "fax", "path": "/login", "login": False}, "max_steps": 12}
INBOX_TASK = {"id": "adhoc-inbox", "goal": "Show unread faxes, then open the phonebook.",
              "start": {"app": "fax", "path": "/inbox", "login": True}, "max_steps": 12}


def element_id(axtree: str, role: str, name: str) -> str:
    """The ref of the first `role "name"` line of an accessibility tree."""
    match = re.search(rf'- {role} "{re.escape(name)}"[^\n]*?\[ref=((?:f\d+)?e\d+)\]', axtree)
    assert match, f'no {role} "{name}" in the tree'
    return match.group(1)


def sign_in_targets(env) -> dict[str, tuple[int, int]]:
    """Frame pixels of the sign-in form's fields (a reset is deterministic: they hold for
    the next reset of the same task)."""
    env.reset(SIGN_IN_TASK)
    return {"username": env.element_center("input[name=username]"),
            "password": env.element_center("input[name=password]")}


def responses_body(response_id: str, output: list[dict[str, Any]], *, input_tokens: int = 1500,
                   output_tokens: int = 40, cached_tokens: int = 0,
                   model: str = "computer-use-preview-2025-03-11") -> dict[str, Any]:
    """An OpenAI Responses API `response` object as the API returns it."""
    return {"id": response_id, "object": "response", "created_at": 1767225600, "status": "completed",
            "model": model, "output": output, "error": None, "incomplete_details": None,
            "instructions": None, "metadata": {}, "parallel_tool_calls": True, "temperature": 1.0,
            "top_p": 1.0, "tool_choice": "auto", "tools": [], "truncation": "auto",
            "reasoning": {"effort": "medium", "summary": "concise"}, "text": {"format": {"type": "text"}},
            "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": cached_tokens},
                      "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": input_tokens + output_tokens}}


def computer_call(number: int, action: dict[str, Any], reasoning: str = "",
                  safety_checks: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Output items of one computer-call turn: a reasoning summary and the call."""
    items: list[dict[str, Any]] = []
    if reasoning:
        items.append({"type": "reasoning", "id": f"rs_{number}",
                      "summary": [{"type": "summary_text", "text": reasoning}]})
    items.append({"type": "computer_call", "id": f"cu_{number}", "call_id": f"call_{number}",
                  "action": action, "pending_safety_checks": safety_checks or [], "status": "completed"})
    return items


def final_message(text: str) -> list[dict[str, Any]]:
    """Output items of a closing assistant message."""
    return [{"type": "message", "id": "msg_final", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]}]


def responses_reply(response_id: str, output: list[dict[str, Any]], **usage: Any) -> Reply:
    """`responses_body` as a scripted HTTP 200."""
    return json_reply(responses_body(response_id, output, **usage))


def trajectory_actions(record) -> list[dict[str, Any]]:
    """The actions that reached the Env, in order (entry 0 is the reset)."""
    return [entry["action"] for entry in record.trajectory[1:]]
