"""What the model agents share: options, the step budget, the prompt mode, key lookup,
usage accounting and the path from a reply that is not an action to a recorded error.

A subclass implements `_start()` (a new conversation) and `_decide(observation)`, which
returns a `Decision`: the actions the model chose (a reply may batch several), its
reasoning text, and the call's usage. Retries with backoff on 429 and 5xx are the official
SDKs' own (`max_retries`, honouring `retry-after`); when they are spent, `ModelEndpointError`
(the endpoint's fault: an infra error of the run) or `AgentError` (a request it rejected).
`preflight()` makes one cheap call (the endpoint's model list) before a run starts anything;
a subclass says how, in `_model_known()`.
"""
from __future__ import annotations

import base64
import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from admindesk.harness.agents.base import AgentError, StepNote, Usage
from admindesk.harness.agents.endpoint import ModelEndpointError, PreflightError, failure_reason, is_endpoint_failure
from admindesk.harness.agents.prompting import PROMPT_MODES, PromptMode, task_prompt
from admindesk.harness.env.actions import Action, Done, Wait
from admindesk.harness.env.observation import Observation
from admindesk.schema.task_model import Task

ActionSpace = Literal["coordinate", "element"]


class MalformedReply(ValueError):
    """The model replied, but not with something that maps onto our action space."""

    def __init__(self, message: str, raw: str = "", usage: Usage | None = None) -> None:
        super().__init__(message)
        self.raw, self.usage = raw, usage  # a malformed reply was still billed


@dataclass
class Decision:
    """One model call's outcome."""

    actions: list[Action]
    reasoning: str = ""
    usage: Usage = field(default_factory=Usage)
    details: dict[str, Any] = field(default_factory=dict)


