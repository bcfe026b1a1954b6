"""The app kit on a minimal app: bench API, reset, snapshot, login, CSRF, audit, seeding, sequences."""
from __future__ import annotations

import re

import pytest

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.common.state import sequences

from . import kit_demo
from .conftest import TOKEN, FormClient, build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(kit_demo.create_app, app_data_dir)


@pytest.fixture
def client(app):
    client = FormClient(app)
    client.reset()
    return client


def audit_rows(client, **match):
    rows = client.snapshot()["audit_events"]
    return [r for r in rows if all(r[k] == v for k, v in match.items())]


@pytest.mark.parametrize("headers", [{}, {"X-Bench-Token": "wrong"}])
@pytest.mark.parametrize("method,path", [("get", "/_bench/health"), ("get", "/_bench/snapshot"),
                                         ("post", "/_bench/reset")])
def test_bench_api_is_hidden_without_the_token(client, headers, method, path):
    response = getattr(client.client, method)(path, headers=headers)
    assert response.status_code == 404


def test_health_names_the_app(client):
    body = client.client.get("/_bench/health", headers={"X-Bench-Token": TOKEN}).get_json()
    assert body["ok"] is True and body["app"] == "kit_demo"


def test_reset_then_snapshot_gives_the_same_bytes_twice(client):
    client.login()
    client.post("/widgets", {"name": "temporary"})
    dumps = []
    for _ in range(2):
        client.reset("2026-03-04T10:30:00")
        dumps.append(client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).data)
    assert dumps[0] == dumps[1]
    snapshot = client.snapshot()
    assert snapshot["_meta"] == {"app": "kit_demo", "now": "2026-03-04T10:30:00", "schema_version": 1}
    assert [w["name"] for w in snapshot["widgets"]] == ["seeded-0", "seeded-1", "seeded-2"]
    assert list(snapshot) == sorted(snapshot)
    assert "password_hash" not in snapshot["staff_users"][0]


@pytest.mark.parametrize("body,message", [({"now": "yesterday"}, "not an ISO 8601"),
                                          ({"now": 5}, "must be an ISO 8601"),
                                          ([1, 2], "JSON object")])
def test_reset_rejects_a_bad_clock(client, body, message):
    response = client.client.post("/_bench/reset", json=body, headers={"X-Bench-Token": TOKEN})
    assert response.status_code == 400 and message in response.get_json()["error"]


def test_pages_need_a_login_and_the_redirect_comes_back(client):
    response = client.get("/?page=2")
    assert response.status_code == 302 and "/login?next=" in response.headers["Location"]
    response = client.post("/login?next=/%3Fpage%3D2", {"username": "coordinator", "password": "admindesk"})
    assert response.headers["Location"] == "/?page=2"


def test_login_refuses_an_offsite_next(client):
    response = client.post("/login?next=//evil.example/x", {"username": "coordinator", "password": "admindesk"})
    assert response.headers["Location"] == "/"


def test_a_wrong_password_is_refused_and_audited(client):
    response = client.post("/login", {"username": "coordinator", "password": "nope"})
    assert response.status_code == 401
    assert "incorrect" in response.get_data(as_text=True)
    assert audit_rows(client, action="login_failed", username="coordinator")


def test_a_reset_signs_everyone_out(client):
    client.login()
    assert client.get("/").status_code == 200
    client.reset()
    assert client.get("/").status_code == 302


def test_form_without_csrf_token_is_refused_and_changes_nothing(client):
    client.login()
    response = client.client.post("/widgets", data={"name": "sneaky"})
    assert response.status_code == 400
    assert "no longer valid" in response.get_data(as_text=True)
    assert "sneaky" not in [w["name"] for w in client.snapshot()["widgets"]]


def test_an_action_is_stored_with_the_frozen_clock_and_audited(client):
    client.reset("2026-05-06T07:08:00")
    client.login()
    assert client.post("/widgets", {"name": "new one"}).status_code == 302
    client.get("/")
    snapshot = client.snapshot()
    assert snapshot["widgets"][-1] == {"id": 4, "name": "new one", "created": "2026-05-06T07:08:00"}
    (event,) = audit_rows(client, action="create_widget")
    assert (event["record_type"], event["record_id"], event["at"]) == ("widget", "4", "2026-05-06T07:08:00")
    assert audit_rows(client, action="view", record_type="widget_list", username="coordinator")


def test_bad_input_changes_nothing_and_user_text_is_escaped(client):
    client.login()
    before = client.snapshot()["widgets"]
    response = client.post("/widgets", {"name": "x" * 41})
    assert response.status_code == 422 and "at most 40" in response.get_data(as_text=True)
    assert client.snapshot()["widgets"] == before
    client.post("/widgets", {"name": "<script>alert(1)</script>"})
    page = client.get("/").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_unknown_page_is_a_styled_404(client):
    client.login()
    response = client.get("/no/such/page")
    assert response.status_code == 404 and "does not exist" in response.get_data(as_text=True)


