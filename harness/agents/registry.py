"""`make_agent(name, **options)`: the agents by name, as the runner and the CLI build them.

Options come from flags; what a flag leaves unset falls back to an environment variable:
`ADMINDESK_MODEL` (model), `ADMINDESK_BASE_URL` (base_url), `ADMINDESK_API_KEY_ENV` (the
name of the variable that holds the key; defaults per provider: OPENAI_API_KEY,
ANTHROPIC_API_KEY).

Agents are named by where they live and imported when first built: a worker running a
scripted agent never loads the model SDKs (about 67 MB and seconds of start-up each).
"""
from __future__ import annotations

import importlib
import inspect
import os
from typing import Any, Callable

from admindesk.harness.agents.base import Agent
from admindesk.harness.agents.model_agent import ModelAgent

_PACKAGE = "admindesk.harness.agents"
# Agent name -> "module:class" under the agents package.
AGENTS: dict[str, str] = {
    "noop": "simple:NoopAgent",
    "random": "simple:RandomAgent",
    "openai-cua": "openai_cua:OpenAICUAgent",
    "anthropic-cu": "anthropic_cu:AnthropicCUAgent",
    "openai-compatible": "openai_compatible:OpenAICompatibleAgent",
    # Scripted agents (they `drive` the Env themselves): reference solutions and controls.
    "reference": "reference:ReferenceAgent",
    "notes-only": "controls:NotesOnly",
    "wrong-patient": "controls:WrongPatient",
    "do-it-anyway": "controls:DoItAnyway",
    # The API channel (`run --channel api`): a function-calling model on the apps' APIs.
    "openai-api-tools": "api_tools_agent:OpenAIApiToolsAgent",
}
# Agents that work the API channel (the reference and the controls have API routes; noop only ends), and
# those that work nothing else.
API_CHANNEL_AGENTS = ("openai-api-tools", "reference", "noop", "notes-only", "wrong-patient")
API_ONLY_AGENTS = ("openai-api-tools",)
ENV_DEFAULTS = {"model": "ADMINDESK_MODEL", "base_url": "ADMINDESK_BASE_URL",
                "api_key_env": "ADMINDESK_API_KEY_ENV"}


def agent_factory(name: str) -> Callable[..., Agent]:
    """The class of the agent called `name` (KeyError if there is none)."""
    module, attribute = AGENTS[name].split(":")
    return getattr(importlib.import_module(f"{_PACKAGE}.{module}"), attribute)


def agent_options(name: str) -> list[str]:
    """The option names the agent called `name` takes (a model agent's own plus the shared
    ones); none for an unknown name."""
    if name not in AGENTS:
        return []
    factory = agent_factory(name)
    names = [p for p in inspect.signature(factory).parameters if p != "options"]
    if isinstance(factory, type) and issubclass(factory, ModelAgent):
        names += [p for p in inspect.signature(ModelAgent.__init__).parameters if p != "self"]
    return sorted(set(names))


def make_agent(name: str, **options: Any) -> Agent:
    """The agent called `name`, built with `options` (None values are left to defaults and
    environment variables). ValueError names the agents or options that do exist."""
    if name not in AGENTS:
        raise ValueError(f"no agent {name!r} (agents: {', '.join(AGENTS)})")
    known = agent_options(name)
    given = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"agent {name} has no option {', '.join(unknown)} (options: {', '.join(known)})")
    for option, variable in ENV_DEFAULTS.items():
        if option in known and option not in given and os.environ.get(variable):
            given[option] = os.environ[variable]
    return agent_factory(name)(**given)
