"""Key names as providers write them (xdotool `ctrl+Return`, OpenAI `["CTRL", "A"]`) turned
into the Playwright combos our `key` action takes (`Control+Enter`, `Control+A`)."""
from __future__ import annotations

import re

_NAMES = {
    "ctrl": "Control", "control": "Control", "alt": "Alt", "option": "Alt", "shift": "Shift",
    "cmd": "Meta", "command": "Meta", "meta": "Meta", "super": "Meta", "win": "Meta",
    "enter": "Enter", "return": "Enter", "kpenter": "Enter", "esc": "Escape",
    "escape": "Escape", "tab": "Tab", "backspace": "Backspace", "delete": "Delete",
    "del": "Delete", "space": "Space", "up": "ArrowUp", "down": "ArrowDown",
    "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight",
    "pageup": "PageUp", "pagedown": "PageDown", "prior": "PageUp", "next": "PageDown",
    "home": "Home", "end": "End", "insert": "Insert",
}
_FUNCTION_KEY = re.compile(r"^f([1-9]|1[0-2])$")


class UnknownKey(ValueError):
    """A key name we cannot map onto a Playwright key."""


def playwright_key(name: str) -> str:
    """One key name in Playwright's spelling (a single character is kept as it is)."""
    cleaned = name.strip()
    folded = re.sub(r"[_\-\s]", "", cleaned.lower())
    if folded in _NAMES:
        return _NAMES[folded]
    if _FUNCTION_KEY.match(folded):
        return folded.upper()
    if len(cleaned) == 1:
        return cleaned
    raise UnknownKey(f"unknown key {name!r}")


def playwright_combo(keys: list[str] | str) -> str:
    """A combo (`["CTRL", "A"]` or `"ctrl+a"`) as Playwright's `Control+A`: with modifiers,
    a letter is upper-cased so that `ctrl+a` and `Control+A` are one combo (the Env matches
    combos such as `Control+L` exactly)."""
    parts = keys if isinstance(keys, list) else re.split(r"\+(?!$)", keys)
    if not parts or any(not part.strip() for part in parts):
        raise UnknownKey(f"empty key in {keys!r}")
    names = [playwright_key(part) for part in parts]
    if len(names) > 1:
        names = [name.upper() if len(name) == 1 else name for name in names]
    return "+".join(names)
