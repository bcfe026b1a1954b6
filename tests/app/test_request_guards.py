"""The kit's request guards on a minimal app: bench spellings, huge ids, long fields, double posts."""
from __future__ import annotations

import time
from urllib.parse import quote

import pytest

from admindesk.envs.common import request_guards
from admindesk.envs.common.request_guards import MAX_TEXT_FIELD_CHARS, is_bench_spelling

from . import kit_demo
from .conftest import TOKEN, FormClient, build_app

BENCH_SPELLINGS = ["/_bench/reset", "/_bench/snapshot", "/_bench/health", "//_bench/reset",
                   "/./_bench/reset", "/%2F_bench/reset", "/%2F%5Fbench/snapshot", "/_BENCH/health",
                   "/%5Fbench/health", "/x/../_bench/reset", "/_bench/reset/", "/_bench/",
                   "/_bench", "/%252F_bench/health", "/_bench/reset?x=1", "/_bench//reset",
                   "/%255Fbench/health", "/%25%35Fbench/snapshot", "/%25252F%2525255FBENCH/reset"]


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(kit_demo.create_app, app_data_dir)


@pytest.mark.parametrize("method", ["get", "post", "put", "delete", "patch", "head", "options"])
@pytest.mark.parametrize("path", BENCH_SPELLINGS)
def test_every_spelling_and_method_of_a_bench_path_without_the_token_is_not_found(client, method, path):
    response = getattr(client.client, method)(path)
    assert response.status_code == 404


@pytest.mark.parametrize("path", ["//_bench/reset", "/./_bench/reset", "/%2F_bench/reset"])
def test_odd_spellings_are_not_found_even_with_the_token(client, path):
    response = client.client.post(path, headers={"X-Bench-Token": TOKEN}, json={})
    assert response.status_code == 404


@pytest.mark.parametrize("target", ["/_bench/snapshot", "/%5Fbench/snapshot", "/%255Fbench/health",
                                    "/x/../_bench/reset"])
def test_a_sign_in_asked_to_go_into_the_bench_api_goes_home_instead(app, target):
    client = FormClient(app)
    client.reset()
    response = client.client.post(f"/login?next={quote(target, safe='')}",
                                  data={"csrf_token": client.csrf_token(), "username": "coordinator",
                                        "password": "admindesk"})
    assert response.status_code == 302 and not is_bench_spelling(response.location)
    landed = client.client.get(response.location)
    assert landed.status_code == 200 and "snapshot" not in landed.get_data(as_text=True)


@pytest.mark.parametrize("target", ["/_bench/snapshot", "/%255Fbench/health", "//_bench/reset", "http://elsewhere.test/x"])
def test_no_redirect_from_a_form_field_points_into_the_bench_api(app, target):
    """A `next` posted in a form body (which the browser-side block never sees) is kept out too,
    and so is another host."""
    client = FormClient(app)
    client.reset()
    client.login()
    response = client.client.post("/widgets/back", data={"csrf_token": client.csrf_token(), "next": target})
    assert response.status_code == 303 and response.location == "/"


@pytest.mark.parametrize("path,expected", [("/_bench/reset", True), ("/a/%2e/_BENCH", True),
                                           ("/a%5c_bench", True), ("/benchmarks", False),
                                           ("/_benchmark/x", False), ("/patients/_bench_x", False)])
def test_bench_spelling_resolution(path, expected):
    assert is_bench_spelling(path) is expected


@pytest.mark.parametrize("widget_id", ["9223372036854775808", "99999999999999999999999", "1" * 40])
def test_ids_beyond_the_integer_range_are_not_found(client, widget_id):
    assert client.get(f"/widgets/{widget_id}").status_code == 404


def test_ids_in_range_still_resolve(client):
    assert client.get("/widgets/1").get_data(as_text=True) == "seeded-0"
    assert client.get("/widgets/9223372036854775807").status_code == 404


def test_an_overlong_text_field_is_refused_with_its_name(client):
    before = client.snapshot()["widgets"]
    response = client.post("/widgets", {"name": "x" * (MAX_TEXT_FIELD_CHARS + 1)})
    page = response.get_data(as_text=True)
    assert response.status_code == 413
    assert "\u201cname\u201d" in page and "File too large" not in page
    assert client.snapshot()["widgets"] == before


def test_a_field_over_the_parsers_memory_limit_is_not_called_a_file(client):
    response = client.post("/widgets", {"name": "y" * (3 * 1024 * 1024)})
    assert response.status_code == 413
    assert "File too large" not in response.get_data(as_text=True)


def test_an_identical_post_right_after_a_success_is_applied_once(client):
    first = client.post("/widgets", {"name": "note once"})
    second = client.post("/widgets", {"name": "note once"})
    assert first.status_code == 302 and second.status_code == 303
    assert second.location == first.location
    names = [w["name"] for w in client.snapshot()["widgets"]]
    assert names.count("note once") == 1
    assert "already submitted" in client.get(second.location).get_data(as_text=True)


def test_a_different_post_or_a_later_repeat_goes_through(client, monkeypatch):
    client.post("/widgets", {"name": "alpha"})
    client.post("/widgets", {"name": "beta"})
    later = time.monotonic() + 10
    monkeypatch.setattr(request_guards.time, "monotonic", lambda: later)
    client.post("/widgets", {"name": "alpha"})
    names = [w["name"] for w in client.snapshot()["widgets"]]
    assert names.count("alpha") == 2 and names.count("beta") == 1


def test_a_failed_post_can_be_sent_again_at_once(client):
    assert client.post("/widgets", {"name": ""}).status_code == 422
    assert client.post("/widgets", {"name": ""}).status_code == 422


def test_each_app_words_the_kit_messages_its_own_way():
    from admindesk.envs import ehr_web, fax, payer_portal_a, payer_portal_b
    from admindesk.envs.common.messages import DEFAULT_MESSAGES

    specs = [ehr_web.SPEC, payer_portal_a.SPEC, payer_portal_b.SPEC, fax.SPEC]
    for key in ("login_incorrect", "not_found", "form_expired", "double_submit"):
        wordings = {spec.messages.get(key, DEFAULT_MESSAGES[key]) for spec in specs}
        assert len(wordings) == 4, key


def test_an_unknown_message_key_is_refused():
    from dataclasses import replace

    with pytest.raises(ValueError, match="unknown kit message key"):
        replace(kit_demo.SPEC, messages={"login_incorect": "typo"})
