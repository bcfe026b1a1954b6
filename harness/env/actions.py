"""The public action space: a pydantic discriminated union on `type`.

Coordinates are pixels of the observation frame (browser chrome included), so an agent
that clicks where it sees something always hits it. There is no exec/eval action.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

Coord = Annotated[int, Field(ge=0, le=10_000)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Click(_Action):
    """Left click at frame pixel (x, y).

    On an open drop-down list it chooses the option there; anywhere else it only closes the list.
    """
    type: Literal["click"] = "click"
    x: Coord
    y: Coord


class DoubleClick(_Action):
    """Double click at frame pixel (x, y)."""
    type: Literal["double_click"] = "double_click"
    x: Coord
    y: Coord


class RightClick(_Action):
    """Right click (context menu) at frame pixel (x, y)."""
    type: Literal["right_click"] = "right_click"
    x: Coord
    y: Coord


class Move(_Action):
    """Move the mouse to frame pixel (x, y) (hover)."""
    type: Literal["move"] = "move"
    x: Coord
    y: Coord


class Drag(_Action):
    """Press at (x1, y1), move to (x2, y2), release."""
    type: Literal["drag"] = "drag"
    x1: Coord
    y1: Coord
    x2: Coord
    y2: Coord


class Scroll(_Action):
    """Mouse-wheel scroll by (dx, dy) pixels with the pointer at (x, y).

    Positive dy scrolls down, positive dx right (a page or table wider than the frame); over an
    open drop-down list it scrolls the list's options.
    """
    type: Literal["scroll"] = "scroll"
    x: Coord
    y: Coord
    dx: int = 0
    dy: int = 0


class TypeText(_Action):
    """Type text into whatever has keyboard focus (page element or address bar)."""
    type: Literal["type"] = "type"
    text: str = Field(max_length=10_000)


class Key(_Action):
    """Press a key or combination, e.g. "Enter", "Tab", "Control+A", "Shift+Tab"."""
    type: Literal["key"] = "key"
    keys: str = Field(min_length=1, max_length=100)


class Wait(_Action):
    """Let time pass (e.g. for a slow page), then observe."""
    type: Literal["wait"] = "wait"
    seconds: float = Field(default=1.0, ge=0.0, le=30.0)


class Goto(_Action):
    """Navigate the active tab to a URL (only the benchmark's apps are reachable)."""
    type: Literal["goto"] = "goto"
    url: str = Field(min_length=1, max_length=4_000)


class NewTab(_Action):
    """Open a new tab (blank, or at `url`) and make it active."""
    type: Literal["new_tab"] = "new_tab"
    url: str | None = Field(default=None, max_length=4_000)


class SwitchTab(_Action):
    """Make tab `index` (0-based, left to right) the active one."""
    type: Literal["switch_tab"] = "switch_tab"
    index: int = Field(ge=0)


class CloseTab(_Action):
    """Close tab `index` (default: the active tab)."""
    type: Literal["close_tab"] = "close_tab"
    index: int | None = Field(default=None, ge=0)


class ChooseFile(_Action):
    """Pick a file from the Downloads folder in the open file dialog."""
    type: Literal["choose_file"] = "choose_file"
    name: str = Field(min_length=1)


# An element id is a `[ref=...]` of the latest observation's accessibility tree: `e12`, or
# `f1e3` inside a frame. Ids are valid for that observation only.
ElementId = Annotated[str, Field(pattern=r"^(f\d+)?e\d+$", max_length=20)]


class ClickElement(_Action):
    """Click the element with this id in the latest accessibility tree (element action space)."""
    type: Literal["click_element"] = "click_element"
    element: ElementId


class FillElement(_Action):
    """Replace the text of the input or text area with this id by `text`."""
    type: Literal["fill_element"] = "fill_element"
    element: ElementId
    text: str = Field(max_length=10_000)


class SelectOption(_Action):
    """Choose the option shown as `option` (its label) in the select with this id."""
    type: Literal["select_option"] = "select_option"
    element: ElementId
    option: str = Field(min_length=1, max_length=1_000)


class UploadToElement(_Action):
    """Attach the Downloads file `name` through the file input (or its button) with this id."""
    type: Literal["upload_to_element"] = "upload_to_element"
    element: ElementId
    name: str = Field(min_length=1)


class Done(_Action):
    """End the episode, optionally with a final answer."""
    type: Literal["done"] = "done"
    answer: str | None = None


Action = Annotated[
    Union[Click, DoubleClick, RightClick, Move, Drag, Scroll, TypeText, Key, Wait, Goto,
          NewTab, SwitchTab, CloseTab, ChooseFile, ClickElement, FillElement, SelectOption,
          UploadToElement, Done],
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
ACTION_TYPES: tuple[str, ...] = (
    "click", "double_click", "right_click", "move", "drag", "scroll", "type", "key", "wait",
    "goto", "new_tab", "switch_tab", "close_tab", "choose_file", "click_element", "fill_element",
    "select_option", "upload_to_element", "done")
# The element action space: actions that name an element of the accessibility tree.
ELEMENT_ACTION_TYPES: tuple[str, ...] = (
    "click_element", "fill_element", "select_option", "upload_to_element")


def parse_action(action: Any) -> Action:
    """An Action from an Action, a dict, or a JSON string (raises pydantic ValidationError)."""
    if isinstance(action, (str, bytes)):
        return ACTION_ADAPTER.validate_json(action)
    return ACTION_ADAPTER.validate_python(action)
