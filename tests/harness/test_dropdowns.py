"""Drop-down lists for a screenshot-only agent: the harness draws an open `<select>`'s list,
and clicks and keys on it act as on Chromium's own list (fixture app, real Chromium)."""
from __future__ import annotations

import pytest

from admindesk.harness.env.drawing.dropdown import COLORS, ROW_HEIGHT
from tests.harness.conftest import adhoc

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# A select over a button that logs clicks: a click on a drawn option that leaked to the
# page would press it. Every event of the select is logged in order.
FORM_JS = """body => {
  const holder = document.createElement('div');
  holder.style = 'position:absolute;left:40px;top:320px;font:14px sans-serif;background:#fff';
  holder.innerHTML = `<label>Level <select id=pick>
      <option value=a>Alpha</option><option value=b disabled>Bravo</option>
      <optgroup label="More"><option value=c>Charlie</option><option value=d hidden>Delta</option>
      <option value=e>Echo</option></optgroup></select></label>
    <button id=beneath style="display:block;width:300px;height:200px;margin-top:4px">beneath</button>
    <select id=long>${Array.from({length: 40}, (_, i) => `<option>Row ${i}</option>`).join('')}</select>`;
  body.appendChild(holder);
  window.selectLog = [];
  const pick = document.getElementById('pick');
  for (const kind of ['input', 'change', 'click'])
    pick.addEventListener(kind, () => window.selectLog.push(kind + ' ' + pick.value));
  document.getElementById('beneath').addEventListener('click', () => window.selectLog.push('beneath'));
}"""


def step_ok(env, action: dict):
    obs, *_ = env.step(action)
    assert obs.last_action_error is None, obs.last_action_error
    return obs


def open_form(env) -> None:
    env.reset(adhoc("/"))
    env.page_locator("body").evaluate(FORM_JS)


def open_list(env, selector: str = "#pick"):
    """Click the select; return the observation and the drawn list."""
    x, y = env.element_center(selector)
    obs = step_ok(env, {"type": "click", "x": x, "y": y})
    drawn = env.chrome_layout().dropdown
    assert drawn is not None, "the click opened no drawn list"
    return obs, drawn


def row_centre(drawn, label: str) -> tuple[int, int]:
    box = next(box for box, row in drawn.row_boxes() if row.label == label)
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def log(env) -> list[str]:
    return env.page_locator("body").evaluate("() => window.selectLog")


def value(env, selector: str = "#pick") -> str:
    return env.page_locator(selector).input_value()


def test_the_open_list_is_drawn_under_the_select_with_its_choice_highlighted(fixture_env):
    open_form(fixture_env)
    obs, drawn = open_list(fixture_env)
    x, y = fixture_env.element_center("#pick")
    left, top, right, _ = drawn.box()
    assert left <= x < right and top > y  # below the select, as Chromium opens it
    assert [row.label for row in drawn.rows] == ["Alpha", "Bravo", "More", "Charlie", "Echo"]
    image = obs.image()
    alpha = next(box for box, row in drawn.row_boxes() if row.label == "Alpha")
    assert image.getpixel((alpha[0] + 2, alpha[1] + 2)) == COLORS["highlight"]
    charlie = next(box for box, row in drawn.row_boxes() if row.label == "Charlie")
    assert image.getpixel((charlie[0] + 2, charlie[1] + 2)) == COLORS["background"]


def test_a_click_on_a_drawn_option_chooses_it_as_chromium_does(fixture_env):
    open_form(fixture_env)
    _, drawn = open_list(fixture_env)
    step_ok(fixture_env, {"type": "click", "x": row_centre(drawn, "Echo")[0],
                          "y": row_centre(drawn, "Echo")[1]})
    assert value(fixture_env) == "e"
    # Opening click, then what choosing does; nothing reached the button under the list.
    assert log(fixture_env) == ["click a", "input e", "change e", "click e"]
    assert fixture_env.chrome_layout().dropdown is None
    assert fixture_env.page_locator("#pick").evaluate("el => document.activeElement === el")


