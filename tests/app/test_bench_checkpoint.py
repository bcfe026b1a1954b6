"""Bench checkpoint and restore: an episode's state saved at some point, and later episodes
started from exactly that state, with the logins of that moment signed in."""
from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import select

from admindesk.envs.common.factory import MAX_CHECKPOINTS
from admindesk.harness.env.services import ServiceError, Services, available_apps

from . import kit_demo
from .conftest import TOKEN, FormClient, build_app

BENCH = {"X-Bench-Token": TOKEN}
SESSION_COOKIE = "kit_demo_session"


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(kit_demo.create_app, app_data_dir)


def checkpoint(client: FormClient) -> dict:
    response = client.client.post("/_bench/checkpoint", headers=BENCH)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def restore(client: FormClient, checkpoint_id: str) -> dict:
    response = client.client.post("/_bench/restore", json={"checkpoint": checkpoint_id}, headers=BENCH)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def snapshot_bytes(client: FormClient) -> bytes:
    return client.client.get("/_bench/snapshot", headers=BENCH).data


def widget_names(client: FormClient) -> list[str]:
    return [widget["name"] for widget in client.snapshot()["widgets"]]


def test_a_restore_brings_back_the_state_of_the_checkpoint_byte_for_byte(app, client):
    client.post("/widgets", {"name": "before-checkpoint"})
    saved = checkpoint(client)
    at_checkpoint = snapshot_bytes(client)
    client.post("/widgets", {"name": "after-checkpoint"})
    with app.extensions["admindesk"].db.new_session() as session:  # and a write outside any request
        session.add(kit_demo.Widget(name="direct", created="2026-01-01T00:00:00"))
        session.commit()
    assert snapshot_bytes(client) != at_checkpoint
    for _ in range(2):  # a checkpoint can be restored again
        assert restore(client, saved["checkpoint"])["generation"] == saved["generation"]
        assert snapshot_bytes(client) == at_checkpoint
        # The same form in each episode: no double submit of the one before from this checkpoint.
        client.post("/widgets", {"name": "after-restore"})
    assert widget_names(client).count("after-restore") == 1


def test_a_request_in_flight_at_a_restore_keeps_its_own_database(app, client):
    kit = app.extensions["admindesk"]
    saved = checkpoint(client)
    client.post("/widgets", {"name": "in-flight"})
    lease = kit.db.acquire()  # what a request that began before the restore holds
    try:
        restore(client, saved["checkpoint"])  # same generation: its file must not take the leased name
        with lease.factory() as session:
            assert "in-flight" in session.scalars(select(kit_demo.Widget.name)).all()
    finally:
        kit.db.release(lease)
    assert "in-flight" not in widget_names(client)


def browser_with(app, session_cookie: str):
    """A browser holding a copy of a session cookie (a page it opens while that login is void
    clears the login from its cookie, as a real browser's would be)."""
    browser = app.test_client()
    browser.set_cookie(SESSION_COOKIE, session_cookie)
    return browser


def test_a_restore_signs_in_the_logins_of_its_checkpoint_and_only_those(app, client):
    signed_in = client.client.get_cookie(SESSION_COOKIE).value
    saved = checkpoint(client)
    issued = [saved["generation"]]
    client.reset()
    assert browser_with(app, signed_in).get("/").status_code == 302  # void after a reset
    later = FormClient(app)
    later.login()
    issued.append(app.extensions["admindesk"].generation)
    assert later.get("/").status_code == 200

    restore(client, saved["checkpoint"])
    assert browser_with(app, signed_in).get("/").status_code == 200
    assert later.get("/").status_code == 302  # the generation the restore replaced is void

    generation = client.reset().get_json()["generation"]
    assert generation > max(issued)
    assert browser_with(app, signed_in).get("/").status_code == 302


def test_a_checkpoint_keeps_the_initial_snapshot_of_the_last_reset(app, client):
    initial = client.client.get("/_bench/snapshot?state=initial", headers=BENCH).data
    client.post("/widgets", {"name": "later"})
    restore(client, checkpoint(client)["checkpoint"])
    assert client.client.get("/_bench/snapshot?state=initial", headers=BENCH).data == initial


@pytest.mark.parametrize("body,message", [({"checkpoint": "0123456789abcdef"}, "no checkpoint '0123456789abcdef'"),
                                          ({}, "naming the checkpoint"),
                                          ({"checkpoint": 7}, "naming the checkpoint"),
                                          (["0123456789abcdef"], "JSON object")])
def test_a_restore_of_an_unknown_checkpoint_or_a_bad_body_is_refused(client, body, message):
    before = snapshot_bytes(client)
    response = client.client.post("/_bench/restore", json=body, headers=BENCH)
    assert response.status_code == 400
    assert response.get_json()["ok"] is False and message in response.get_json()["error"]
    assert snapshot_bytes(client) == before and client.get("/").status_code == 200


@pytest.mark.parametrize("headers", [{}, {"X-Bench-Token": "wrong"}])
@pytest.mark.parametrize("path", ["/_bench/checkpoint", "/_bench/restore", "//_bench/restore"])
def test_checkpoint_and_restore_are_hidden_without_the_token(client, headers, path):
    assert client.client.post(path, json={"checkpoint": "x"}, headers=headers).status_code == 404


def test_a_kit_keeps_a_bounded_number_of_checkpoints(tmp_path):
    client = FormClient(build_app(kit_demo.create_app, tmp_path))
    ids = [checkpoint(client)["checkpoint"] for _ in range(MAX_CHECKPOINTS + 2)]
    assert len(list((tmp_path / "checkpoints").iterdir())) == MAX_CHECKPOINTS
    response = client.client.post("/_bench/restore", json={"checkpoint": ids[0]}, headers=BENCH)
    assert response.status_code == 400 and ids[0] in response.get_json()["error"]
    restore(client, ids[2])  # the oldest one kept


@pytest.mark.slow
@pytest.mark.skipif("fax" not in available_apps(), reason="needs the fax app")
def test_services_checkpoint_and_restore_the_apps_of_their_lane():
    with Services(apps=["fax"], lanes=2) as services:
        lane = services.lane(1)
        lane.reset_all(now=datetime(2026, 3, 4, 9, 0))
        saved = lane.checkpoint()
        assert set(saved) == {"fax"}
        at_checkpoint = lane.snapshot_all()
        lane.reset_all(now=datetime(2026, 3, 5, 9, 0))
        assert lane.snapshot_all() != at_checkpoint
        lane.restore(saved)
        assert lane.snapshot_all() == at_checkpoint
        with pytest.raises(ServiceError, match="fax.*no checkpoint"):
            services.restore(saved)  # lane 0's app holds no checkpoint of lane 1
