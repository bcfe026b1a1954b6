"""`anthropic-cu`: Anthropic's computer-use tool (official SDK, beta Messages API).

The tool is declared with our frame as the display (`display_width_px`/`display_height_px`),
so the model's coordinates are our frame pixels. Each reply's `tool_use` blocks are played
one `act` at a time (screenshot, left/right/double click, mouse move, type, key, scroll,
drag, wait); the next request answers every block with a `tool_result`, the last one
carrying the new screenshot (or the error of a failed action, `is_error`). A reply with no
tool use is the model's final message: `done` with it as the answer. Only the newest
`keep_screenshots` screenshots stay in the conversation; older ones become a short text.
"""
from __future__ import annotations

import base64
from typing import Any

import anthropic

from admindesk.harness.agents.accounting import call_usage
from admindesk.harness.agents.base import AgentError
from admindesk.harness.agents.computer_actions import from_anthropic
from admindesk.harness.agents.model_agent import Decision, MalformedReply, ModelAgent, observation_text
from admindesk.harness.env.actions import Action, Done, Wait
from admindesk.harness.env.observation import Observation

# Tool version -> the beta flag that enables it.
TOOL_BETAS = {"computer_20250124": "computer-use-2025-01-24",
              "computer_20251124": "computer-use-2025-11-24"}
OMITTED_SCREENSHOT = "(an earlier screenshot, left out to keep the conversation short)"
SYSTEM = ("You operate a web browser (tab strip, address bar and bookmarks bar included in "
          "the screenshot) to do healthcare administrative work. Read the screen before acting; "
          "never invent identifiers. When the task is finished, or cannot or should not be done, "
          "stop using the tool and reply with your final message.")


def _image(png: bytes) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64.b64encode(png).decode("ascii")}}


