"""Typing inserts a run of plain characters at once only where pressing its keys would end the
same: the same value and caret in every kind of field, every key pressed where a script hears."""
from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError

from admindesk.harness.env.episode_browser import EpisodeBrowser
from admindesk.harness.env.text_entry import type_text

LETTER = "Requesting reconsideration of claim CLM-2291: the MRI was medically necessary."


@pytest.fixture
def episode(page, tmp_path):
    """The page as an episode's browser holds it: typing asks its devtools_evaluate."""
    browser = EpisodeBrowser(page.context, [], tmp_path / "Downloads")
    yield browser
    browser.close()


def devtools(episode: EpisodeBrowser, answers: list | None = None):
    """The episode's devtools_evaluate, noting each answer in `answers`."""
    def evaluate(expression: str):
        value = episode.devtools_evaluate(expression)
        if answers is not None:
            answers.append(value)
        return value
    return evaluate


def typed(page, episode, markup: str, text: str, *, fast: bool, selection: tuple[int, int] | None = None,
          answers: list | None = None) -> list:
    """The field's value and caret after typing `text` into it, by type_text or key by key."""
    page.set_content(f"<form onsubmit='return false'>{markup}</form>")
    page.focus("#field")
    if selection is not None:
        page.evaluate("([start, end]) => document.getElementById('field').setSelectionRange(start, end)",
                      list(selection))
    if fast:
        type_text(page, devtools(episode, answers), text)
    else:
        page.keyboard.type(text)
    return page.evaluate("() => { const f = document.getElementById('field');"
                         " return [f.value, f.selectionStart, f.selectionEnd]; }")


FIELDS = {
    "textarea": ("<textarea id=field></textarea>", LETTER, None),
    "textarea, lines": ("<textarea id=field></textarea>",
                        f"Dear reviewer,\n\n{LETTER}\nSincerely,\nA. Coordinator", None),
    "text input, selection replaced": ("<input id=field value='Member ID W000000000'>", "W123456789 (from card)",
                                       (10, 20)),
    "search within maxlength": ("<input id=field type=search maxlength=40>", "Castellano, Lorraine", None),
    "maxlength overflowed": ("<input id=field maxlength=12 value='ab'>", "Castellano, Lorraine", None),
    "textarea over its maxlength": ("<textarea id=field maxlength=7>hello world</textarea>", "appended text",
                                    (1, 3)),
    "email": ("<input id=field type=email>", "records.office@example.org", None),
    "non-US characters": ("<textarea id=field></textarea>", "Résumé — “quoted” café notes", None),
}


@pytest.mark.parametrize("name", FIELDS)
def test_typing_ends_as_pressing_each_key(page, episode, name):
    markup, text, selection = FIELDS[name]
    assert typed(page, episode, markup, text, fast=True, selection=selection) == \
        typed(page, episode, markup, text, fast=False, selection=selection)


def test_a_quiet_field_takes_the_run_at_once(page, episode):
    answers: list = []
    typed(page, episode, "<textarea id=field></textarea>", f"{LETTER}\n{LETTER}", fast=True, answers=answers)
    assert answers == [True, True]  # each line's run, asked about after the Enter before it


@pytest.mark.parametrize("listener", [
    "<script>document.addEventListener('keydown', e => window.heard.push(e.key))</script>",
    "<script>window.addEventListener('keydown', e => window.heard.push(e.key))</script>",
    "<script>document.getElementById('field').onkeydown = e => window.heard.push(e.key)</script>",
])
def test_every_key_is_pressed_where_a_script_listens(page, episode, listener):
    answers: list = []
    page.set_content(f"<script>window.heard = []</script><textarea id=field></textarea>{listener}")
    page.focus("#field")
    type_text(page, devtools(episode, answers), LETTER)
    assert answers == [False]
    assert page.evaluate("window.heard.join('')") == LETTER
    assert page.input_value("#field") == LETTER


def test_an_input_listener_on_an_ancestor_hears_every_character(page, episode):
    page.set_content("<div oninput='window.count = (window.count || 0) + 1'><input id=field></div>")
    page.focus("#field")
    type_text(page, devtools(episode), LETTER)
    assert page.evaluate("window.count") == len(LETTER)


def test_an_enter_that_moves_the_focus_is_pressed_before_the_next_run_is_asked_about(page, episode):
    page.set_content("<input id=field><button id=next onclick='document.getElementById(\"other\").focus()'>"
                     "next</button><input id=other>")
    page.focus("#field")
    page.keyboard.press("Tab")  # onto the button: Enter there moves the focus to #other
    type_text(page, devtools(episode), f"\n{LETTER}")
    assert page.input_value("#other") == LETTER
    assert page.input_value("#field") == ""


def test_keys_into_something_other_than_a_text_field_are_pressed(page, episode):
    page.set_content("<select id=field><option>Alpha</option><option>Bravo charlie delta</option></select>")
    page.focus("#field")
    answers: list = []
    type_text(page, devtools(episode, answers), "Bravo charlie delta")
    assert answers == [False]
    assert page.input_value("#field") == "Bravo charlie delta"


def test_keys_are_pressed_while_the_page_cannot_be_asked(page):
    def between_documents(expression: str):
        raise PlaywrightError("Execution context was destroyed")

    page.set_content("<script>window.heard = 0</script><textarea id=field onkeydown='window.heard++'></textarea>")
    page.focus("#field")
    type_text(page, between_documents, LETTER)
    assert page.input_value("#field") == LETTER
    assert page.evaluate("window.heard") == len(LETTER)


def test_an_expression_that_throws_is_an_error(episode):
    with pytest.raises(PlaywrightError, match="devtools evaluation failed"):
        episode.devtools_evaluate("no_such_name.value")