def test_template_is_built_once_and_task_seeds_are_added_only_for_their_task(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "t1.yaml").write_text("id: demo-1\nseed:\n  kit_demo:\n    widgets:\n"
                                   "      - {name: from-task, created: '2026-02-02'}\n")
    config = AppConfig(data_dir=tmp_path / "data", token=TOKEN, tasks_dir=tasks)
    first = kit_demo.create_app(config).extensions["admindesk"].template
    built_at = first.stat().st_mtime_ns
    second = kit_demo.create_app(config).extensions["admindesk"].template
    assert first == second and second.stat().st_mtime_ns == built_at
    client = FormClient(kit_demo.create_app(config))
    assert "from-task" not in [w["name"] for w in client.snapshot()["widgets"]]  # the bare world
    response = client.client.post("/_bench/reset", json={"task": "demo-1"}, headers={"X-Bench-Token": TOKEN})
    assert response.status_code == 200 and response.get_json()["task"] == "demo-1"
    assert client.snapshot()["widgets"][-1]["name"] == "from-task"


@pytest.mark.parametrize("seed_yaml,message", [
    ("  kit_demo:\n    widgets:\n      - {colour: red}\n", "demo-bad.*no column"),
    ("  kit_demo:\n    gadgets:\n      - {name: x}\n", "demo-bad.*unknown table 'gadgets'"),
    ("  kit_demo:\n    audit_events:\n      - {at: '2026-13-45', method: GET, path: /, action: view, status_code: 200}\n",
     "demo-bad.*'at'.*not an ISO date"),
    ("  kit_demo:\n    audit_events:\n      - {at: 2026-13-45}\n", "demo-bad.*'at'.*not an ISO date"),
    ("  kit_demo:\n    widgets: {name: x}\n", "demo-bad.*rows must be a list"),
    ("  kit_demo:\n    widgets:\n      - just a string\n", "demo-bad.*must map column names"),
    ("  kit_demo:\n    widgets:\n      - {id: 1, name: clash, created: '2026-01-01'}\n", "demo-bad.*UNIQUE constraint"),
    ("  - not a mapping\n", "`seed` maps app names to tables"),
    ("  kit_demo:\n    widgets: [unclosed\n", "cannot read the task file"),
])
def test_a_bad_task_seed_is_a_clear_error_at_its_reset_and_builds_nothing(tmp_path, seed_yaml, message):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "bad.yaml").write_text("id: demo-bad\nseed:\n" + seed_yaml)
    client = FormClient(kit_demo.create_app(AppConfig(data_dir=tmp_path / "data", token=TOKEN, tasks_dir=tasks)))
    templates = tmp_path / "data" / "templates"
    before = sorted(templates.iterdir())
    response = client.client.post("/_bench/reset", json={"task": "demo-bad"}, headers={"X-Bench-Token": TOKEN})
    assert response.status_code == 400 and re.search(message, response.get_json()["error"])
    assert sorted(templates.iterdir()) == before  # no half-built template left


def test_an_anonymous_request_keeps_the_login_forms_csrf_token(client):
    token = client.csrf_token()
    assert client.get("/?page=2").status_code == 302
    response = client.client.post("/login", data={"username": "coordinator", "password": "admindesk",
                                                   "csrf_token": token})
    assert response.status_code == 302


def test_number_sequences_start_where_asked_count_up_and_reset(app, client):
    session = app.extensions["admindesk"].db.new_session()
    try:
        assert [sequences.next_value(session, "ticket", start=900001) for _ in range(3)] == [900001, 900002, 900003]
        assert sequences.next_value(session, "other") == 1
        assert sequences.next_value(session, "ticket", start=5) == 900004  # start only applies to a new counter
        sequences.seed_sequences(session, {"ticket": 1, "seeded": 40})
        assert sequences.next_value(session, "seeded") == 40
        session.commit()
    finally:
        session.close()
    assert client.snapshot()["number_sequences"] == [{"name": "other", "next_value": 2},
                                                     {"name": "seeded", "next_value": 41},
                                                     {"name": "ticket", "next_value": 900005}]
    client.reset()
    assert client.snapshot()["number_sequences"] == []


def test_pages_are_never_cached_but_static_assets_are(client):
    client.login()
    assert client.get("/").headers["Cache-Control"] == "no-store"
    assert client.get("/login").headers["Cache-Control"] == "no-store"
    static = client.get("/_common/kit.css")
    assert static.status_code == 200 and "max-age=3600" in static.headers["Cache-Control"]


def test_apps_sharing_a_data_folder_never_share_a_live_database(app_data_dir):
    first = FormClient(build_app(kit_demo.create_app, app_data_dir))
    first.reset()
    first.login()
    first.post("/widgets", {"name": "only-in-first"})
    second = FormClient(build_app(kit_demo.create_app, app_data_dir))
    for _ in range(3):  # walk the second app through the first one's generations
        second.reset()
        assert "only-in-first" not in [w["name"] for w in second.snapshot()["widgets"]]
        assert "only-in-first" in [w["name"] for w in first.snapshot()["widgets"]]


def test_favicon_requests_need_no_login_and_leave_no_audit_row(client):
    client.login()
    assert client.get("/favicon.ico").status_code == 204
    assert FormClient(client.app).get("/favicon.ico").status_code == 204  # signed out
    assert not audit_rows(client, endpoint="favicon")
