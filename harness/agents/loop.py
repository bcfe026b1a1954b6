"""`run_episode`: one agent plays one task in an `Env`; its notes join the trajectory.

Each trajectory entry of the record (entry 0 is the reset, entry k the k-th action) gets
an `agent` key with what the agent noted while choosing that action: the model's
reasoning, the tokens and cost of the call, a malformed reply's error. The totals are
in the result's `usage`.
"""
from __future__ import annotations

from dataclasses import dataclass

from admindesk.harness.agents.base import Agent, AgentError, Usage, total_usage
from admindesk.harness.env.environment import Env
from admindesk.schema.task_model import Task
from admindesk.verifiers.records import EpisodeRecord


@dataclass
class EpisodeResult:
    """The record for scoring, the agent's total usage, and the error that stopped the
    agent early (its model endpoint failing), if one did."""

    record: EpisodeRecord
    usage: Usage
    agent_error: str | None = None


def run_episode(env: Env, agent: Agent, task: Task | str | dict) -> EpisodeResult:
    """Reset the Env and the agent, step until the episode ends, return the record."""
    observation, info = env.reset(task)
    agent.reset(info["goal"], env.task)
    agent_error = None
    while True:
        try:
            action = agent.act(observation)
        except AgentError as exc:
            agent_error = str(exc)
            break
        observation, terminated, truncated, _info = env.step(action)
        if terminated or truncated:
            break
    record = env.record()
    attach_notes(record, agent)
    return EpisodeResult(record=record, usage=total_usage(agent.notes), agent_error=agent_error)


def attach_notes(record, agent) -> None:
    """File a model agent's per-step notes (reasoning, tokens, cost, errors) into the
    trajectory entries their actions made; agents without notes leave it as it is."""
    for note in getattr(agent, "notes", ()):
        index = note.step + 1  # the note chose the action that made trajectory entry step+1
        if index < len(record.trajectory):
            record.trajectory[index]["agent"] = note.model_dump(exclude={"action"})
