"""Tessera's screens as a real fax server shows them: no benchmark artifacts (hashes, raw
digits), a seeded outbox history, cover-sheet templates, inbox line folders and bulk actions,
phonebook groups, its own pager, font and icons."""
from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from admindesk.envs.fax import create_app

from .conftest import build_app
from .test_fax_support import new_draft, pdf_bytes, post_draft, send_fax, text, upload

HEX_HASH = re.compile(r"\b[0-9a-f]{64}\b")
# Ten digits in a row that are not an NPI (NPIs are 10-digit identifiers, shown as such).
RAW_NUMBER = re.compile(r"(?<![\d-])(?<!NPI )\d{10}(?!\d)")
TAG = re.compile(r"<[^>]*>")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def shown_text(page: str) -> str:
    """What a person reads: the page without its tags, scripts and styles."""
    body = page.split("<body>", 1)[1]
    return TAG.sub(" ", re.sub(r"<script.*?</script>", " ", body, flags=re.S))


def main_screens(client) -> list[str]:
    snapshot = client.snapshot()
    fax_id = snapshot["inbound_faxes"][0]["id"]
    draft_id = new_draft(client)
    post_draft(client, draft_id, "upload", attachment=upload(pdf_bytes(), "letter.pdf"))
    job_id = snapshot["outbound_faxes"][0]["id"]
    contact_id = next(c["id"] for c in snapshot["directory_contacts"] if c["fax_number"] ==
                      snapshot["outbound_faxes"][0]["to_number"])
    return ["/inbox", f"/inbox/{fax_id}?tab=details", f"/inbox/{fax_id}?tab=history", "/outbox",
            "/outbox?folder=failed", f"/outbox/{job_id}", f"/drafts/{draft_id}", "/drafts", "/directory",
            f"/directory/{contact_id}", "/directory/groups", "/cover-sheets"]


def test_no_hash_no_simulation_label_and_no_raw_numbers_on_any_main_screen(client):
    for url in main_screens(client):
        page = text(client.get(url))
        assert not HEX_HASH.search(page) and "SHA-256" not in page, url
        assert "simulated" not in page.lower() and "PROD-SIM" not in page, url
        assert not RAW_NUMBER.search(shown_text(page)), (url, RAW_NUMBER.search(shown_text(page)))
        assert re.search(r"\+1 \d{3}-\d{3}-\d{4}", page), url


def test_the_outbox_has_a_history_of_failures_and_resends_with_logs(client):
    snapshot = client.snapshot()
    jobs = {j["id"]: j for j in snapshot["outbound_faxes"]}
    failed = [j for j in jobs.values() if j["status"] == "Failed"]
    assert len(jobs) >= 20 and len(failed) >= 4
    assert {j["status"] for j in jobs.values()} == {"Sent", "Failed"}
    resends = {j["resend_of"]: j for j in jobs.values() if j["resend_of"]}
    assert all(resends[j["id"]]["status"] == "Sent" for j in failed)
    assert len({j["failure_reason"] for j in failed}) >= 2
    events = snapshot["transmission_events"]
    busy = [j for j in failed if j["attempts"] == 3]
    assert busy and all([e["event"] for e in events if e["outbound_fax_id"] == j["id"]] ==
                        ["Queued", "Dialing", "Line busy", "Dialing", "Line busy", "Dialing", "Failed"] for j in busy)
    assert all(j["queued_at"] < "2026-11-16" for j in jobs.values())
    page = text(client.get(f"/outbox/{busy[0]['id']}"))
    assert "Transmission failed." in page and "Attempt 2 of 3 got a busy signal" in page
    assert f"Resent as <a href=\"/outbox/{resends[busy[0]['id']]['id']}\">" in page


def test_a_cover_template_sets_the_cover_sheet_title_and_notice(client):
    draft_id = new_draft(client)
    page = text(client.get(f"/drafts/{draft_id}"))
    assert '<option value="prior_auth">Prior authorization request</option>' in page
    job_id = send_fax(client, cover_template="prior_auth")
    job = next(j for j in client.snapshot()["outbound_faxes"] if j["id"] == job_id)
    cover = client.get(f"/outbox/{job_id}/cover-sheet").data
    words = PdfReader(io.BytesIO(cover)).pages[0].extract_text()
    assert job["cover_template"] == "prior_auth" and "PRIOR AUTHORIZATION REQUEST" in words
    assert "Prior authorization request enclosed." in words
    assert "Prior authorization request" in text(client.get(f"/outbox/{job_id}"))


