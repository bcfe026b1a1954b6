"""Compose: drafts, cover fields, number validation, uploads, directory pick, send."""
from __future__ import annotations

import io

import pytest

from admindesk.envs.fax import create_app

from .conftest import FormClient, build_app
from .test_fax_support import appeals_contact, audit_rows, new_draft, pdf_bytes, post_draft, sha, text, upload


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def draft_row(client, draft_id: int) -> dict:
    return next(d for d in client.snapshot()["compose_drafts"] if d["id"] == draft_id)


def test_new_fax_creates_a_server_side_draft_listed_in_drafts(client):
    draft_id = new_draft(client)
    row = draft_row(client, draft_id)
    assert (row["owner"], row["status"], row["cover_from"]) == ("coordinator", "Open", "Jordan Ellis")
    page = text(client.get(f"/drafts/{draft_id}"))
    assert "Compose fax" in page and 'name="to_number"' in page
    assert f"Draft {draft_id}" in text(client.get("/drafts"))
    snapshot = client.snapshot()
    assert audit_rows(snapshot, action="create_draft", record_id=str(draft_id))
    assert audit_rows(snapshot, endpoint="compose.edit", record_type="draft", tab="compose")
    assert audit_rows(snapshot, endpoint="compose.index", record_type="drafts")


def test_save_stores_digits_and_cover_fields(client):
    draft_id = new_draft(client)
    response = post_draft(client, draft_id, "save", to_number="(717) 555.0123", urgent="y",
                          recipient_name="  Keystone Appeals  ")
    assert response.status_code == 302
    row = draft_row(client, draft_id)
    assert (row["to_number"], row["recipient_name"], row["urgent"]) == ("7175550123", "Keystone Appeals", True)
    assert row["cover_re"] == "Appeal for claim CLM-1" and row["contact_id"] is None
    assert 'value="+1 717-555-0123"' in text(client.get(f"/drafts/{draft_id}"))
    assert audit_rows(client.snapshot(), action="draft_save", record_id=str(draft_id))


@pytest.mark.parametrize("number, message", [
    ("717-555-012", "Enter exactly 10 digits"),
    ("2 (717) 555-0123", "Enter exactly 10 digits"),
    ("717-555-CALL", "Use only digits, spaces, dashes, dots, parentheses and a leading +"),
    ("7175550123#", "Use only digits"),
])
def test_bad_fax_numbers_are_refused_and_change_nothing(client, number, message):
    draft_id = new_draft(client)
    before = client.snapshot()["compose_drafts"]
    response = post_draft(client, draft_id, "save", to_number=number, recipient_name="Changed")
    assert response.status_code == 422
    assert message in text(response) and 'aria-invalid="true"' in text(response)
    assert client.snapshot()["compose_drafts"] == before


@pytest.mark.parametrize("field, size, message", [
    ("recipient_name", 161, "Recipient name must be 160 characters or fewer."),
    ("cover_re", 201, "Re must be 200 characters or fewer."),
    ("comments", 2001, "Comments must be 2000 characters or fewer."),
])
def test_over_long_text_is_refused(client, field, size, message):
    draft_id = new_draft(client)
    before = client.snapshot()["compose_drafts"]
    response = post_draft(client, draft_id, "save", **{field: "x" * size})
    assert response.status_code == 422 and message in text(response)
    assert client.snapshot()["compose_drafts"] == before


def test_unknown_sending_line_is_refused(client):
    draft_id = new_draft(client)
    response = post_draft(client, draft_id, "save", from_number="9999999999")
    assert response.status_code == 422 and "Not a valid choice" in text(response)


def test_upload_counts_pages_and_keeps_the_bytes(client):
    draft_id = new_draft(client)
    content = pdf_bytes(paragraphs=12)
    response = post_draft(client, draft_id, "upload", attachment=upload(content, "LMN.pdf"))
    assert response.status_code == 302
    snapshot = client.snapshot()
    attachment = snapshot["draft_attachments"][-1]
    assert attachment["pages"] >= 2
    assert (attachment["file_name"], attachment["sha256"], attachment["content"]) == \
        ("LMN.pdf", sha(content), "sha256:" + sha(content))
    page = text(client.get(f"/drafts/{draft_id}"))
    assert f"{attachment['pages'] + 1} (1 attachment + cover sheet)" in page
    assert audit_rows(snapshot, action="draft_upload")[-1]["detail"]["sha256"] == sha(content)
    opened = client.get(f"/drafts/{draft_id}/attachments/{attachment['id']}")
    assert opened.data == content and opened.mimetype == "application/pdf"
    assert audit_rows(client.snapshot(), endpoint="compose.attachment", action="open_attachment",
                      record_id=str(draft_id))
    assert client.get(f"/drafts/{draft_id}/attachments/999999").status_code == 404


