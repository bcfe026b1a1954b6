"""`make_agent(name, **options)`: the agents by name, as the runner and the CLI build them.

Options come from flags; what a flag leaves unset falls back to an environment variable:
`ADMINDESK_MODEL` (model), `ADMINDESK_BASE_URL` (base_url), `ADMINDESK_API_KEY_ENV` (the
name of the variable that holds the key; defaults per provider: OPENAI_API_KEY,
ANTHROPIC_API_KEY).
"""
from __future__ import annotations

import inspect
import os
from typing import Any, Callable

from admindesk.harness.agents.anthropic_cu import AnthropicCUAgent
from admindesk.harness.agents.base import Agent
from admindesk.harness.agents.model_agent import ModelAgent
from admindesk.harness.agents.openai_compatible import OpenAICompatibleAgent
from admindesk.harness.agents.openai_cua import OpenAICUAgent
from admindesk.harness.agents.simple import NoopAgent, RandomAgent
from admindesk.harness.agents.controls import DoItAnyway, NotesOnly, WrongPatient
from admindesk.harness.agents.reference import ReferenceAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "noop": NoopAgent,
    "random": RandomAgent,
    "openai-cua": OpenAICUAgent,
    "anthropic-cu": AnthropicCUAgent,
    "openai-compatible": OpenAICompatibleAgent,
    # Scripted agents (they `drive` the Env themselves): reference solutions and controls.
    "reference": ReferenceAgent,
    "notes-only": NotesOnly,
    "wrong-patient": WrongPatient,
    "do-it-anyway": DoItAnyway,
}
ENV_DEFAULTS = {"model": "ADMINDESK_MODEL", "base_url": "ADMINDESK_BASE_URL",
                "api_key_env": "ADMINDESK_API_KEY_ENV"}


def agent_options(factory: Callable[..., Agent]) -> list[str]:
    """The option names an agent takes (a model agent's own plus the shared ones)."""
    names = [p for p in inspect.signature(factory).parameters if p != "options"]
    if isinstance(factory, type) and issubclass(factory, ModelAgent):
        names += [p for p in inspect.signature(ModelAgent.__init__).parameters if p != "self"]
    return sorted(set(names))


def make_agent(name: str, **options: Any) -> Agent:
    """The agent called `name`, built with `options` (None values are left to defaults and
    environment variables). ValueError names the agents or options that do exist."""
    if name not in AGENTS:
        raise ValueError(f"no agent {name!r} (agents: {', '.join(AGENTS)})")
    factory = AGENTS[name]
    known = agent_options(factory)
    given = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"agent {name} has no option {', '.join(unknown)} (options: {', '.join(known)})")
    for option, variable in ENV_DEFAULTS.items():
        if option in known and option not in given and os.environ.get(variable):
            given[option] = os.environ[variable]
    return factory(**given)
