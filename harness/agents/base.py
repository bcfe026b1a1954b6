"""The `Agent` protocol and what every agent keeps of an episode: one note per decision.

An agent turns observations into actions. Whatever it wants recorded beside the Env's own
trajectory (the model's reasoning, tokens, cost, a malformed reply) goes into `notes`, one
`StepNote` per `act` call; `run_episode` merges them into the episode record.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from admindesk.harness.env.actions import Action
from admindesk.harness.env.observation import Observation
from admindesk.schema.task_model import Task


class AgentError(RuntimeError):
    """The agent cannot go on (e.g. its model endpoint kept failing after every retry).

    Not the agent's mistake on the task: a runner records the episode as errored, not failed.
    """


class Usage(BaseModel):
    """Tokens one model call (or a sum of calls) used, and what they cost."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    calls: int = 0
    # None when the model has no entry in the price table (self-hosted or unknown).
    cost_usd: float | None = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        cost = (None if self.cost_usd is None or other.cost_usd is None
                else round(self.cost_usd + other.cost_usd, 6))
        return Usage(input_tokens=self.input_tokens + other.input_tokens,
                     output_tokens=self.output_tokens + other.output_tokens,
                     cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
                     calls=self.calls + other.calls, cost_usd=cost)


class StepNote(BaseModel):
    """What the agent recorded while choosing one action."""

    step: int
    action: dict[str, Any] | None = None
    reasoning: str = ""
    usage: Usage = Field(default_factory=Usage)
    # A reply that could not be turned into an action, a refused safety check, a budget end.
    error: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class Agent(Protocol):
    """Anything that can play an episode: `reset` once, then `act` per observation."""

    name: str
    notes: list[StepNote]

    def reset(self, task_goal: str, task: Task | None = None) -> None:
        """Forget the last episode; `task` (when given) supplies the prompt mode's guidance."""

    def act(self, observation: Observation) -> Action:
        """The next action for this observation."""


def total_usage(notes: list[StepNote]) -> Usage:
    """The sum of every note's usage (cost None if any call's price was unknown)."""
    total = Usage()
    for note in notes:
        total = total + note.usage
    return total