class AnthropicCUAgent(ModelAgent):
    """Anthropic computer-use tool loop (see module docstring)."""

    name = "anthropic-cu"
    default_api_key_env = "ANTHROPIC_API_KEY"

    def __init__(self, *, tool_version: str = "computer_20250124", thinking_budget: int = 0,
                 temperature: float | None = None, **options: Any) -> None:
        super().__init__(**options)
        if temperature is not None and thinking_budget:
            raise ValueError("temperature cannot be set with thinking (the API requires 1)")
        self.temperature = None if temperature is None else float(temperature)
        if tool_version not in TOOL_BETAS:
            raise ValueError(f"tool_version must be one of {', '.join(TOOL_BETAS)}, not {tool_version!r}")
        if thinking_budget and thinking_budget >= self.max_output_tokens:
            raise ValueError("thinking_budget must be below max_output_tokens")
        self.tool_version, self.thinking_budget = tool_version, int(thinking_budget)
        self.client = anthropic.Anthropic(base_url=self.base_url, api_key=self.api_key,
                                          max_retries=self.max_retries, timeout=self.timeout)
        self._messages: list[dict[str, Any]] = []
        self._pending_ids: list[str] = []  # tool_use blocks awaiting a tool_result
        self._cursor = (0, 0)

    def _model_known(self) -> bool:
        try:
            self.client.with_options(max_retries=0, timeout=15).models.retrieve(self.model)
        except anthropic.NotFoundError:
            return False
        return True

    def tool_spec(self) -> dict[str, Any]:
        """The computer tool, sized to our frame."""
        return {"type": self.tool_version, "name": "computer", "display_width_px": self.frame_size[0],
                "display_height_px": self.frame_size[1]}

    def _start(self) -> None:
        self._messages, self._pending_ids, self._cursor = [], [], (0, 0)

    def _user_turn(self, observation: Observation) -> dict[str, Any]:
        if observation.screenshot is None:
            raise AgentError(f"{self.name} needs screenshots (observation screenshot or both)")
        text = observation_text(observation, False)
        feedback = self.take_feedback()
        if not self._messages:
            return {"role": "user", "content": [{"type": "text", "text": self.prompt + "\n\n" + text},
                                                _image(observation.screenshot)]}
        blocks: list[dict[str, Any]] = [
            {"type": "tool_result", "tool_use_id": tool_id, "content": [{"type": "text", "text": "done"}]}
            for tool_id in self._pending_ids[:-1]]
        if self._pending_ids:
            last: dict[str, Any] = {"type": "tool_result", "tool_use_id": self._pending_ids[-1],
                                    "content": [{"type": "text", "text": "\n".join(filter(None, [feedback, text]))},
                                                _image(observation.screenshot)]}
            if observation.last_action_error or feedback:
                last["is_error"] = True
            blocks.append(last)
        else:
            blocks += [{"type": "text", "text": "\n".join(filter(None, [feedback, text]))},
                       _image(observation.screenshot)]
        return {"role": "user", "content": blocks}

    def _decide(self, observation: Observation) -> Decision:
        self._messages.append(self._user_turn(observation))
        self._pending_ids = []
        self._drop_old_screenshots()
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_output_tokens,
                                   "system": SYSTEM, "tools": [self.tool_spec()],
                                   "messages": self._messages, "betas": [TOOL_BETAS[self.tool_version]]}
        if self.thinking_budget:
            request["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
        if self.temperature is not None:
            request["temperature"] = self.temperature
        try:
            response = self.client.beta.messages.create(**request)
        except anthropic.APIError as exc:
            raise self._endpoint_failure("the Messages API", exc) from exc
        usage = response.usage
        priced = call_usage(self.model, usage.input_tokens + (usage.cache_read_input_tokens or 0)
                            + (usage.cache_creation_input_tokens or 0), usage.output_tokens,
                            usage.cache_read_input_tokens or 0)
        # The assistant turn goes back verbatim (thinking blocks keep their signatures).
        self._messages.append({"role": "assistant",
                               "content": [block.model_dump(exclude_none=True) for block in response.content]})
        reasoning, tool_uses = [], []
        for block in response.content:
            if block.type == "text":
                reasoning.append(block.text)
            elif block.type == "thinking":
                reasoning.append(block.thinking)
            elif block.type == "tool_use":
                tool_uses.append(block)
        details: dict[str, Any] = {"response_id": response.id, "model": response.model,
                                   "stop_reason": response.stop_reason}
        text = "\n".join(reasoning)
        if not tool_uses:
            final = "\n".join(block.text for block in response.content if block.type == "text")
            return Decision([Done(answer=final or None)], text, priced, details)
        self._pending_ids = [block.id for block in tool_uses]
        details["tool_inputs"] = [block.input for block in tool_uses]
        actions: list[Action] = []
        try:
            for block in tool_uses:
                if block.name != "computer":
                    raise MalformedReply(f"unknown tool {block.name!r}", str(block.input))
                action = from_anthropic(dict(block.input), self._cursor)
                if action is not None:
                    actions.append(action)
                    if hasattr(action, "x") and action.type != "scroll":
                        self._cursor = (action.x, action.y)
                    elif action.type == "drag":
                        self._cursor = (action.x2, action.y2)
        except MalformedReply as exc:
            exc.usage = priced
            raise
        return Decision(actions or [Wait(seconds=0)], text, priced, details)

    def _drop_old_screenshots(self) -> None:
        """Keep the newest `keep_screenshots` images (in turns and in tool results)."""
        seen = 0
        for message in reversed(self._messages):
            if message["role"] != "user":
                continue
            for block in message["content"]:
                holder = block["content"] if block.get("type") == "tool_result" else None
                parts = holder if isinstance(holder, list) else [block]
                for index, part in enumerate(parts):
                    if part.get("type") == "image":
                        seen += 1
                        if seen > self.keep_screenshots:
                            replacement = {"type": "text", "text": OMITTED_SCREENSHOT}
                            if holder is None:
                                block.clear()
                                block.update(replacement)
                            else:
                                holder[index] = replacement
