"""The board ranks models: an entry's trajectories must show the model calls behind its actions.

A model agent notes on every step the call that chose the action (harness.agents.loop
files the notes into the trajectory): the provider's response id, the model version the
provider answered with, and the call's token counts. A scripted agent (the reference
solutions, the controls) has no such calls, so relabelling one as a model is refused,
as is an agent our registry knows to be scripted. Steps without a call of their own are
accepted as they are explained: an action from an earlier call's batch, the Done that ends
a spent step budget, and the zero-second wait that answers a malformed reply.
"""
from __future__ import annotations

from typing import Any

# The registry's scripted agents (harness.agents.registry): never a model entry.
SCRIPTED_AGENTS = frozenset({"noop", "random", "reference", "notes-only", "wrong-patient", "do-it-anyway"})
CALL_EVIDENCE = "the provider's response id, the model version and the call's token counts"


def _call_problem(entry: dict[str, Any]) -> str | None:
    """Why one trajectory step does not show the model call behind its action (None: it does)."""
    note = entry.get("agent")
    if not isinstance(note, dict):
        return "no agent note"
    details = note.get("details") if isinstance(note.get("details"), dict) else {}
    action = entry.get("action") if isinstance(entry.get("action"), dict) else {}
    if details.get("batched") is True:
        return None
    if str(note.get("error") or "").startswith("step budget") and action.get("type") == "done":
        return None
    if "raw_reply" in details:
        return None if action == {"type": "wait", "seconds": 0} or (
            action.get("type") == "wait" and not action.get("seconds")) else "a malformed reply that acted"
    usage = note.get("usage") if isinstance(note.get("usage"), dict) else {}
    missing = [name for name, ok in (
        ("response id", isinstance(details.get("response_id"), str) and details["response_id"].strip()),
        ("model version", isinstance(details.get("model"), str) and details["model"].strip()),
        ("token counts", all(isinstance(usage.get(k), int) and usage[k] > 0 for k in ("input_tokens", "output_tokens"))),
    ) if not ok]
    return f"no {', '.join(missing)}" if missing else None


def model_call_problems(episode: str, trajectory: list[dict[str, Any]]) -> list[str]:
    """The first step of an episode whose model call is not on record, as a problem."""
    for entry in trajectory[1:]:  # entry 0 is the reset
        problem = _call_problem(entry)
        if problem is not None:
            return [f"{episode}: step {entry.get('step')} does not show the model call that chose its action "
                    f"({problem}; a model entry's trajectory carries {CALL_EVIDENCE} of every call)"]
    return []


def scripted_agent_problem(agent: str | None) -> list[str]:
    """A scripted agent entered as a model."""
    if agent in SCRIPTED_AGENTS:
        return [f"agent {agent!r} is scripted (a reference solution or a control), not a model: "
                "it cannot be entered on the leaderboard"]
    return []
