"""Outbox: simulated transmission (sent / failed with reasons), folders, job page, resend."""
from __future__ import annotations

import pytest

from admindesk.envs.fax import create_app

from .conftest import FormClient, build_app
from .test_fax_support import audit_rows, pdf_bytes, send_fax, sha, text


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture
def client(app):
    client = FormClient(app)
    client.reset("2026-12-01T14:30:00")
    client.login()
    return client


def job(client, job_id: int) -> dict:
    return next(j for j in client.snapshot()["outbound_faxes"] if j["id"] == job_id)


def disconnected(snapshot: dict) -> dict:
    return next(c for c in snapshot["directory_contacts"] if c["line_status"] == "Disconnected")


def test_a_sent_fax_transmits_without_anyone_opening_the_outbox(client):
    job_id = send_fax(client)
    assert job(client, job_id)["status"] == "Sent"
    page = text(client.get("/outbox"))
    assert f"Job {job_id}" in page and "badge-sent" in page
    snapshot = client.snapshot()
    row = job(client, job_id)
    assert (row["status"], row["failure_reason"]) == ("Sent", None)
    events = [(e["event"], e["at"]) for e in snapshot["transmission_events"] if e["outbound_fax_id"] == job_id]
    seconds = 12 + 35 * row["total_pages"]
    assert events == [("Queued", "2026-12-01T14:30:00"), ("Dialing", "2026-12-01T14:30:12"),
                      ("Sent", f"2026-12-01T14:{30 + seconds // 60}:{seconds % 60:02d}")]
    assert row["completed_at"] == events[-1][1]
    assert audit_rows(snapshot, endpoint="outbox.index", record_type="outbox", tab="all")


def test_a_job_shows_its_transmission_log(client):
    job_id = send_fax(client)
    page = text(client.get(f"/outbox/{job_id}"))
    assert "Transmission log" in page and "Dialing" in page and job(client, job_id)["status"] == "Sent"
    assert audit_rows(client.snapshot(), record_type="outbound_fax", record_id=str(job_id), tab="details")


@pytest.mark.parametrize("number, reason", [
    ("717-555-0100", "No fax tone"),
    ("(900) 555-1234", "Call blocked: premium-rate"),
    ("717-976-1234", "Call blocked: premium-rate"),
    ("(055) 555-1234", "Invalid number"),
    ("(717) 155-1234", "Invalid number"),
])
def test_unreachable_numbers_fail_with_a_clear_reason(client, number, reason):
    job_id = send_fax(client, to_number=number)
    page = text(client.get(f"/outbox/{job_id}"))
    row = job(client, job_id)
    assert row["status"] == "Failed" and row["failure_reason"].startswith(reason)
    assert "Transmission failed." in page and reason in page
    assert client.snapshot()["transmission_events"][-1]["event"] == "Failed"


def test_a_disconnected_directory_line_fails(client):
    contact = disconnected(client.snapshot())
    job_id = send_fax(client, to_number=contact["fax_number"])
    client.get("/outbox")
    assert job(client, job_id)["failure_reason"].startswith("Line disconnected")


def test_numbers_outside_the_fictional_block_are_delivered(client):
    job_id = send_fax(client, to_number="717-234-5678")
    client.get("/outbox")
    assert job(client, job_id)["status"] == "Sent"


def test_every_directory_and_sender_number_is_reachable(client):
    snapshot = client.snapshot()
    active = next(c for c in snapshot["directory_contacts"] if c["contact_type"] == "DME Supplier")
    sender = snapshot["inbound_faxes"][0]["from_number"]
    first, second = send_fax(client, to_number=active["fax_number"]), send_fax(client, to_number=sender)
    client.get("/outbox")
    assert job(client, first)["status"] == job(client, second)["status"] == "Sent"


def test_folders_split_sent_and_failed(client):
    sent_id = send_fax(client)
    failed_id = send_fax(client, to_number="717-555-0100")
    client.get("/outbox")
    sent_page = text(client.get("/outbox?folder=sent"))
    failed_page = text(client.get("/outbox?folder=failed"))
    assert f">Job {sent_id}<" in sent_page and f">Job {failed_id}<" not in sent_page
    assert f">Job {failed_id}<" in failed_page and f">Job {sent_id}<" not in failed_page
    everything = text(client.get("/outbox?folder=bogus"))
    assert f">Job {sent_id}<" in everything and f">Job {failed_id}<" in everything
    assert audit_rows(client.snapshot(), endpoint="outbox.index", tab="failed")