def test_upload_sanitizes_path_traversal_names(client):
    draft_id = new_draft(client)
    post_draft(client, draft_id, "upload", attachment=upload(pdf_bytes(), "../../etc/passwd.pdf"))
    assert client.snapshot()["draft_attachments"][-1]["file_name"] == "etc_passwd.pdf"


@pytest.mark.parametrize("content, name, message", [
    (b"just some text, not a pdf", "notes.pdf", "is not a PDF document"),
    (b"", "empty.pdf", "is empty"),
    (b"%PDF-1.4 broken", "broken.pdf", "could not be read as a PDF"),
    (b"\x89PNG\r\n\x1a\n" + b"0" * 100, "scan.png", "is not a PDF document"),
])
def test_bad_uploads_are_refused_and_change_nothing(client, content, name, message):
    draft_id = new_draft(client)
    before = client.snapshot()
    response = post_draft(client, draft_id, "upload", attachment=(io.BytesIO(content), name),
                          recipient_name="Changed")
    assert response.status_code == 422 and message in text(response)
    after = client.snapshot()
    assert after["draft_attachments"] == before["draft_attachments"] == []
    assert after["compose_drafts"] == before["compose_drafts"]


def test_upload_without_a_file_asks_for_one(client):
    draft_id = new_draft(client)
    response = post_draft(client, draft_id, "upload")
    assert response.status_code == 422 and "Choose a file to upload." in text(response)


def test_over_size_upload_is_refused(client):
    draft_id = new_draft(client)
    big = b"%PDF-1.4\n" + b"0" * (10 * 1024 * 1024)
    response = post_draft(client, draft_id, "upload", attachment=upload(big, "huge.pdf"))
    assert response.status_code == 422 and "larger than the 10 MB limit" in text(response)
    too_big = b"%PDF-1.4\n" + b"0" * (11 * 1024 * 1024)
    response = post_draft(client, draft_id, "upload", attachment=upload(too_big, "huge.pdf"))
    assert response.status_code == 413 and "Uploads are limited to 10 MB" in text(response)
    assert client.snapshot()["draft_attachments"] == []


def test_remove_attachment(client):
    draft_id = new_draft(client)
    post_draft(client, draft_id, "upload", attachment=upload(pdf_bytes(), "a.pdf"))
    attachment_id = client.snapshot()["draft_attachments"][-1]["id"]
    assert post_draft(client, draft_id, "remove:999").status_code == 404
    assert post_draft(client, draft_id, f"remove:{attachment_id}").status_code == 302
    assert client.snapshot()["draft_attachments"] == []


def test_directory_search_in_the_dialog_then_pick(client):
    draft_id = new_draft(client)
    contact = appeals_contact(client.snapshot())
    response = post_draft(client, draft_id, "search", directory_q=contact["organization"], to_number="")
    page = text(response)
    assert response.status_code == 200 and "data-autoopen" in page
    assert contact["name"] in page and f'value="pick:{contact["id"]}"' in page
    assert audit_rows(client.snapshot(), action="draft_search")[-1]["detail"]["q"] == contact["organization"]
    response = post_draft(client, draft_id, f"pick:{contact['id']}", to_number="")
    assert response.status_code == 302
    row = draft_row(client, draft_id)
    assert (row["to_number"], row["recipient_name"], row["contact_id"]) == \
        (contact["fax_number"], contact["name"], contact["id"])


def test_directory_search_by_number_and_no_match(client):
    draft_id = new_draft(client)
    contact = appeals_contact(client.snapshot())
    number = contact["fax_number"]
    page = text(post_draft(client, draft_id, "search", directory_q=f"{number[:3]}-{number[3:6]}-{number[6:]}"))
    assert contact["name"] in page
    assert "No contacts match." in text(post_draft(client, draft_id, "search", directory_q="qqqq-nobody"))
    assert post_draft(client, draft_id, "pick:999999").status_code == 404


