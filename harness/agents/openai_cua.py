"""`openai-cua`: OpenAI's computer-use tool through the Responses API (official SDK).

The loop: the first request carries the task prompt and the first screenshot; the model
answers with a `computer_call` (one action, or a batch in `actions`), which we play one
`act` at a time; the next request chains on `previous_response_id` and returns the
screenshot after the batch as the call's `computer_call_output`. Pending safety checks
are acknowledged in that output (recorded in the step's note), unless
`acknowledge_safety_checks=False`, in which case the episode ends there. A reply with no
computer call is the model's final message: `done` with it as the answer.

History: the conversation lives on the provider (`previous_response_id`), so old
screenshots cannot be cut here; `truncation="auto"` lets the API drop the oldest items.
A `screenshot` request costs a zero-second `wait` (the next observation is the screenshot).
"""
from __future__ import annotations

from typing import Any, Literal

import openai

from admindesk.harness.agents.accounting import call_usage
from admindesk.harness.agents.base import AgentError
from admindesk.harness.agents.computer_actions import from_openai
from admindesk.harness.agents.model_agent import Decision, MalformedReply, ModelAgent, observation_text, png_data_url
from admindesk.harness.env.actions import Action, Done, Wait
from admindesk.harness.env.observation import Observation

SAFETY_STOP = "stopped: the model raised safety checks and acknowledge_safety_checks is off"


class OpenAICUAgent(ModelAgent):
    """OpenAI Responses API computer-use loop (see module docstring)."""

    name = "openai-cua"
    default_api_key_env = "OPENAI_API_KEY"

    def __init__(self, *, tool: Literal["computer_use_preview", "computer"] = "computer_use_preview",
                 reasoning_summary: str | None = "concise", acknowledge_safety_checks: bool = True,
                 **options: Any) -> None:
        super().__init__(**options)
        if tool not in ("computer_use_preview", "computer"):
            raise ValueError(f"tool must be computer_use_preview or computer, not {tool!r}")
        self.tool, self.reasoning_summary = tool, reasoning_summary
        self.acknowledge_safety_checks = bool(acknowledge_safety_checks)
        self.client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key,
                                    max_retries=self.max_retries, timeout=self.timeout)
        self._previous_id: str | None = None
        self._call_id: str | None = None
        self._safety_checks: list[dict[str, Any]] = []

    def _model_known(self) -> bool:
        return self.model in {model.id for model in self.client.with_options(max_retries=0, timeout=15).models.list()}

    def tool_spec(self) -> dict[str, Any]:
        """The tool definition: the preview tool is told our frame as the display size."""
        if self.tool == "computer":
            return {"type": "computer"}
        return {"type": "computer_use_preview", "display_width": self.frame_size[0],
                "display_height": self.frame_size[1], "environment": "browser"}

    def _start(self) -> None:
        self._previous_id, self._call_id, self._safety_checks = None, None, []

    def _input(self, observation: Observation) -> list[dict[str, Any]]:
        screenshot = png_data_url(observation.screenshot) if observation.screenshot else None
        if screenshot is None:
            raise AgentError(f"{self.name} needs screenshots (observation screenshot or both)")
        if self._previous_id is None:
            return [{"role": "user", "content": [
                {"type": "input_text", "text": self.prompt + "\n\n" + observation_text(observation, False)},
                {"type": "input_image", "image_url": screenshot}]}]
        items: list[dict[str, Any]] = []
        if self._call_id is not None:
            output: dict[str, Any] = {"type": "computer_call_output", "call_id": self._call_id,
                                      "output": {"type": "computer_screenshot", "image_url": screenshot}}
            if self._safety_checks:
                output["acknowledged_safety_checks"] = self._safety_checks
            items.append(output)
        notes = [text for text in (self.take_feedback(), observation.last_action_error and
                                   f"The last action failed: {observation.last_action_error}") if text]
        if notes or self._call_id is None:
            items.append({"role": "user", "content": [
                {"type": "input_text", "text": "\n".join(notes + [observation_text(observation, False)])}]})
        return items

    def _decide(self, observation: Observation) -> Decision:
        request: dict[str, Any] = {"model": self.model, "tools": [self.tool_spec()],
                                   "input": self._input(observation), "truncation": "auto",
                                   "max_output_tokens": self.max_output_tokens}
        if self._previous_id is not None:
            request["previous_response_id"] = self._previous_id
        if self.reasoning_summary:
            request["reasoning"] = {"summary": self.reasoning_summary}
        try:
            response = self.client.responses.create(**request)
        except openai.APIError as exc:
            raise self._endpoint_failure("the Responses API", exc) from exc
        self._previous_id, self._call_id, self._safety_checks = response.id, None, []
        usage = _usage(self.model, response)
        reasoning, messages, calls = [], [], []
        for item in response.output:
            if item.type == "reasoning":
                reasoning += [part.text for part in (item.summary or [])]
            elif item.type == "message":
                messages += [part.text for part in item.content if getattr(part, "type", "") == "output_text"]
            elif item.type == "computer_call":
                calls.append(item)
        details: dict[str, Any] = {"response_id": response.id, "model": response.model}
        text = "\n".join(reasoning + messages)
        if not calls:
            return Decision([Done(answer="\n".join(messages) or None)], text, usage, details)
        if len(calls) > 1:
            raise MalformedReply(f"{len(calls)} computer calls in one reply (one expected)",
                                 str([c.call_id for c in calls]), usage)
        call = calls[0]
        self._call_id = call.call_id
        checks = [check.model_dump(exclude_none=True) for check in call.pending_safety_checks or []]
        if checks:
            details["safety_checks"] = checks
            if not self.acknowledge_safety_checks:
                return Decision([Done(answer=SAFETY_STOP)], text, usage, details)
            self._safety_checks = checks
        raw_actions = [a.model_dump(exclude_none=True) for a in (getattr(call, "actions", None) or [])] or (
            [call.action.model_dump(exclude_none=True)] if call.action is not None else [])
        details["computer_actions"] = raw_actions
        try:
            actions: list[Action] = [mapped for mapped in map(from_openai, raw_actions) if mapped is not None]
        except MalformedReply as exc:
            exc.usage = usage
            raise
        return Decision(actions or [Wait(seconds=0)], text, usage, details)


def _usage(model: str, response: Any):
    usage = response.usage
    if usage is None:
        return call_usage(model, 0, 0)
    details = getattr(usage, "input_tokens_details", None)
    return call_usage(model, usage.input_tokens, usage.output_tokens,
                      int(getattr(details, "cached_tokens", 0) or 0))