def png_data_url(png: bytes) -> str:
    """A PNG as a `data:` URL (how both OpenAI APIs take images inline)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def observation_text(obs: Observation, include_axtree: bool) -> str:
    """The non-pixel part of an observation, as the model reads it."""
    tabs = "; ".join(f"[{index}{'*' if index == obs.active_tab else ''}] {tab.title} ({tab.url})"
                     for index, tab in enumerate(obs.tabs))
    lines = [f"Step {obs.step}. URL: {obs.url}", f"Tabs (* active): {tabs}",
             f"Downloads: {', '.join(obs.downloads) or 'none'}"]
    if obs.file_dialog_open:
        lines.append("A file dialog is open.")
    if obs.last_action_error:
        lines.append(f"The last action failed: {obs.last_action_error}")
    if include_axtree and obs.axtree:
        lines.append("Accessibility tree (element ids are the ref values):\n" + obs.axtree)
    return "\n".join(lines)


class ModelAgent:
    """Base of the model-backed agents; see the module docstring."""

    name = "model"
    default_api_key_env = "OPENAI_API_KEY"
    api_key_required = True
    action_spaces: tuple[str, ...] = ("coordinate",)

    def __init__(self, *, model: str, base_url: str | None = None,
                 api_key_env: str | None = None, max_steps: int = 50, keep_screenshots: int = 3,
                 prompt_mode: PromptMode = "zero_shot", action_space: ActionSpace = "coordinate",
                 max_retries: int = 4, timeout: float = 120.0, max_output_tokens: int = 1024,
                 frame_size: tuple[int, int] = (1280, 800),
                 guidance_dir: str | Path | None = None) -> None:
        if not model:
            raise ValueError(f"{self.name}: a model name is required (--model or ADMINDESK_MODEL)")
        if prompt_mode not in PROMPT_MODES:
            raise ValueError(f"prompt_mode must be one of {', '.join(PROMPT_MODES)}, "
                             f"not {prompt_mode!r}")
        if action_space not in self.action_spaces:
            raise ValueError(f"{self.name} supports action_space {' or '.join(self.action_spaces)}, "
                             f"not {action_space!r}")
        for option, value, low in (("max_steps", max_steps, 1), ("keep_screenshots", keep_screenshots, 1),
                                   ("max_retries", max_retries, 0)):
            if int(value) < low:
                raise ValueError(f"{option} must be at least {low}, not {value}")
        self.model, self.base_url = model, base_url
        self.max_steps, self.keep_screenshots = int(max_steps), int(keep_screenshots)
        self.prompt_mode, self.action_space = prompt_mode, action_space
        self.max_retries, self.timeout = int(max_retries), float(timeout)
        self.max_output_tokens = int(max_output_tokens)
        self.frame_size = (int(frame_size[0]), int(frame_size[1]))
        self.guidance_dir = Path(guidance_dir) if guidance_dir is not None else None
        self.api_key_env = api_key_env or self.default_api_key_env
        self.api_key = self._api_key()
        self.notes: list[StepNote] = []
        self.prompt = ""
        self._queue: deque[Action] = deque()
        self._steps = 0
        self._feedback: str | None = None  # told to the model with the next observation

    def _api_key(self) -> str | None:
        key = os.environ.get(self.api_key_env)
        if not key and self.api_key_required:
            raise ValueError(f"{self.name}: no API key: set the environment variable "
                             f"{self.api_key_env} (or name another with api_key_env)")
        return key

    # ---- the Agent protocol -------------------------------------------------------------
    def reset(self, task_goal: str, task: Task | None = None) -> None:
        """Start a new conversation for `task_goal`, prompted per the prompt mode."""
        self.prompt = task_prompt(task_goal, task, self.prompt_mode, self.guidance_dir)
        self.notes, self._queue, self._steps, self._feedback = [], deque(), 0, None
        self._start()

    def act(self, observation: Observation) -> Action:
        """The next action: a queued one from the model's last batch, else a new model call.

        A reply that maps onto no action is recorded as the step's error, told to the model
        next turn, and costs a zero-second wait; the budget spent ends the episode.
        """
        note = StepNote(step=observation.step)
        if self._steps >= self.max_steps:
            action: Action = Done(answer=None)
            note.error = f"step budget of {self.max_steps} actions spent"
        elif self._queue and not observation.last_action_error:
            action = self._queue.popleft()
            note.details["batched"] = True
        else:
            # A failed action voids the rest of its batch: the model decides again from here.
            self._queue.clear()
            action = self._call_model(observation, note)
        self._steps += 1
        note.action = action.model_dump()
        self.notes.append(note)
        return action

    def _call_model(self, observation: Observation, note: StepNote) -> Action:
        try:
            decision = self._decide(observation)
        except MalformedReply as exc:
            note.error = f"malformed reply: {exc}"
            note.details["raw_reply"] = exc.raw[:4_000]
            if exc.usage is not None:
                note.usage = exc.usage
            self._feedback = (f"Your last reply could not be used ({exc}). Reply again in the "
                              "required format.")
            return Wait(seconds=0)
        note.reasoning, note.usage = decision.reasoning, decision.usage
        note.details.update(decision.details)
        if not decision.actions:
            raise AgentError(f"{self.name}: the model reply produced no action")
        self._queue.extend(decision.actions[1:])
        return decision.actions[0]

    def take_feedback(self) -> str | None:
        """The note for the model about its last reply (once), if there is one."""
        feedback, self._feedback = self._feedback, None
        return feedback

    # ---- the endpoint -------------------------------------------------------------------
    @property
    def endpoint_url(self) -> str:
        """The base URL the SDK client calls (the provider's default when none was given)."""
        return str(self.client.base_url)  # type: ignore[attr-defined]

    def preflight(self) -> None:
        """Check, with one call and no retries, that the endpoint answers, takes the key and
        knows the model; PreflightError naming the URL and model otherwise."""
        where = f"{self.name}: the model endpoint {self.endpoint_url} (model {self.model!r})"
        try:
            known = self._model_known()
        except Exception as exc:  # the SDKs' errors, whichever provider
            hint = ""
            if getattr(exc, "status_code", None) in (401, 403):
                hint = f"; the key comes from ${self.api_key_env}"
            elif getattr(exc, "status_code", None) == 404:
                hint = "; is the base URL right (an OpenAI-compatible one usually ends in /v1)?"
            raise PreflightError(f"{where} {failure_reason(exc)}{hint}") from exc
        if not known:
            raise PreflightError(f"{where} does not know that model (check --model)")

    def _endpoint_failure(self, what: str, exc: Exception) -> AgentError:
        """The error for a call that failed after the SDK's retries (see endpoint.py)."""
        message = (f"{self.name}: {what} at {self.endpoint_url} (model {self.model!r}) "
                   f"failed after {self.max_retries} retries: {failure_reason(exc)}")
        return ModelEndpointError(message) if is_endpoint_failure(exc) else AgentError(message)

    # ---- for subclasses -----------------------------------------------------------------
    def _model_known(self) -> bool:
        """Whether the endpoint knows `self.model` (one call, no retries); SDK errors propagate."""
        raise NotImplementedError

    def _start(self) -> None:
        raise NotImplementedError

    def _decide(self, observation: Observation) -> Decision:
        raise NotImplementedError
