"""Every paginated list of every app answers a page it cannot show the same way: a redirect
to the last page (past the end) or to page 1 (zero, negative, not a number) that keeps the
other query arguments, and a notice saying why. Never a silently repeated page, never a 500."""
from __future__ import annotations

import importlib
from urllib.parse import parse_qsl, urlsplit

import pytest

from .conftest import FormClient, build_app

LISTS = [
    ("ehr_web", "/queues/prior-auth?status=all&sort=item&dir=desc"),
    ("ehr_web", "/patients?search=1&name=a"),
    ("ehr_web", "/my-items"),
    ("ehr_web", "/in-basket/"),
    ("payer_portal_a", "/appeals"),
    ("payer_portal_a", "/correspondence"),
    ("payer_portal_a", "/authorizations/drafts"),
    ("payer_portal_b", "/policies?sort=number"),
    ("payer_portal_b", "/claims?per_page=10"),
    ("payer_portal_b", "/dme"),
    ("payer_portal_b", "/precertification"),
    ("payer_portal_b", "/appeals"),
    ("payer_portal_b", "/correspondence"),
    ("fax", "/inbox"),
    ("fax", "/outbox"),
    ("fax", "/directory"),
    ("fax", "/drafts"),
]
IDS = [f"{app}{url}" for app, url in LISTS]


@pytest.fixture(scope="module")
def apps(app_data_dir):
    """Each app, built on first use."""
    built = {}

    def get(name: str):
        if name not in built:
            built[name] = build_app(importlib.import_module(f"admindesk.envs.{name}").create_app, app_data_dir)
        return built[name]

    return get


def signed_in(apps, name: str) -> FormClient:
    client = FormClient(apps(name))
    client.reset()
    client.login()
    return client


def with_page(url: str, page: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}page={page}"


def redirect_args(response) -> dict:
    assert response.status_code == 302, response.status_code
    return dict(parse_qsl(urlsplit(response.location).query, keep_blank_values=True))


def text(response) -> str:
    return response.get_data(as_text=True)


@pytest.mark.parametrize("name, url", LISTS, ids=IDS)
def test_a_page_past_the_end_goes_to_the_last_page_with_a_notice(apps, name, url):
    client = signed_in(apps, name)
    past = client.get(with_page(url, "999"))
    args = redirect_args(past)
    last = args.pop("page")
    assert args == dict(parse_qsl(urlsplit(url).query))  # filters, sort and page size are kept
    shown = client.get(past.location)
    assert shown.status_code == 200
    assert "There is no page 999: this list has " + last in text(shown)
    # The page it went to is the last one: it shows, and the page after it is refused in turn.
    assert client.get(with_page(url, last)).status_code == 200
    assert redirect_args(client.get(with_page(url, str(int(last) + 1))))["page"] == last


@pytest.mark.parametrize("name, url", LISTS, ids=IDS)
def test_bad_page_numbers_go_to_page_one_with_a_notice(apps, name, url):
    client = signed_in(apps, name)
    for raw, notice in (("abc", "\u201cabc\u201d is not a page number"), ("1.5", "is not a page number"),
                        ("\u00b2", "is not a page number"), ("-2", "There is no page -2: pages are numbered from 1"),
                        ("0", "There is no page 0: pages are numbered from 1")):
        response = client.get(with_page(url, raw))
        assert redirect_args(response)["page"] == "1", raw
        assert notice in text(client.get(response.location)), raw


def test_huge_page_numbers_go_to_the_last_page(apps):
    client = signed_in(apps, "ehr_web")
    for raw in ("99999999999999999999", "9" * 5000):
        response = client.get(with_page("/queues/prior-auth", raw))
        assert response.status_code == 302
        assert "There is no page 99999999999999999999" in text(client.get(response.location))


def test_an_empty_list_has_one_page(apps):
    client = signed_in(apps, "ehr_web")
    response = client.get("/patients?search=1&name=Nobodyhasthisname&page=2")
    assert redirect_args(response) == {"search": "1", "name": "Nobodyhasthisname", "page": "1"}
    shown = text(client.get(response.location))
    assert "There is no page 2: this list has 1 page. Showing page 1." in shown
    assert "No patients match these criteria." in shown


def test_pages_in_range_show_without_a_notice(apps):
    client = signed_in(apps, "ehr_web")
    for raw in ("1", "2", "+2", "02"):
        response = client.get(with_page("/queues/prior-auth?status=all", raw))
        assert response.status_code == 200 and "There is no page" not in text(response), raw
