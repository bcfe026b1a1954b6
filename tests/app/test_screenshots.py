"""One screenshot per app of its home screen at 1280x720, as a coordinator sees it.

With ADMINDESK_WRITE_SCREENSHOTS=1 the PNGs go to docs/screenshots/<app>.png (the README
shows them); otherwise to the test's tmp folder, so an ordinary run changes no file.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from admindesk.harness.task_tools.screen_survey import VIEWPORT, sign_in

from .conftest import build_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

APPS = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# A screen with content has edges and text: grey levels spread well beyond a flat fill.
MIN_GREY_SPREAD = 20.0


def screenshot_folder(tmp_path: Path) -> Path:
    """docs/screenshots when asked to write them, else the test's own tmp folder."""
    return DOCS_SCREENSHOTS if os.environ.get("ADMINDESK_WRITE_SCREENSHOTS") == "1" else tmp_path


def is_blank(image: Image.Image) -> bool:
    """True for a flat or nearly flat image (an empty or unstyled page)."""
    return ImageStat.Stat(image.convert("L")).stddev[0] < MIN_GREY_SPREAD


def test_is_blank_tells_a_flat_image_from_one_with_content():
    flat = Image.new("RGB", (1280, 720), "white")
    assert is_blank(flat)
    striped = flat.copy()
    for x in range(0, 1280, 8):
        striped.paste((20, 20, 20), (x, 0, x + 4, 720))
    assert not is_blank(striped)


@pytest.mark.parametrize("app_name", APPS)
def test_home_screenshot_is_a_full_viewport_with_content(app_name, app_data_dir, serve_live, browser, tmp_path):
    create_app = importlib.import_module(f"admindesk.envs.{app_name}").create_app
    server = serve_live(build_app(create_app, app_data_dir / f"screenshot-{app_name}"))
    server.reset()
    context = browser.new_context(viewport=VIEWPORT, locale="en-US", timezone_id="America/New_York")
    try:
        page = context.new_page()
        sign_in(page, server.url)
        page.goto(f"{server.url}/", wait_until="load")
        page.evaluate("document.fonts.ready.then(() => true)")
        folder = screenshot_folder(tmp_path)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{app_name}.png"
        page.screenshot(path=str(target), animations="disabled", caret="hide")
    finally:
        context.close()
    with Image.open(target) as image:
        assert image.format == "PNG"
        assert image.size == (VIEWPORT["width"], VIEWPORT["height"])
        assert not is_blank(image), f"{target} looks blank"