def test_an_unknown_cover_template_is_refused_and_saves_nothing(client):
    draft_id = new_draft(client)
    before = client.snapshot()["compose_drafts"]
    response = post_draft(client, draft_id, "save", cover_template="fancy")
    assert response.status_code == 422 and "Not saved:" in text(response)
    assert client.snapshot()["compose_drafts"] == before


def test_empty_lists_say_so_without_counts(client):
    page = text(client.get("/drafts"))
    assert "No drafts to show" in page and "0&ndash;0" not in page and "Screen 1 / 1" not in page
    full = text(client.get("/outbox"))
    assert re.search(r"Jobs 1&ndash;20 of \d+", full) and 'aria-label="Go to page"' not in full
    assert '<label for="pager-outbox-index">Go to page</label>' in full


def test_inbox_folders_are_the_lines_with_their_unread_counts(client):
    snapshot = client.snapshot()
    faxes = snapshot["inbound_faxes"]
    line = max(snapshot["fax_lines"], key=lambda l: sum(f["to_number"] == l["number"] for f in faxes))
    on_line = [f for f in faxes if f["to_number"] == line["number"]]
    unread = sum(f["status"] == "Unread" for f in on_line)
    page = text(client.get("/inbox", query_string={"line": line["number"]}))
    rows = page.split("<tbody>")[1]
    assert rows.count('name="fax_id"') == min(20, len(on_line))
    assert f'aria-current="page">{line["label"]} <span class="count" aria-label="{unread} unread">' in page
    assert not any(f'id="pick-{f["id"]}"' in rows for f in faxes if f not in on_line)


def test_bulk_actions_change_the_ticked_faxes_only(client):
    unread = [f["id"] for f in client.snapshot()["inbound_faxes"] if f["status"] == "Unread"][:2]
    response = client.post("/inbox/bulk", {"bulk_action": "read", "fax_id": unread})
    assert response.status_code == 302
    snapshot = client.snapshot()
    assert all(f["status"] == "Read" for f in snapshot["inbound_faxes"] if f["id"] in unread)
    assert [e["action"] for e in snapshot["inbound_fax_events"] if e["fax_id"] in unread] == ["Marked read"] * 2
    page = text(client.get("/inbox"))
    assert f"Done:</strong> 2 faxes marked read: {unread[0]}, {unread[1]}." in page
    client.post("/inbox/bulk", {"bulk_action": "take", "fax_id": unread[:1], "press": "2"})
    assert next(f for f in client.snapshot()["inbound_faxes"] if f["id"] == unread[0])["assigned_to"] == "coordinator"


@pytest.mark.parametrize("form, status", [({"bulk_action": "read"}, 302),
                                          ({"bulk_action": "shred", "fax_id": ["FAX-000001"]}, 400),
                                          ({"bulk_action": "read", "fax_id": ["FAX-999999"]}, 404),
                                          ({"bulk_action": "read", "fax_id": ["../etc"]}, 400)])
def test_bad_bulk_posts_change_nothing(client, form, status):
    before = client.snapshot()["inbound_faxes"]
    response = client.post("/inbox/bulk", form)
    assert response.status_code == status
    assert client.snapshot()["inbound_faxes"] == before
    if status == 302:
        assert "Not done:</strong> Tick at least one fax" in text(client.get(response.headers["Location"]))


def test_phonebook_groups_list_their_members(client):
    contacts = client.snapshot()["directory_contacts"]
    appeals = [c for c in contacts if c["contact_type"] == "Payer - Appeals"]
    page = text(client.get("/directory/groups"))
    assert "Payer appeals units" in page and f'<td class="num">{len(appeals)}</td>' in page
    rows = text(client.get("/directory", query_string={"group": "payer-appeals"})).split("<tbody>")[1]
    assert all(c["name"] in rows for c in appeals) and "Prior Authorization" not in rows
    cpap = text(client.get("/directory", query_string={"group": "dme-cpap"})).split("<tbody>")[1]
    assert "DME Supplier" in cpap and "Provider Office" not in cpap


def test_the_font_its_licence_and_the_icons_ship_with_the_app(client):
    css = text(client.get("/static/fax.css"))
    assert 'url("fonts/DejaVuSansCondensed.ttf")' in css and '"Tessera Sans"' in css
    font = client.get("/static/fonts/DejaVuSansCondensed.ttf")
    assert font.status_code == 200 and len(font.data) > 100_000
    assert "Bitstream Vera" in text(client.get("/static/fonts/DejaVu-LICENSE.txt"))
    sprite = text(client.get("/static/icons/sprite.svg"))
    assert all(f'id="i-{name}"' in sprite for name in ("inbox", "outbox", "fax", "retry", "group", "cover"))
    assert "icons/sprite.svg#i-inbox" in text(client.get("/inbox"))
