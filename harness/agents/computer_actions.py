"""Provider computer-use actions mapped onto our action space (pure functions, no I/O).

OpenAI's computer tool sends `{"type": "click", "button": "left", "x": 10, "y": 20}` and
friends; Anthropic's sends `{"action": "left_click", "coordinate": [10, 20]}` and friends.
Anything without a faithful equivalent here is refused with `MalformedReply`, which the
agent records and tells the model, rather than guessed at.
"""
from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from admindesk.harness.agents.keys import UnknownKey, playwright_combo
from admindesk.harness.agents.model_agent import MalformedReply
from admindesk.harness.env.actions import Action, parse_action

# Pixels per wheel click, as Chromium scrolls one notch of a mouse wheel.
SCROLL_PIXELS_PER_CLICK = 100


def _build(raw: dict[str, Any], source: Any) -> Action:
    try:
        return parse_action(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        raise MalformedReply(f"{source} does not fit our action space ({problems})", str(source)) from exc


def _combo(keys: Any, source: Any) -> str:
    try:
        return playwright_combo(keys)
    except UnknownKey as exc:
        raise MalformedReply(str(exc), str(source)) from exc


def from_openai(action: dict[str, Any]) -> Action | None:
    """One OpenAI computer action as ours; None for `screenshot` (the next observation is one)."""
    kind = action.get("type")
    if action.get("keys") and kind != "keypress":
        raise MalformedReply(f"{kind} with keys held ({action['keys']}) is not supported", str(action))
    if kind == "click":
        button = action.get("button", "left")
        if button not in ("left", "right"):
            raise MalformedReply(f"a {button}-button click is not supported", str(action))
        return _build({"type": "click" if button == "left" else "right_click",
                       "x": action.get("x"), "y": action.get("y")}, action)
    if kind == "double_click":
        return _build({"type": "double_click", "x": action.get("x"), "y": action.get("y")}, action)
    if kind == "move":
        return _build({"type": "move", "x": action.get("x"), "y": action.get("y")}, action)
    if kind == "drag":
        path = action.get("path") or []
        if len(path) < 2:
            raise MalformedReply("a drag needs a path of at least two points", str(action))
        return _build({"type": "drag", "x1": path[0]["x"], "y1": path[0]["y"],
                       "x2": path[-1]["x"], "y2": path[-1]["y"]}, action)
    if kind == "scroll":
        return _build({"type": "scroll", "x": action.get("x"), "y": action.get("y"),
                       "dx": action.get("scroll_x", 0), "dy": action.get("scroll_y", 0)}, action)
    if kind == "type":
        return _build({"type": "type", "text": action.get("text", "")}, action)
    if kind == "keypress":
        return _build({"type": "key", "keys": _combo(list(action.get("keys") or []), action)}, action)
    if kind == "wait":
        return _build({"type": "wait", "seconds": 1.0}, action)
    if kind == "screenshot":
        return None
    raise MalformedReply(f"unknown computer action type {kind!r}", str(action))


def _point(value: Any, source: Any) -> tuple[Any, Any]:
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        raise MalformedReply(f"a coordinate must be [x, y], not {value!r}", str(source))
    return value[0], value[1]


def from_anthropic(tool_input: dict[str, Any], cursor: tuple[int, int]) -> Action | None:
    """One Anthropic computer-tool input as ours; None for `screenshot`. A click without a
    coordinate clicks where the pointer is (`cursor`), as the tool defines."""
    kind = tool_input.get("action")
    if tool_input.get("text") and kind in ("left_click", "right_click", "double_click", "scroll"):
        raise MalformedReply(f"{kind} with keys held ({tool_input['text']}) is not supported", str(tool_input))
    clicks = {"left_click": "click", "right_click": "right_click", "double_click": "double_click"}
    if kind in clicks or kind == "mouse_move":
        x, y = (_point(tool_input["coordinate"], tool_input) if "coordinate" in tool_input else cursor)
        return _build({"type": clicks.get(kind, "move"), "x": x, "y": y}, tool_input)
    if kind == "left_click_drag":
        x1, y1 = (_point(tool_input["start_coordinate"], tool_input)
                  if "start_coordinate" in tool_input else cursor)
        x2, y2 = _point(tool_input.get("coordinate"), tool_input)
        return _build({"type": "drag", "x1": x1, "y1": y1, "x2": x2, "y2": y2}, tool_input)
    if kind == "type":
        return _build({"type": "type", "text": tool_input.get("text", "")}, tool_input)
    if kind == "key":
        return _build({"type": "key", "keys": _combo(str(tool_input.get("text", "")), tool_input)}, tool_input)
    if kind == "scroll":
        x, y = (_point(tool_input["coordinate"], tool_input) if "coordinate" in tool_input else cursor)
        amount = int(tool_input.get("scroll_amount", 3)) * SCROLL_PIXELS_PER_CLICK
        direction = tool_input.get("scroll_direction")
        deltas = {"down": (0, amount), "up": (0, -amount), "right": (amount, 0), "left": (-amount, 0)}
        if direction not in deltas:
            raise MalformedReply(f"scroll_direction must be up, down, left or right, not {direction!r}",
                                 str(tool_input))
        dx, dy = deltas[direction]
        return _build({"type": "scroll", "x": x, "y": y, "dx": dx, "dy": dy}, tool_input)
    if kind == "wait":
        return _build({"type": "wait", "seconds": min(float(tool_input.get("duration", 1.0)), 30.0)},
                      tool_input)
    if kind == "screenshot":
        return None
    raise MalformedReply(f"computer action {kind!r} is not supported here (supported: screenshot, "
                         "left/right/double click, mouse_move, left_click_drag, type, key, scroll, wait)",
                         str(tool_input))
