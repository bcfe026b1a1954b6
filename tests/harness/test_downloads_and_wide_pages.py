"""The downloads bubble after a download, and horizontal scrolling of a page wider than the
frame (fixture app, real Chromium)."""
from __future__ import annotations

import pytest

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT
from admindesk.harness.env.drawing.downloads_bubble import COLORS
from tests.harness.conftest import adhoc

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def step_ok(env, action: dict):
    obs, *_ = env.step(action)
    assert obs.last_action_error is None, obs.last_action_error
    return obs


def click_at(env, point: tuple[int, int]):
    return step_ok(env, {"type": "click", "x": point[0], "y": point[1]})


def centre(box) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def test_a_download_shows_a_bubble_that_the_next_action_closes(fixture_env):
    first, _ = fixture_env.reset(adhoc("/"))
    assert not fixture_env.chrome_layout().download_button
    obs = click_at(fixture_env, fixture_env.element_center("#download"))
    chrome = fixture_env.chrome_layout()
    size = (fixture_env.downloads_dir / "report.pdf").stat().st_size
    assert obs.downloads == ["report.pdf"] and chrome.downloads_bubble == (("report.pdf", size),)
    row = chrome.bubble().row_boxes()[0]
    assert obs.image().getpixel((row[0] + 16, row[1] + 12)) == COLORS["icon"]  # drawn in the frame
    assert first.image().getpixel((row[0] + 16, row[1] + 12)) != COLORS["icon"]
    # A click on the bubble keeps it (as hovering Chromium's does); any other action closes it.
    click_at(fixture_env, centre(row))
    assert fixture_env.chrome_layout().downloads_bubble is not None
    obs = step_ok(fixture_env, {"type": "move", "x": 300, "y": 500})
    chrome = fixture_env.chrome_layout()
    assert chrome.downloads_bubble is None and chrome.download_button
    assert obs.image().getpixel((row[0] + 16, row[1] + 12)) != COLORS["icon"]


def test_a_download_link_s_file_is_in_the_same_step_s_observation(fixture_env):
    # A same-origin link with the download attribute starts no request the harness sees:
    # the step waits for the download itself.
    fixture_env.reset(adhoc("/"))
    obs = click_at(fixture_env, fixture_env.element_center("#saveas"))
    assert obs.downloads == ["report.pdf"]
    assert fixture_env.chrome_layout().downloads_bubble[0][0] == "report.pdf"


def test_the_download_button_lists_every_download_until_a_click_elsewhere(fixture_env):
    fixture_env.reset(adhoc("/"))
    click_at(fixture_env, fixture_env.element_center("#download"))
    click_at(fixture_env, fixture_env.element_center("#download"))  # "report (1).pdf"
    assert fixture_env.chrome_layout().downloads_bubble[0][0] == "report (1).pdf"
    step_ok(fixture_env, {"type": "key", "keys": "Tab"})
    button = fixture_env.chrome_layout().download_button_box()
    click_at(fixture_env, centre(button))
    chrome = fixture_env.chrome_layout()
    assert chrome.downloads_full_list
    assert [name for name, _ in chrome.downloads_bubble] == ["report (1).pdf", "report.pdf"]
    click_at(fixture_env, centre(button))  # the button again closes it
    assert fixture_env.chrome_layout().downloads_bubble is None
    click_at(fixture_env, centre(button))
    click_at(fixture_env, fixture_env.element_center("#click"))  # the page gets this click
    assert fixture_env.chrome_layout().downloads_bubble is None
    clicks = [e for e in fixture_env.record().final_snapshots["ehr_web"]["events"]
              if e["kind"] == "click"]
    assert len(clicks) == 1


WIDEN_JS = """body => {
  body.style.width = '3200px';
  const far = document.createElement('div');
  far.id = 'far';
  far.textContent = 'far right';
  far.style = 'position:absolute;left:1800px;top:120px;width:160px;height:40px;background:#fc8';
  body.appendChild(far);
}"""


def test_a_scroll_with_dx_moves_a_wide_page_sideways(fixture_env):
    fixture_env.reset(adhoc("/"))
    fixture_env.page_locator("body").evaluate(WIDEN_JS)
    before = step_ok(fixture_env, {"type": "wait", "seconds": 0})
    assert fixture_env.element_center("#far")[0] > fixture_env.frame_size[0]  # off the frame
    obs = step_ok(fixture_env, {"type": "scroll", "x": 640, "y": CHROME_HEIGHT + 300,
                                "dx": 1000, "dy": 0})
    assert fixture_env.page_locator("body").evaluate("() => [window.scrollX, window.scrollY]") == [1000, 0]
    x, y = fixture_env.element_center("#far")
    assert 0 <= x < fixture_env.frame_size[0]
    assert obs.image().getpixel((x, y)) == (255, 204, 136) != before.image().getpixel((x, y))
    step_ok(fixture_env, {"type": "scroll", "x": 640, "y": CHROME_HEIGHT + 300, "dx": -400})
    assert fixture_env.page_locator("body").evaluate("() => window.scrollX") == 600