def test_disabled_options_and_group_labels_take_no_click(fixture_env):
    open_form(fixture_env)
    _, drawn = open_list(fixture_env)
    for label in ("Bravo", "More"):
        step_ok(fixture_env, {"type": "click", "x": row_centre(drawn, label)[0],
                              "y": row_centre(drawn, label)[1]})
    assert value(fixture_env) == "a" and log(fixture_env) == ["click a"]
    assert fixture_env.chrome_layout().dropdown is not None  # still open, as in Chromium


def test_a_click_beside_the_list_closes_it_and_does_nothing_else(fixture_env):
    open_form(fixture_env)
    _, drawn = open_list(fixture_env)
    beside = fixture_env.element_center("#beneath")
    assert drawn.hit(*beside)[0] == "off"
    step_ok(fixture_env, {"type": "click", "x": beside[0], "y": beside[1]})
    assert log(fixture_env) == ["click a"] and value(fixture_env) == "a"
    assert fixture_env.chrome_layout().dropdown is None
    step_ok(fixture_env, {"type": "click", "x": beside[0], "y": beside[1]})  # list closed now
    assert log(fixture_env) == ["click a", "beneath"]


def test_keys_work_on_the_drawn_list(fixture_env):
    open_form(fixture_env)
    open_list(fixture_env)
    for keys in ("ArrowDown", "ArrowDown", "Enter"):  # Bravo is disabled: skipped
        step_ok(fixture_env, {"type": "key", "keys": keys})
    assert value(fixture_env) == "e"
    assert log(fixture_env) == ["click a", "input e", "change e", "click e"]
    open_list(fixture_env)
    step_ok(fixture_env, {"type": "type", "text": "ch"})
    step_ok(fixture_env, {"type": "key", "keys": "Escape"})  # Chromium keeps the moved-to option
    assert value(fixture_env) == "c" and fixture_env.chrome_layout().dropdown is None
    open_list(fixture_env)
    obs, *_ = fixture_env.step({"type": "key", "keys": "Control+A"})
    assert "drop-down list is open" in obs.last_action_error
    step_ok(fixture_env, {"type": "key", "keys": "Escape"})
    step_ok(fixture_env, {"type": "key", "keys": "ArrowUp"})  # the closed select, as before
    assert value(fixture_env) == "a"


def test_keyboard_opening_draws_the_list_too(fixture_env):
    open_form(fixture_env)
    open_list(fixture_env)
    step_ok(fixture_env, {"type": "key", "keys": "Escape"})
    step_ok(fixture_env, {"type": "key", "keys": "Alt+ArrowDown"})
    drawn = fixture_env.chrome_layout().dropdown
    assert drawn is not None
    step_ok(fixture_env, {"type": "click", "x": row_centre(drawn, "Charlie")[0],
                          "y": row_centre(drawn, "Charlie")[1]})
    assert value(fixture_env) == "c"


def test_a_long_list_scrolls_under_the_wheel(fixture_env):
    open_form(fixture_env)
    _, drawn = open_list(fixture_env, "#long")
    assert len(drawn.row_boxes()) < 40
    left, top, right, bottom = drawn.box()
    step_ok(fixture_env, {"type": "scroll", "x": (left + right) // 2, "y": (top + bottom) // 2,
                          "dy": 30 * ROW_HEIGHT})
    drawn = fixture_env.chrome_layout().dropdown
    assert drawn.row_boxes()[-1][1].label == "Row 39"
    step_ok(fixture_env, {"type": "click", "x": row_centre(drawn, "Row 35")[0],
                          "y": row_centre(drawn, "Row 35")[1]})
    assert value(fixture_env, "#long") == "Row 35"


def test_the_list_goes_when_the_page_does(fixture_env):
    open_form(fixture_env)
    open_list(fixture_env)
    step_ok(fixture_env, {"type": "goto", "url": fixture_env.app_url("ehr_web", "/")})
    assert fixture_env.chrome_layout().dropdown is None
