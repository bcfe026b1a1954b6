"""Our action space as Inspect tools, tool calls as our actions, observations as messages.

Each action type of the chosen action space is one tool, its parameters the action model's
own fields (minus `type`), its description the model's docstring; a tool call becomes the
action `{"type": <tool name>, **arguments}`, checked exactly as the openai-compatible
agent checks a JSON reply (`action_in_space`). The observation is told as our model agents
tell it (`observation_text`) and the screenshot goes along as an image.
"""
from __future__ import annotations

import base64
from typing import Any, get_args

from inspect_ai.model import ChatMessage, ChatMessageTool, ChatMessageUser, Content, ContentImage, ContentText
from inspect_ai.tool import ToolInfo, ToolParam, ToolParams

from admindesk.harness.agents.model_agent import observation_text
from admindesk.harness.agents.openai_compatible import POINTER_ACTION_TYPES, action_in_space
from admindesk.harness.env.actions import ELEMENT_ACTION_TYPES, Action
from admindesk.harness.env.observation import Observation

# The schema keys Inspect's tool parameters carry; bounds and patterns stay in our models,
# which check every call's arguments.
_SCHEMA_KEYS = ("type", "description", "default", "enum", "anyOf")
OMITTED_SCREENSHOT = "(an earlier screenshot, left out to keep the conversation short)"
STEP_KEY = "admindesk_step"  # message metadata: the Env step whose observation it carries


def _param(schema: dict[str, Any]) -> ToolParam:
    kept = {key: value for key, value in schema.items() if key in _SCHEMA_KEYS}
    if "anyOf" in kept:
        kept["anyOf"] = [_param(option) for option in kept["anyOf"]]
    return ToolParam(**kept)


def action_tools(action_space: str) -> list[ToolInfo]:
    """One tool per action type of `action_space`."""
    banned = POINTER_ACTION_TYPES if action_space == "element" else ELEMENT_ACTION_TYPES
    tools = []
    for model in get_args(get_args(Action)[0]):
        schema = model.model_json_schema()
        name = model.model_fields["type"].default
        if name in banned:
            continue
        properties = {field: _param(spec) for field, spec in schema["properties"].items() if field != "type"}
        tools.append(ToolInfo(name=name, description=" ".join((model.__doc__ or name).split()),
                              parameters=ToolParams(properties=properties,
                                                    required=[f for f in schema.get("required", []) if f != "type"])))
    return tools


def call_action(function: str, arguments: dict[str, Any], action_space: str) -> Action:
    """The action a tool call asks for (MalformedReply says why it is none)."""
    return action_in_space({"type": function, **arguments}, action_space, f"{function}({arguments})")


def _image(png: bytes) -> ContentImage:
    return ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode("ascii"))


def observation_content(observation: Observation, mode: str, feedback: str | None = None) -> list[Content]:
    """What the model is shown of an observation: text (the tree too, unless screenshots
    only) and the screenshot (unless accessibility tree only)."""
    text = observation_text(observation, include_axtree=mode != "screenshot")
    content: list[Content] = [ContentText(text=(feedback + "\n\n" if feedback else "") + text)]
    if mode != "axtree" and observation.screenshot is not None:
        content.append(_image(observation.screenshot))
    return content


def observation_message(observation: Observation, mode: str, *, tool_call_id: str | None = None,
                        function: str | None = None, feedback: str | None = None) -> ChatMessage:
    """The observation as the answer to a tool call, or as a user turn when none is pending."""
    content = observation_content(observation, mode, feedback)
    metadata = {STEP_KEY: observation.step}
    if tool_call_id is not None:
        return ChatMessageTool(content=content, tool_call_id=tool_call_id, function=function, metadata=metadata)
    return ChatMessageUser(content=content, metadata=metadata)


def newest_screenshots(messages: list[ChatMessage], keep: int) -> list[ChatMessage]:
    """A copy of `messages` for the model with only the newest `keep` screenshots (older
    ones become a short text); the conversation itself keeps all of them, for the log."""
    trimmed: list[ChatMessage] = []
    seen = 0
    for message in reversed(messages):
        if isinstance(message.content, list) and any(isinstance(c, ContentImage) for c in message.content):
            parts: list[Content] = []
            for part in reversed(message.content):
                if isinstance(part, ContentImage):
                    seen += 1
                    if seen > keep:
                        part = ContentText(text=OMITTED_SCREENSHOT)
                parts.append(part)
            message = message.model_copy(update={"content": list(reversed(parts))})
        trimmed.append(message)
    return list(reversed(trimmed))


def step_screenshots(messages: list[ChatMessage]) -> dict[int, bytes]:
    """Env step -> the PNG its observation showed, read back from a conversation."""
    found = {}
    for message in messages:
        step = (message.metadata or {}).get(STEP_KEY)
        if not isinstance(step, int) or not isinstance(message.content, list):
            continue
        for part in message.content:
            if isinstance(part, ContentImage) and part.image.startswith("data:image/png;base64,"):
                found[step] = base64.b64decode(part.image.split(",", 1)[1])
    return found
