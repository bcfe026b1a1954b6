"""A post's result is shown where the viewport is, and a failed post's page reloads without
re-posting (real Chromium on the kit's demo app, whose form sits below the fold)."""
from __future__ import annotations

import pytest

from . import kit_demo
from .conftest import build_app, login_in_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(kit_demo.create_app, app_data_dir)


def in_viewport(page, selector: str) -> bool:
    return page.eval_on_selector(selector, """element => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight; }""")


def posts_made(client_snapshot) -> int:
    return sum(1 for row in client_snapshot["audit_events"] if row["method"] == "POST")


def test_a_failed_post_shows_its_error_in_view_and_reloads_without_posting(page, live, app):
    from .conftest import FormClient

    page.set_viewport_size({"width": 1280, "height": 720})
    login_in_browser(page, live.url)
    page.get_by_label("Name").fill("x" * 41)
    page.get_by_role("button", name="Add").click()
    page.wait_for_selector("[role=alert]")
    page.wait_for_function("document.readyState === 'complete'")
    assert in_viewport(page, "[role=alert]")
    bench = FormClient(app)
    posts = posts_made(bench.snapshot())
    page.reload()
    assert page.url == f"{live.url}/"  # the form's page, fetched with GET
    assert posts_made(bench.snapshot()) == posts


def test_a_page_without_a_post_keeps_its_scroll(page, live, app):
    page.set_viewport_size({"width": 1280, "height": 720})
    login_in_browser(page, live.url)
    page.goto(f"{live.url}/")
    page.wait_for_function("document.readyState === 'complete'")
    assert page.evaluate("window.scrollY") == 0
