"""Typing text as keystrokes, at once where no script hears them.

Playwright's keyboard.type presses a key for each character, two round trips to the renderer
each: 1.8 ms a character on a quiet machine, twice that on a busy one, and a note or an appeal
letter runs to hundreds of characters (a quarter of the whole task check's time went on it).
Where the focused element is a plain text field and no script on its way up (the field, its
ancestors, the document, the window) listens for keys, input or selection changes, a
keystroke's one effect is its default action, inserting its character; a run of such
characters is then inserted in one go (keyboard.insert_text), which leaves the same value and
caret. Everywhere else, and always for Enter, Tab and other control characters, each key is
pressed as before.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Error as PlaywrightError, Page

# Shorter runs cost less to press than to ask about.
SHORTEST_INSERTED_RUN = 8
PLAIN_RUN = re.compile(rf"[^\x00-\x1f\x7f]{{{SHORTEST_INSERTED_RUN},}}")

# Evaluated with the DevTools command-line API in scope (getEventListeners sees listeners added
# by script and by attribute alike). True when inserting the string `run` into the focused
# element is exactly what pressing its keys would do: a text field, enabled and writable, nobody
# listening, and a maxlength (if any) the run fits in (a field over its maxlength moves the
# caret differently under insertion).
QUIET_FIELD_JS = """(run => {
  const heard = ['keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'textInput', 'selectionchange'];
  const listened = target => { const found = getEventListeners(target);
                               return heard.some(type => (found[type] || []).length > 0); };
  const field = document.activeElement;
  const textual = field instanceof HTMLTextAreaElement || (field instanceof HTMLInputElement
    && ['text', 'search', 'email', 'url', 'tel', 'password'].includes(field.type));
  if (!textual || field.disabled || field.readOnly) return false;
  if (field.maxLength >= 0) {
    if (field.selectionStart === null) return false;
    const kept = field.value.length - (field.selectionEnd - field.selectionStart);
    if (kept + run.length > field.maxLength) return false;
  }
  for (let node = field; node; node = node.parentNode) if (listened(node)) return false;
  return !listened(window);
})(%s)"""


def type_text(page: Page, devtools_evaluate: Callable[[str], Any], text: str) -> None:
    """Type `text` into `page` as keystrokes would, inserting the runs of plain characters no
    script hears. `devtools_evaluate` evaluates an expression in the page with the DevTools
    command-line API."""
    pressed_up_to = 0
    for run in PLAIN_RUN.finditer(text):
        # What comes before the run is pressed first: an Enter or a Tab may move the focus.
        if run.start() > pressed_up_to:
            page.keyboard.type(text[pressed_up_to:run.start()])
            pressed_up_to = run.start()
        if _quiet(devtools_evaluate, run.group()):
            page.keyboard.insert_text(run.group())
            pressed_up_to = run.end()
    if pressed_up_to < len(text):
        page.keyboard.type(text[pressed_up_to:])


def _quiet(devtools_evaluate: Callable[[str], Any], run: str) -> bool:
    try:
        return devtools_evaluate(QUIET_FIELD_JS % json.dumps(run)) is True
    except PlaywrightError:  # the page is between documents (an Enter submitted a form): press the keys
        return False
