"""`openai-api-tools`: a chat model with function calling, working a task through the apps'
APIs (`admindesk run --channel api`, harness/env/api_env.py) instead of a browser.

Two tools: `api_request` (server, method, path under /fhir, JSON body) and `done` (answer).
Each response comes back as the tool call's result. A model that batches calls in one
reply has them run in order, each answered before the model is asked again (the
chat-completions protocol needs every call answered). A reply without a usable tool call
is told to the model and asked again, up to `malformed_retries` times per step.
"""
from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import openai
from pydantic import ValidationError

from admindesk.harness.agents.accounting import call_usage
from admindesk.harness.agents.base import AgentError, StepNote, Usage
from admindesk.harness.agents.model_agent import ModelAgent
from admindesk.harness.env.api_env import ApiDone, ApiObservation, ApiRequest, parse_api_action

PROMPT = Path(__file__).with_name("prompts") / "api_channel.txt"
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "api_request",
        "description": "Send one HTTP request to a server's API and get its status and JSON body.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["server", "method", "path"],
                       "properties": {
                           "server": {"type": "string", "enum": ["ehr", "keystone"]},
                           "method": {"type": "string", "enum": ["GET", "POST", "PUT"]},
                           "path": {"type": "string", "description": "under /fhir, with the query string"},
                           "body": {"type": "object", "description": "the JSON body of a POST or PUT"}}}}},
    {"type": "function", "function": {
        "name": "done",
        "description": "End the work item with your final message.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["answer"],
                       "properties": {"answer": {"type": "string"}}}}},
]


class OpenAIApiToolsAgent(ModelAgent):
    """A chat-completions model calling the API tools (see the module docstring)."""

    name = "openai-api-tools"
    api_key_required = False  # local servers (vLLM, Ollama) take any key

    def __init__(self, *, temperature: float = 0.0, seed: int | None = None, malformed_retries: int = 2,
                 **options: Any) -> None:
        super().__init__(**options)
        if int(malformed_retries) < 0:
            raise ValueError(f"malformed_retries must be at least 0, not {malformed_retries}")
        self.temperature, self.malformed_retries = float(temperature), int(malformed_retries)
        self.seed = None if seed is None else int(seed)
        self.client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key or "not-needed",
                                    max_retries=self.max_retries, timeout=self.timeout)
        self._messages: list[dict[str, Any]] = []
        self._pending: deque[tuple[str, ApiRequest | ApiDone]] = deque()  # (tool call id, action)
        self._answering: str | None = None  # the tool call whose result the next observation is

    def _model_known(self) -> bool:
        return self.model in {model.id for model in self.client.with_options(max_retries=0, timeout=15).models.list()}

    def _start(self) -> None:
        self._messages = [{"role": "system", "content": PROMPT.read_text(encoding="utf-8").strip()},
                          {"role": "user", "content": self.prompt}]
        self._pending.clear()
        self._answering = None

    def act(self, observation: ApiObservation) -> ApiRequest | ApiDone:  # type: ignore[override]
        """The next call: a queued one of the model's last reply, else a new model call."""
        note = StepNote(step=observation.step)
        if self._answering is not None:
            self._messages.append({"role": "tool", "tool_call_id": self._answering, "content": observation.text})
        elif observation.step == 0:
            self._messages.append({"role": "user", "content": observation.text})
        if self._steps >= self.max_steps:
            action: ApiRequest | ApiDone = ApiDone(answer=None)
            note.error = f"step budget of {self.max_steps} actions spent"
            self._answering = None
        else:
            if not self._pending:
                self._ask(note)
            self._answering, action = self._pending.popleft()
        self._steps += 1
        note.action = action.model_dump()
        self.notes.append(note)
        return action

    def _ask(self, note: StepNote) -> None:
        """Call the model until its reply holds usable tool calls; queue them."""
        usage = Usage()
        for attempt in range(self.malformed_retries + 1):
            message, spent, details = self._complete()
            usage = usage + spent
            note.details.update(details)
            calls, problem = _tool_calls(message)
            if problem is None:
                note.reasoning, note.usage = message.content or "", usage
                self._pending.extend(calls)
                return
            note.details.setdefault("malformed", []).append(problem)
            retry = f"Your last reply could not be used ({problem}). Call one of the tools."
            # The protocol wants every tool call of a reply answered before the next request.
            self._messages.extend({"role": "tool", "tool_call_id": call.id, "content": f"Not run. {retry}"}
                                  for call in message.tool_calls or [])
            if not message.tool_calls:
                self._messages.append({"role": "user", "content": retry})
        note.usage = usage
        raise AgentError(f"{self.name}: {self.malformed_retries + 1} replies in a row had no usable tool call")

    def _complete(self) -> tuple[Any, Usage, dict[str, Any]]:
        seed = {"seed": self.seed} if self.seed is not None else {}
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=self._messages, tools=TOOLS, temperature=self.temperature,
                max_tokens=self.max_output_tokens, **seed)
        except openai.APIError as exc:
            raise self._endpoint_failure("the chat completions endpoint", exc) from exc
        usage = response.usage
        priced = call_usage(self.model, usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0)
        message = response.choices[0].message
        self._messages.append(message.model_dump(exclude_none=True))
        return message, priced, {"response_id": response.id, "model": response.model}


def _tool_calls(message: Any) -> tuple[list[tuple[str, ApiRequest | ApiDone]], str | None]:
    """The reply's tool calls as actions, or the reason they cannot be used."""
    if not message.tool_calls:
        return [], "no tool call"
    calls = []
    for call in message.tool_calls:
        name = call.function.name
        if name not in ("api_request", "done"):
            return [], f"unknown tool {name!r}"
        try:
            arguments = json.loads(call.function.arguments or "{}")
            action = parse_api_action({"type": name, **arguments})
        except (ValueError, ValidationError) as exc:
            reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            return [], f"the {name} arguments are not valid ({reason})"
        calls.append((call.id, action))
    return calls, None
