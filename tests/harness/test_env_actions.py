"""Every action type, in real Chromium, against the fixture app; effects read from snapshots."""
from __future__ import annotations

import pytest

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT
from tests.harness.conftest import adhoc

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def events(env, kind: str) -> list[str]:
    return [e["detail"] for e in env.record().final_snapshots["ehr_web"]["events"]
            if e["kind"] == kind]


def step_ok(env, action: dict):
    obs, terminated, truncated, info = env.step(action)
    assert obs.last_action_error is None, obs.last_action_error
    return obs, terminated, truncated, info


def test_reset_opens_the_start_page_logged_in(fixture_env):
    obs, info = fixture_env.reset(adhoc("/"))
    assert obs.url == fixture_env.app_url("ehr_web", "/")
    assert obs.tabs[0].title == "Playground - ehr_web"
    assert obs.step == 0 and obs.screenshot.startswith(b"\x89PNG")
    assert obs.image().size == (1280, 800)
    assert "button \"Click\"" in obs.axtree
    assert info["goal"] == "test" and set(info["apps"]) == {"ehr_web", "fax"}


def test_reset_without_login_shows_the_login_page(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/", login=False))
    assert "/login" in obs.url and fixture_env.record().final_snapshots["ehr_web"]["logins"] == []


def test_observation_none_shows_the_page_s_place_but_no_picture_of_it(fixture_env, monkeypatch):
    monkeypatch.setattr(fixture_env, "observation_mode", "none")
    obs, _ = fixture_env.reset(adhoc("/"))
    assert obs.screenshot is None and obs.axtree is None
    assert obs.url == fixture_env.app_url("ehr_web", "/") and obs.tabs[0].title == "Playground - ehr_web"
    x, y = fixture_env.element_center("#newtab")
    obs = step_ok(fixture_env, {"type": "click", "x": x, "y": y})[0]
    assert len(obs.tabs) == 2 and obs.active_tab == 1 and obs.screenshot is None


def test_an_unknown_observation_mode_is_refused_before_anything_starts():
    from admindesk.harness.env.environment import Env
    with pytest.raises(ValueError, match="screenshot, axtree, both, none, not 'pixels'"):
        Env("pixels")


def test_axtree_boxes_are_frame_pixels(fixture_env):
    obs, _ = fixture_env.reset(adhoc("/"))
    line = next(line for line in obs.axtree.splitlines() if 'button "Click"' in line)
    x, y, w, h = map(int, line.split("[box=")[1].rstrip("]").split(","))
    assert (x + w // 2, y + h // 2) == fixture_env.element_center("#click")
    step_ok(fixture_env, {"type": "click", "x": x + w // 2, "y": y + h // 2})
    assert events(fixture_env, "click") == ["1"]


def test_element_center_waits_for_a_late_element_and_refuses_a_hidden_one(fixture_env):
    fixture_env.reset(adhoc("/"))
    fixture_env.page_locator("body").evaluate("""body => {
      const hidden = document.createElement('button'); hidden.id = 'hidden'; hidden.hidden = true;
      body.append(hidden);
      setTimeout(() => { const late = document.createElement('button'); late.id = 'late';
                         late.textContent = 'Late'; body.prepend(late); }, 300);
    }""")
    with pytest.raises(LookupError, match="not visible"):
        fixture_env.element_center("#hidden")
    x, y = fixture_env.element_center("#late")  # not there yet when asked
    box = fixture_env.page_locator("#late").bounding_box()
    assert (x, y) == (round(box["x"] + box["width"] / 2), round(box["y"] + box["height"] / 2) + CHROME_HEIGHT)


@pytest.mark.parametrize("kind, selector", [("click", "#click"),
                                            ("double_click", "text=Double"),
                                            ("right_click", "text=Right"), ("move", "text=Hover")])
def test_pointer_actions(fixture_env, kind, selector):
    fixture_env.reset(adhoc("/"))
    x, y = fixture_env.element_center(selector)
    step_ok(fixture_env, {"type": kind, "x": x, "y": y})
    assert events(fixture_env, kind) == ["1"]


def test_drag(fixture_env):
    fixture_env.reset(adhoc("/"))
    x, y = fixture_env.element_center("#drag")
    step_ok(fixture_env, {"type": "drag", "x1": x - 30, "y1": y, "x2": x + 20, "y2": y})
    assert events(fixture_env, "drag") == ["50"]


def test_scroll_moves_the_page(fixture_env):
    first, _ = fixture_env.reset(adhoc("/"))
    obs, *_ = step_ok(fixture_env, {"type": "scroll", "x": 640, "y": 500, "dy": 400})
    assert events(fixture_env, "scroll") == ["400"]
    assert obs.screenshot != first.screenshot


def test_a_scroll_has_landed_when_its_step_returns_even_without_a_frame(fixture_env, monkeypatch):
    # No frame is taken to wait on: the step itself waits for the page to scroll and stop.
    monkeypatch.setattr(fixture_env, "observation_mode", "none")
    fixture_env.reset(adhoc("/"))
    for dy, expected in ((400, 400), (-150, 250), (150, 400)):
        step_ok(fixture_env, {"type": "scroll", "x": 640, "y": 500, "dy": dy})
        assert fixture_env._episode.page.evaluate("window.scrollY") == expected


def test_type_and_enter_submit_a_form(fixture_env):
    fixture_env.reset(adhoc("/"))
    step_ok(fixture_env, {"type": "click", **dict(zip("xy", fixture_env.element_center("#q")))})
    step_ok(fixture_env, {"type": "type", "text": "MRN 0042"})
    step_ok(fixture_env, {"type": "key", "keys": "Enter"})
    assert fixture_env.record().final_snapshots["ehr_web"]["submissions"] == [{"q": "MRN 0042"}]


def test_key_combination(fixture_env):
    fixture_env.reset(adhoc("/"))
    step_ok(fixture_env, {"type": "click", **dict(zip("xy", fixture_env.element_center("#keys")))})
    step_ok(fixture_env, {"type": "key", "keys": "Control+A"})
    # Each keydown reports by its own fetch, so the two may reach the server in either order.
    assert sorted(events(fixture_env, "key")) == ["Control+A", "Control+Control"]


def test_settle_waits_for_late_requests(fixture_env):
    fixture_env.reset(adhoc("/"))
    x, y = fixture_env.element_center("#slowbtn")
    obs, *_ = step_ok(fixture_env, {"type": "click", "x": x, "y": y})
    assert "late text arrived" in obs.axtree


def test_wait_goto_and_blocked_goto(fixture_env):
    fixture_env.reset(adhoc("/"))
    obs, *_ = step_ok(fixture_env, {"type": "wait", "seconds": 0.1})
    assert obs.step == 1
    fax = fixture_env.app_url("fax", "/page2")
    obs, *_ = step_ok(fixture_env, {"type": "goto", "url": fax})
    # Not logged in to the fax app yet: it sends the browser to its login page.
    assert obs.url.startswith(fixture_env.app_url("fax", "/login"))
    assert obs.tabs[0].title == "Sign in - fax"
    obs, *_ = fixture_env.step({"type": "goto", "url": "file:///etc/passwd"})
    assert "not allowed" in obs.last_action_error and obs.url.startswith("http://127.0.0.1")


def test_tabs_through_actions_and_through_the_drawn_chrome(fixture_env):
    fixture_env.reset(adhoc("/"))
    x, y = fixture_env.element_center("#newtab")
    obs, *_ = step_ok(fixture_env, {"type": "click", "x": x, "y": y})  # target=_blank link
    assert len(obs.tabs) == 2 and obs.active_tab == 1 and obs.tabs[1].title.startswith("Page two")
    chrome = fixture_env._executor.chrome_state()
    first_tab = chrome.tab_boxes()[0]
    obs, *_ = step_ok(fixture_env, {"type": "click", "x": first_tab[0] + 30, "y": 20})
    assert obs.active_tab == 0 and obs.url == fixture_env.app_url("ehr_web", "/")
    obs, *_ = step_ok(fixture_env, {"type": "switch_tab", "index": 1})
    assert obs.active_tab == 1
    close = chrome.close_box(chrome.tab_boxes()[1])
    obs, *_ = step_ok(fixture_env, {"type": "click", "x": close[0] + 3, "y": close[1] + 3})
    assert len(obs.tabs) == 1 and obs.active_tab == 0
    obs, *_ = step_ok(fixture_env, {"type": "new_tab", "url": fixture_env.app_url("fax", "/")})
    assert len(obs.tabs) == 2 and obs.tabs[1].url.startswith(fixture_env.app_url("fax", "/login"))
    obs, *_ = step_ok(fixture_env, {"type": "close_tab"})
    assert len(obs.tabs) == 1
    obs, *_ = fixture_env.step({"type": "switch_tab", "index": 5})
    assert "no tab 5" in obs.last_action_error


def test_address_bar_and_new_tab_button(fixture_env):
    fixture_env.reset(adhoc("/"))
    chrome = fixture_env._executor.chrome_state()
    plus = chrome.new_tab_box()
    obs, *_ = step_ok(fixture_env, {"type": "click", "x": plus[0] + 5, "y": plus[1] + 5})
    assert len(obs.tabs) == 2 and obs.url == "about:blank"
    step_ok(fixture_env, {"type": "type", "text": fixture_env.app_url("ehr_web", "/page2")})
    obs, *_ = step_ok(fixture_env, {"type": "key", "keys": "Enter"})
    assert obs.url == fixture_env.app_url("ehr_web", "/page2")
    address = chrome.address_box()
    step_ok(fixture_env, {"type": "click", "x": address[0] + 40, "y": address[1] + 10})
    step_ok(fixture_env, {"type": "type", "text": "view-source:" + obs.url})
    obs, *_ = fixture_env.step({"type": "key", "keys": "Enter"})
    assert "not allowed" in obs.last_action_error
    assert obs.url == fixture_env.app_url("ehr_web", "/page2")
    bookmark = chrome.bookmark_boxes()[1]  # "Fax"
    obs, *_ = step_ok(fixture_env, {"type": "click", "x": bookmark[0] + 5, "y": bookmark[1] + 5})
    assert obs.url.startswith(fixture_env.app_url("fax", "/login"))


def test_done_terminates_and_budget_truncates(fixture_env):
    fixture_env.reset(adhoc("/", max_steps=2))
    _, terminated, truncated, _ = step_ok(fixture_env, {"type": "move", "x": 5, "y": 5})
    assert not terminated and not truncated
    _, terminated, truncated, _ = step_ok(fixture_env, {"type": "wait", "seconds": 0})
    assert truncated and not terminated
    with pytest.raises(RuntimeError):
        fixture_env.step({"type": "wait", "seconds": 0})
    fixture_env.reset(adhoc("/"))
    _, terminated, truncated, _ = step_ok(fixture_env, {"type": "done", "answer": "A-123"})
    assert terminated and not truncated and fixture_env.record().answer == "A-123"


def test_invalid_action_reports_an_error_and_counts_as_a_step(fixture_env):
    fixture_env.reset(adhoc("/"))
    obs, *_ = fixture_env.step({"type": "click", "x": 5})
    assert obs.step == 1 and "invalid action" in obs.last_action_error and "y" in obs.last_action_error
    obs, *_ = fixture_env.step({"type": "drag", "x1": 5, "y1": 5, "x2": 9, "y2": CHROME_HEIGHT + 9})
    assert "not on the page" in obs.last_action_error
