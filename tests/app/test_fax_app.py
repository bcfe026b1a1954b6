"""Fax server as a whole: seed, login guard, CSRF, escaping, bench API, snapshot determinism."""
from __future__ import annotations

import pytest

from admindesk.envs.fax import SPEC, create_app
from admindesk.envs.world import build_world

from .conftest import TOKEN, FormClient, build_app
from .test_fax_support import audit_rows, new_draft, pdf_bytes, post_draft, send_fax, text, upload


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def test_seed_copies_the_inbox_and_lines_without_chart_data(client):
    world = build_world()
    snapshot = client.snapshot()
    assert [f["id"] for f in snapshot["inbound_faxes"]] == [f.id for f in world.faxes]
    first = world.faxes[0]
    row = snapshot["inbound_faxes"][0]
    assert (row["from_number"], row["csid"], row["to_number"], row["pages"]) == \
        (first.from_number, first.csid, first.to_number, len(first.pages_text))
    pages = [p["text"] for p in snapshot["inbound_fax_pages"] if p["fax_id"] == first.id]
    assert pages == list(first.pages_text)
    assert {line["number"] for line in snapshot["fax_lines"]} == {f.fax for f in world.facilities}
    assert sum(line["is_default"] for line in snapshot["fax_lines"]) == 1
    # A fax server holds numbers and pages, not charts: sender, subject and patient are read from the pages.
    assert not {"mrn", "from_name", "subject", "folder"} & set(row)
    assert row["index_patient_name"] is None and not row["is_filed"]
    assert {"Read", "Unread"} == {f["status"] for f in snapshot["inbound_faxes"]}


@pytest.mark.parametrize("url", ["/", "/inbox", "/inbox/FAX-000001", "/inbox/FAX-000001/pages/1.png",
                                 "/inbox/FAX-000001/download", "/drafts", "/drafts/1", "/outbox", "/outbox/1",
                                 "/directory", "/directory/new", "/directory/1"])
def test_every_page_requires_login(app, url):
    anonymous = FormClient(app)
    response = anonymous.get(url)
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_posts_require_login(app):
    anonymous = FormClient(app)
    response = anonymous.post("/drafts/new")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_login_page_has_the_fax_server_look_and_signs_in(app):
    anonymous = FormClient(app)
    page = text(anonymous.get("/login"))
    assert "Log on to Tessera" in page and "fax.css" in page and "DejaVu" not in page
    assert text(anonymous.post("/login", {"username": "coordinator", "password": "wrong"})).count(SPEC.messages["login_incorrect"]) == 1
    response = anonymous.login()
    assert response.status_code == 302 and response.headers["Location"].endswith("/inbox")


def test_csrf_is_enforced_on_forms(client):
    before = client.snapshot()
    response = client.client.post("/drafts/new", data={})
    assert response.status_code == 400 and SPEC.messages["form_expired_title"] in text(response)
    fax_id = before["inbound_faxes"][0]["id"]
    response = client.client.post(f"/inbox/{fax_id}/file", data={"file-note": "x", "csrf_token": "forged"})
    assert response.status_code == 400
    after = client.snapshot()
    assert after["compose_drafts"] == [] and after["inbound_faxes"] == before["inbound_faxes"]


def test_user_text_is_escaped(client):
    draft_id = new_draft(client)
    post_draft(client, draft_id, "save", recipient_name="<script>alert(1)</script>")
    page = text(client.get("/drafts"))
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_layout_has_landmarks_and_folder_tree(client):
    page = text(client.get("/inbox"))
    for marker in ('<nav class="folders" aria-label="Folders">', '<main id="main"', 'role="toolbar"',
                   " Outbox</span>", ">Sent items<", ">Failed", " Drafts</span>", " Phonebook</span>", "New fax"):
        assert marker in page


def test_folder_counts(client):
    snapshot = client.snapshot()
    unread = sum(f["status"] == "Unread" for f in snapshot["inbound_faxes"])
    assert f'aria-label="{unread} unread"' in text(client.get("/drafts"))
    new_draft(client)
    assert ' Drafts</span> <span class="count">1</span>' in text(client.get("/drafts"))


def test_bench_api_needs_the_token(app):
    anonymous = FormClient(app)
    assert anonymous.client.get("/_bench/health").status_code == 404
    health = anonymous.client.get("/_bench/health", headers={"X-Bench-Token": TOKEN}).get_json()
    assert health["ok"] and health["app"] == "fax"


def test_reset_sets_the_frozen_clock(client):
    client.reset("2027-02-03T10:15:00")
    client.login()
    job_id = send_fax(client)
    snapshot = client.snapshot()
    assert snapshot["_meta"]["now"] == "2027-02-03T10:15:00"
    assert next(j for j in snapshot["outbound_faxes"] if j["id"] == job_id)["queued_at"] == "2027-02-03T10:15:00"


def test_snapshot_bytes_are_identical_after_reset(client):
    def raw() -> bytes:
        return client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).data

    client.reset()
    first = raw()
    client.reset()
    assert raw() == first


def test_same_actions_give_the_same_snapshot(client):
    def episode() -> bytes:
        client.reset()
        client.login()
        fax_id = client.snapshot()["inbound_faxes"][-1]["id"]
        client.get(f"/inbox/{fax_id}")
        client.post(f"/inbox/{fax_id}/file", {"file-note": "Filed to chart"})
        draft_id = new_draft(client)
        post_draft(client, draft_id, "send", attachment=upload(pdf_bytes(), "lmn.pdf"))
        send_fax(client, to_number="717-555-0100")
        client.get("/outbox")
        client.post("/directory/new", {"name": "X", "organization": "Y", "contact_type": "Other",
                                       "fax_number": "7172340000"})
        return client.client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).data

    assert episode() == episode()


def test_logout_is_audited(client):
    client.post("/logout")
    assert audit_rows(client.snapshot(), action="logout", username="coordinator")
