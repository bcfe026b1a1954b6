"""Payer portal B as its own vendor: the "What's new" interruption, phone and pager wording, fonts,
icons, case numbers, and the left navigation."""
from __future__ import annotations

import re

import pytest
import yaml
from flask import Flask

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.payer_portal_b import create_app

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient
from .test_portal_b_precert import people, submit  # noqa: F401  (fixture and form helper reused)

HEADERS = {"X-Bench-Token": TOKEN}
NOTICE = "What's new at Keystone"


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Flask:
    tasks = tmp_path_factory.mktemp("portal-b-tasks")
    for task_id, turned_on in (("whats-new", {"payer_portal_b": ["whats_new"]}), ("quiet", {}),
                               ("other-portal", {"payer_portal_a": ["whats_new"]})):
        (tasks / f"{task_id}.yaml").write_text(yaml.safe_dump({"id": task_id, "interruptions": turned_on}))
    return create_app(AppConfig(data_dir=tmp_path_factory.mktemp("portal-b-data"), token=TOKEN, testing=True,
                                cache_dir=TEMPLATE_CACHE, tasks_dir=tasks))


def signed_in(app: Flask, body: dict) -> FormClient:
    client = FormClient(app)
    assert client.client.post("/_bench/reset", json=body, headers=HEADERS).status_code == 200
    client.login()
    return client


def shows_notice(client: FormClient, url: str = "/") -> bool:
    page = client.get(url).get_data(as_text=True)
    return '<dialog id="whats-new"' in page and NOTICE in page


def test_whats_new_shows_until_dismissed_and_is_stored(app):
    client = signed_in(app, {"task": "whats-new"})
    assert shows_notice(client) and shows_notice(client, "/claims")
    [row] = client.snapshot()["whats_new_notices"]
    assert row["username"] == "coordinator" and row["times_shown"] == 2 and row["dismissed_at"] is None
    response = client.post("/whats-new/dismiss", {"next": "/claims"})
    assert response.status_code == 302 and response.location.endswith("/claims")
    assert not shows_notice(client) and not shows_notice(client, "/dme")
    [row] = client.snapshot()["whats_new_notices"]
    assert row["dismissed_at"] is not None and row["times_shown"] == 2


@pytest.mark.parametrize("body", [{}, {"task": "quiet"}, {"task": "other-portal"}])
def test_whats_new_is_off_unless_the_task_turns_it_on(app, body):
    client = signed_in(app, body)
    assert not shows_notice(client) and not shows_notice(client, "/appeals")
    assert client.snapshot()["whats_new_notices"] == []


def test_dismiss_goes_nowhere_off_site(app):
    client = signed_in(app, {"task": "whats-new"})
    client.get("/")
    assert client.post("/whats-new/dismiss", {"next": "//evil.example/"}).location.endswith("/")


def test_phone_numbers_are_dotted(app):
    client = signed_in(app, {})
    fax = client.snapshot()["payer_profiles"][0]["precert_fax"]
    page = client.get("/contacts").get_data(as_text=True)
    assert f"{fax[:3]}.{fax[3:6]}.{fax[6:]}" in page and f"({fax[:3]})" not in page


def test_empty_list_says_so_instead_of_zero_of_zero(app):
    client = signed_in(app, {})
    page = client.get("/appeals?q=NO-SUCH-APPEAL").get_data(as_text=True)
    assert "No appeals to display." in page
    assert "0&ndash;0 of 0" not in page and "Page 1 of 1" not in page and "Page 1 / 1" not in page
    page = client.get("/claims?per_page=10").get_data(as_text=True)
    assert "Showing records 1 to 10 of" in page and re.search(r"Page 1 / \d+", page)


def test_requirements_page_highlights_its_own_nav_item(app):
    client = signed_in(app, {})
    page = client.get("/precertification/requirements").get_data(as_text=True)
    current = re.findall(r'<a href="([^"]+)" aria-current="page">', page.split('aria-label="Portal menu"')[1])
    assert current == ["/precertification/requirements"]
    page = client.get("/precertification/new").get_data(as_text=True)
    current = re.findall(r'<a href="([^"]+)" aria-current="page">', page.split('aria-label="Portal menu"')[1])
    assert current == ["/precertification/new"]


def test_fonts_licence_and_icons_ship_with_the_portal(app):
    client = signed_in(app, {})
    css = client.get("/static/portal.css").get_data(as_text=True)
    fonts = re.findall(r'url\("(fonts/[^"]+\.ttf)"\)', css)
    assert {"fonts/LiberationSerif-Regular.ttf", "fonts/LiberationSansNarrow-Regular.ttf"} <= set(fonts)
    for font in fonts:
        assert client.get(f"/static/{font}").data[:4] == b"\x00\x01\x00\x00", font
    assert "GNU General Public License" in client.get("/static/fonts/LICENSE-Liberation.txt").get_data(as_text=True)
    page = client.get("/").get_data(as_text=True)
    icons = set(re.findall(r'src="(/static/icons/[a-z-]+\.svg)"', page))
    assert len(icons) >= 8
    for icon in icons:
        assert client.get(icon).get_data(as_text=True).startswith("<svg"), icon


def test_case_numbers_are_keystones_own(app, people):  # noqa: F811
    client = signed_in(app, {})
    submit(client, people)
    references = [r["reference_number"] for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    assert references == ["KM-P-26-000001"]
    assert all(re.fullmatch(r"KM-A-\d{2}-\d{6}", a["appeal_id"]) for a in client.snapshot()["appeals"])