def test_outbox_search_and_sort(client):
    first = send_fax(client, recipient_name="Cascade Appeals Desk", cover_re="Appeal ref QX7")
    second = send_fax(client, recipient_name="BreatheRight Intake", cover_re="CPAP order ref QX7")
    page = text(client.get("/outbox", query_string={"q": "breatheright"}))
    assert f">Job {second}<" in page and f">Job {first}<" not in page
    by_job = text(client.get("/outbox", query_string={"q": str(first)}))
    assert f">Job {first}<" in by_job and f">Job {second}<" not in by_job
    by_name_desc = text(client.get("/outbox?sort=to&dir=desc&q=QX7"))
    assert 'aria-sort="descending"' in by_name_desc
    assert by_name_desc.index(f">Job {first}<") < by_name_desc.index(f">Job {second}<")  # Cascade > BreatheRight


def test_cover_sheet_and_attachment_downloads(client):
    content = pdf_bytes("Progress note")
    job_id = send_fax(client, content=content)
    snapshot = client.snapshot()
    row = job(client, job_id)
    cover = client.get(f"/outbox/{job_id}/cover-sheet")
    assert cover.mimetype == "application/pdf" and sha(cover.data) == row["cover_sha256"]
    attachment = next(a for a in snapshot["fax_attachments"] if a["outbound_fax_id"] == job_id)
    opened = client.get(f"/outbox/{job_id}/attachments/{attachment['id']}")
    assert opened.data == content
    assert client.get(f"/outbox/{job_id}/attachments/999999").status_code == 404
    snapshot = client.snapshot()
    assert audit_rows(snapshot, record_id=str(job_id), action="open_cover_sheet", tab="cover_sheet")
    assert audit_rows(snapshot, record_id=str(job_id), action="open_attachment", tab="attachments")


def test_cover_sheet_bytes_are_deterministic_across_resets(client):
    first = job(client, send_fax(client))["cover_sha256"]
    client.reset("2026-12-01T14:30:00")
    client.login()
    assert job(client, send_fax(client))["cover_sha256"] == first


def test_resend_a_failed_fax_to_a_corrected_number(client):
    content = pdf_bytes("Appeal letter")
    failed_id = send_fax(client, to_number="717-555-0100", content=content)
    client.get(f"/outbox/{failed_id}")
    snapshot = client.snapshot()
    good = next(c for c in snapshot["directory_contacts"] if c["contact_type"] == "Payer - Prior Authorization")
    response = client.post(f"/outbox/{failed_id}/resend", {"to_number": good["fax_number"]})
    assert response.status_code == 302
    snapshot = client.snapshot()
    new = snapshot["outbound_faxes"][-1]
    assert (new["resend_of"], new["to_number"], new["status"]) == (failed_id, good["fax_number"], "Sent")
    assert [a["sha256"] for a in snapshot["fax_attachments"] if a["outbound_fax_id"] == new["id"]] == [sha(content)]
    assert new["cover_sha256"] != job(client, failed_id)["cover_sha256"]  # the cover names the new number
    page = text(client.get(f"/outbox/{new['id']}"))
    assert "Resend of" in page and job(client, new["id"])["status"] == "Sent"
    assert f"job {new['id']}" in text(client.get(f"/outbox/{failed_id}"))
    assert audit_rows(client.snapshot(), action="resend", record_id=str(failed_id))


@pytest.mark.parametrize("number, message", [("", "Enter the fax number."),
                                             ("555-0100", "Enter exactly 10 digits")])
def test_resend_rejects_bad_numbers(client, number, message):
    failed_id = send_fax(client, to_number="717-555-0100")
    client.get("/outbox")
    before = client.snapshot()["outbound_faxes"]
    response = client.post(f"/outbox/{failed_id}/resend", {"to_number": number})
    assert response.status_code == 422 and message in text(response) and "data-autoopen" in text(response)
    assert client.snapshot()["outbound_faxes"] == before


def test_only_failed_faxes_can_be_resent(client):
    sent_id = send_fax(client)
    client.get("/outbox")
    before = client.snapshot()["outbound_faxes"]
    response = client.post(f"/outbox/{sent_id}/resend", {"to_number": "717-234-5678"})
    assert response.status_code == 409 and "Only a failed fax can be resent." in text(response)
    assert client.snapshot()["outbound_faxes"] == before


def test_unknown_job_is_not_found(client):
    assert client.get("/outbox/424242").status_code == 404
    assert client.get("/outbox/424242/cover-sheet").status_code == 404
    assert client.post("/outbox/424242/resend", {"to_number": "7172345678"}).status_code == 404
