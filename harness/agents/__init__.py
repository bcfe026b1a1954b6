"""Agents: `noop`, `random` and the model agents (`openai-cua`, `anthropic-cu`,
`openai-compatible`), built by name with `make_agent`; `run_episode` plays one task."""
from admindesk.harness.agents.base import Agent, AgentError, StepNote, Usage, total_usage
from admindesk.harness.agents.registry import AGENTS, make_agent

__all__ = ["AGENTS", "Agent", "AgentError", "StepNote", "Usage", "make_agent", "total_usage"]
