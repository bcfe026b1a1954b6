"""`openai-compatible`: any vision chat model behind an OpenAI-compatible chat endpoint
(UI-TARS or Qwen-VL on vLLM, Ollama, llama.cpp server, OpenAI itself).

The system prompt (prompts/openai_compatible.txt, with the action list of the chosen
action space) asks for one strict JSON object per turn:
`{"thought": "...", "action": {...}}`, the action in our own action schema. Each turn
sends the observation's text (URL, tabs, downloads, last error, and the accessibility tree
when `observation` is `axtree` or `both`) and, unless `observation` is `axtree`, the
screenshot; only the last `keep_screenshots` screenshots stay in the conversation.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import openai
from pydantic import ValidationError

from admindesk.harness.agents.accounting import call_usage
from admindesk.harness.agents.model_agent import Decision, MalformedReply, ModelAgent, observation_text, png_data_url
from admindesk.harness.env.actions import ELEMENT_ACTION_TYPES, Action, parse_action
from admindesk.harness.env.observation import Observation

PROMPTS = Path(__file__).with_name("prompts")
# Coordinate actions an element-space agent may not use (and vice versa the element ones).
POINTER_ACTION_TYPES = ("click", "double_click", "right_click", "move", "drag")
_FENCE = re.compile(r"^```(?:json)?\s*\n(.*?)\n?```$", re.DOTALL)
OMITTED_SCREENSHOT = "(an earlier screenshot, left out to keep the conversation short)"


def system_prompt(action_space: str, frame_size: tuple[int, int], reply_format: str = "openai_compatible") -> str:
    """The system prompt for an action space, from the prompt files in prompts/: the desk's
    introduction, then how to answer (`reply_format`: `openai_compatible`, one JSON object
    per turn; `tool_calling`, one tool call per action) with the action space's list."""
    actions = (PROMPTS / f"actions_{action_space}.txt").read_text(encoding="utf-8").strip()
    intro = (PROMPTS / "desk_intro.txt").read_text(encoding="utf-8").strip()
    text = (PROMPTS / f"{reply_format}.txt").read_text(encoding="utf-8").replace("{{INTRO}}", intro)
    return (text.replace("{{ACTIONS}}", actions).replace("{{WIDTH}}", str(frame_size[0]))
            .replace("{{HEIGHT}}", str(frame_size[1])).strip())


def parse_reply(text: str, action_space: str):
    """(thought, action) from a reply in the strict format; MalformedReply says what is wrong."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise MalformedReply(f"not one JSON object ({exc.msg} at char {exc.pos})", text) from exc
    if not isinstance(data, dict) or not isinstance(data.get("action"), dict):
        raise MalformedReply('the JSON object has no "action" object', text)
    unknown = set(data) - {"thought", "action"}
    if unknown:
        raise MalformedReply(f"unexpected keys {sorted(unknown)} (only thought and action)", text)
    return str(data.get("thought") or ""), action_in_space(data["action"], action_space, text)


def action_in_space(raw: dict[str, Any], action_space: str, source: str) -> Action:
    """The action `raw` describes, if it is one of `action_space`'s; MalformedReply (carrying
    `source`, the model's reply) says what is wrong. Shared by every agent that reads our
    action schema from a model, whether as a JSON reply or as a tool call's arguments."""
    try:
        action = parse_action(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'action'}: {e['msg']}"
                             for e in exc.errors()[:3])
        raise MalformedReply(f"invalid action ({problems})", source) from exc
    banned = POINTER_ACTION_TYPES if action_space == "element" else ELEMENT_ACTION_TYPES
    if action.type in banned:
        raise MalformedReply(f"{action.type} is not in the {action_space} action space", source)
    return action


class OpenAICompatibleAgent(ModelAgent):
    """A chat-completions vision model speaking our JSON action format (see module docstring)."""

    name = "openai-compatible"
    api_key_required = False  # local servers (vLLM, Ollama) take any key
    action_spaces = ("coordinate", "element")

    def __init__(self, *, observation: Literal["screenshot", "axtree", "both"] = "screenshot",
                 temperature: float = 0.0, seed: int | None = None, **options: Any) -> None:
        super().__init__(**options)
        if observation not in ("screenshot", "axtree", "both"):
            raise ValueError(f"observation must be screenshot, axtree or both, not {observation!r}")
        if self.action_space == "element" and observation == "screenshot":
            raise ValueError("the element action space needs the accessibility tree "
                             "(observation axtree or both)")
        self.observation, self.temperature = observation, float(temperature)
        self.seed = None if seed is None else int(seed)  # sent as the request's `seed`, when set
        self.client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key or "not-needed",
                                    max_retries=self.max_retries, timeout=self.timeout)
        self._messages: list[dict[str, Any]] = []

    def _model_known(self) -> bool:
        return self.model in {model.id for model in self.client.with_options(max_retries=0, timeout=15).models.list()}

    def _start(self) -> None:
        self._messages = [{"role": "system", "content": system_prompt(self.action_space, self.frame_size)},
                          {"role": "user", "content": self.prompt}]

    def _decide(self, observation: Observation) -> Decision:
        content: list[dict[str, Any]] = []
        feedback = self.take_feedback()
        text = observation_text(observation, include_axtree=self.observation != "screenshot")
        content.append({"type": "text", "text": (feedback + "\n\n" if feedback else "") + text})
        if self.observation != "axtree" and observation.screenshot is not None:
            content.append({"type": "image_url", "image_url": {"url": png_data_url(observation.screenshot)}})
        self._messages.append({"role": "user", "content": content})
        self._drop_old_screenshots()
        seed = {"seed": self.seed} if self.seed is not None else {}
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=self._messages, temperature=self.temperature,
                max_tokens=self.max_output_tokens, **seed)
        except openai.APIError as exc:
            raise self._endpoint_failure("the chat completions endpoint", exc) from exc
        usage = response.usage
        priced = call_usage(self.model, usage.prompt_tokens if usage else 0,
                            usage.completion_tokens if usage else 0,
                            _cached_tokens(usage))
        reply = (response.choices[0].message.content or "") if response.choices else ""
        self._messages.append({"role": "assistant", "content": reply})
        try:
            thought, action = parse_reply(reply, self.action_space)
        except MalformedReply as exc:
            exc.usage = priced
            raise
        return Decision(actions=[action], reasoning=thought, usage=priced,
                        details={"response_id": response.id, "model": response.model})

    def _drop_old_screenshots(self) -> None:
        """Keep the newest `keep_screenshots` images; older ones become a short text."""
        seen = 0
        for message in reversed(self._messages):
            if not isinstance(message["content"], list):
                continue
            for index, part in enumerate(message["content"]):
                if part.get("type") == "image_url":
                    seen += 1
                    if seen > self.keep_screenshots:
                        message["content"][index] = {"type": "text", "text": OMITTED_SCREENSHOT}


def _cached_tokens(usage: Any) -> int:
    details = getattr(usage, "prompt_tokens_details", None) if usage is not None else None
    return int(getattr(details, "cached_tokens", 0) or 0)