def test_send_with_missing_fields_is_refused_and_changes_nothing(client):
    draft_id = new_draft(client)
    before = client.snapshot()
    response = post_draft(client, draft_id, "send", to_number="", recipient_name="", comments="",
                          attachment=upload(pdf_bytes(), "x.pdf"))
    page = text(response)
    assert response.status_code == 422
    for message in ("Enter the fax number to send to.", "Enter the recipient&#39;s name."):
        assert message in page
    after = client.snapshot()
    assert after["outbound_faxes"] == before["outbound_faxes"]
    assert after["draft_attachments"] == before["draft_attachments"]
    assert after["compose_drafts"] == before["compose_drafts"]


def test_send_needs_an_attachment_or_comments(client):
    draft_id = new_draft(client)
    response = post_draft(client, draft_id, "send", comments="")
    assert response.status_code == 422
    assert "Attach at least one PDF or write comments on the cover sheet." in text(response)


def test_send_queues_a_job_with_attachments_and_cover_sheet(client):
    draft_id = new_draft(client)
    content = pdf_bytes(paragraphs=12)
    post_draft(client, draft_id, "upload", attachment=upload(content, "LMN.pdf"))
    second = pdf_bytes("Denial letter")
    response = post_draft(client, draft_id, "send", attachment=upload(second, "denial.pdf"))
    assert response.status_code == 302
    snapshot = client.snapshot()
    job = snapshot["outbound_faxes"][-1]
    attachments = [a for a in snapshot["fax_attachments"] if a["outbound_fax_id"] == job["id"]]
    assert [(a["position"], a["file_name"], a["sha256"]) for a in attachments] == \
        [(1, "LMN.pdf", sha(content)), (2, "denial.pdf", sha(second))]
    assert job["total_pages"] == 1 + sum(a["pages"] for a in attachments)
    # The carrier dials at once: the job is delivered without anyone opening the outbox.
    assert (job["status"], job["sent_by"], job["queued_at"]) == ("Sent", "coordinator", "2026-11-16T09:00:00")
    assert job["to_number"] == appeals_contact(snapshot)["fax_number"]
    assert job["cover_sheet"] == "sha256:" + job["cover_sha256"]
    assert [e["event"] for e in snapshot["transmission_events"] if e["outbound_fax_id"] == job["id"]] == \
        ["Queued", "Dialing", "Sent"]
    draft = draft_row(client, draft_id)
    assert (draft["status"], draft["outbound_fax_id"]) == ("Submitted", job["id"])
    page = text(client.get(f"/drafts/{draft_id}"))
    assert f"Fax job {job['id']} to " in page and f"Open job {job['id']} (delivery report)" in page
    assert "Draft" not in page.split("<h1>")[1].split("</h1>")[0]
    assert audit_rows(snapshot, action="draft_send", record_id=str(draft_id))


def test_a_sent_draft_can_no_longer_change(client):
    draft_id = new_draft(client)
    post_draft(client, draft_id, "send", attachment=upload(pdf_bytes()))
    before = client.snapshot()
    response = post_draft(client, draft_id, "save", recipient_name="Changed")
    assert response.status_code == 302
    assert client.snapshot()["compose_drafts"] == before["compose_drafts"]
    assert "already sent or discarded" in text(client.get(f"/drafts/{draft_id}"))


def test_discard_draft(client):
    draft_id = new_draft(client)
    response = client.post(f"/drafts/{draft_id}", {"action": "discard"})
    assert response.status_code == 302
    assert draft_row(client, draft_id)["status"] == "Discarded"
    assert f"Draft {draft_id}<" not in text(client.get("/drafts"))


def test_unknown_action_is_a_bad_request(client):
    draft_id = new_draft(client)
    assert post_draft(client, draft_id, "explode").status_code == 400


def test_other_users_drafts_are_private(app, client):
    draft_id = new_draft(client)
    other = FormClient(app)
    other.login("mreyes")
    assert other.get(f"/drafts/{draft_id}").status_code == 404
    assert other.post(f"/drafts/{draft_id}", {"action": "discard"}).status_code == 404
    assert draft_row(client, draft_id)["status"] == "Open"
    assert client.get("/drafts/999999").status_code == 404


def test_new_fax_addressed_to_a_directory_contact(client):
    contact = appeals_contact(client.snapshot())
    response = client.post("/drafts/new", {"contact_id": str(contact["id"])})
    draft_id = int(response.headers["Location"].rsplit("/", 1)[1])
    row = draft_row(client, draft_id)
    assert (row["to_number"], row["contact_id"]) == (contact["fax_number"], contact["id"])
    assert client.post("/drafts/new", {"contact_id": "abc"}).status_code == 404
    assert client.post("/drafts/new", {"contact_id": "999999"}).status_code == 404
