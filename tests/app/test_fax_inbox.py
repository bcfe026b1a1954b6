"""Fax inbox: list, search, views, fax pages as images, PDF download, read/assign, forward
(filing a fax to a patient: test_fax_filing.py)."""
from __future__ import annotations

import re

import pytest

from admindesk.envs.fax import create_app

from .conftest import build_app
from .test_fax_support import PNG_MAGIC, audit_rows, sha, text


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def newest(snapshot: dict) -> dict:
    return max(snapshot["inbound_faxes"], key=lambda f: (f["received_at"], f["id"]))


def test_inbox_lists_newest_first_with_formatted_numbers_and_pages(client):
    snapshot = client.snapshot()
    fax = newest(snapshot)
    page = text(client.get("/inbox"))
    assert page.index(f'>{fax["id"]}<') < page.index("Screen 1 / ")
    digits = fax["from_number"]
    assert f"+1 {digits[:3]}-{digits[3:6]}-{digits[6:]}" in page
    assert f"Faxes 1&ndash;20 of {len(snapshot['inbound_faxes'])}" in page
    second = text(client.get("/inbox?page=2"))
    assert "Screen 2 / " in second and f'>{fax["id"]}<' not in second
    assert audit_rows(client.snapshot(), endpoint="inbox.index", record_type="inbox", tab="all")


def test_inbox_shows_what_the_fax_server_knows_and_nothing_read_from_the_pages(client):
    """Line (label and DID), caller number, CSID, pages, time, status: no sender name, subject
    or kind folder, which only a person reading the pages can tell."""
    snapshot = client.snapshot()
    fax = newest(snapshot)
    line = next(line for line in snapshot["fax_lines"] if line["number"] == fax["to_number"])
    assert not {"from_name", "subject", "folder"} & set(fax)
    body = text(client.get("/inbox")).split("<tbody>")[1].split("</tbody>")[0]
    row = body.split(f'>{fax["id"]}<')[0].rsplit("<tr", 1)[1]
    assert line["label"] in row and (fax["csid"] or "") in row
    for header in ("Line", "Caller number", "CSID", "Pages", "Filed to patient"):
        assert f">{header}" in text(client.get("/inbox"))
    pages = [p["text"] for p in snapshot["inbound_fax_pages"] if p["fax_id"] == fax["id"]]
    assert pages[0].splitlines()[0] not in body  # the pages' letterhead names the sender; the list does not
    assert "Payer determinations" not in text(client.get("/inbox"))


def test_every_line_is_a_folder_of_the_inbox(client):
    snapshot = client.snapshot()
    fax = newest(snapshot)
    line = next(line for line in snapshot["fax_lines"] if line["number"] == fax["to_number"])
    page = text(client.get("/inbox", query_string={"line": line["number"]}))
    assert f'>{fax["id"]}<' in page and f"Inbox <small>&mdash; {line['label']}" in page
    other = next(f for f in snapshot["inbound_faxes"] if f["to_number"] != fax["to_number"])
    assert f'>{other["id"]}<' not in page
    assert "Inbox <small>&mdash; All faxes" in text(client.get("/inbox", query_string={"line": "0000000000"}))
    assert audit_rows(client.snapshot(), endpoint="inbox.index")[-2]["detail"]["line"] == line["number"]


def test_home_opens_the_inbox(client):
    response = client.get("/")
    assert response.status_code == 302 and response.headers["Location"].endswith("/inbox")
    assert audit_rows(client.snapshot(), endpoint="inbox.home", action="home")


def test_inbox_pages_do_not_repeat_faxes(client):
    ids = set()
    for number in (1, 2, 3):
        body = text(client.get(f"/inbox?page={number}")).split("<tbody>")[1]
        found = set(re.findall(r'id="pick-(FAX-\d+)"', body))
        assert not ids & found
        ids |= found
    assert len(ids) == len(client.snapshot()["inbound_faxes"])


def test_inbox_search_by_csid_fax_id_and_punctuated_caller_number(client):
    snapshot = client.snapshot()
    fax = next(f for f in snapshot["inbound_faxes"] if f["csid"])
    others = [f for f in snapshot["inbound_faxes"] if fax["csid"] not in f["csid"]
              and f["from_number"] != fax["from_number"]]
    by_csid = text(client.get("/inbox", query_string={"q": fax["csid"].lower()}))
    assert fax["id"] in by_csid and others[0]["id"] not in by_csid
    digits = fax["from_number"]
    by_number = text(client.get("/inbox", query_string={"q": f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"}))
    assert fax["id"] in by_number and others[0]["id"] not in by_number
    as_shown = text(client.get("/inbox", query_string={"q": f"+1 {digits[:3]}-{digits[3:6]}-{digits[6:]}"}))
    assert fax["id"] in as_shown and others[0]["id"] not in as_shown
    assert fax["id"] in text(client.get("/inbox", query_string={"q": fax["id"]}))
    nothing = text(client.get("/inbox", query_string={"q": "zzz-no-such-sender"}))
    assert "No faxes match" in nothing
    assert audit_rows(client.snapshot(), endpoint="inbox.index")[-1]["detail"]["q"] == "zzz-no-such-sender"


def test_inbox_views_filter_unread_and_filed(client):
    snapshot = client.snapshot()
    read = next(f for f in snapshot["inbound_faxes"] if f["status"] == "Read")
    unread = next(f for f in snapshot["inbound_faxes"] if f["status"] == "Unread")
    page = text(client.get("/inbox?view=unread&sort=id"))
    assert unread["id"] in page and read["id"] not in page
    assert "No faxes match" in text(client.get("/inbox?view=filed"))
    assert "Inbox <small>&mdash; All faxes" in text(client.get("/inbox?view=bogus"))


def test_inbox_sort_by_caller_number(client):
    faxes = sorted(client.snapshot()["inbound_faxes"], key=lambda f: (f["from_number"], f["id"]))
    page = text(client.get("/inbox?sort=caller&dir=asc"))
    assert 'aria-sort="ascending"' in page
    rows = page.split("<tbody>")[1]
    assert rows.index(f'>{faxes[0]["id"]}<') < rows.index(f'>{faxes[1]["id"]}<')
    assert f'>{faxes[-1]["id"]}<' not in rows  # the last caller is on the last page


def test_opening_a_fax_marks_it_read_and_shows_page_images(client):
    fax = newest(client.snapshot())
    assert fax["status"] == "Unread"
    page = text(client.get(f"/inbox/{fax['id']}"))
    assert f"Fax {fax['id']} from" in page and (fax["csid"] or "(none sent)") in page
    assert f'/inbox/{fax["id"]}/pages/1.png' in page and f"Page 1 of {fax['pages']}" in page
    snapshot = client.snapshot()
    assert next(f for f in snapshot["inbound_faxes"] if f["id"] == fax["id"])["status"] == "Read"
    assert [e["action"] for e in snapshot["inbound_fax_events"] if e["fax_id"] == fax["id"]] == ["Opened"]
    assert audit_rows(snapshot, record_type="inbound_fax", record_id=fax["id"], tab="pages")


@pytest.mark.parametrize("tab", ["details", "history"])
def test_fax_tabs(client, tab):
    fax = newest(client.snapshot())
    page = text(client.get(f"/inbox/{fax['id']}?tab={tab}"))
    assert 'aria-current="page" class="active">' + tab.capitalize() in page
    assert audit_rows(client.snapshot(), record_id=fax["id"], tab=tab)


def test_unknown_and_malformed_fax_ids_are_not_found(client):
    assert client.get("/inbox/FAX-999999").status_code == 404
    assert client.get("/inbox/..%2Fetc").status_code == 404
    assert client.get("/inbox/FAX-000001/pages/99.png").status_code == 404


def test_page_images_are_deterministic_pngs(client):
    fax = next(f for f in client.snapshot()["inbound_faxes"] if f["pages"] == 2)
    first = client.get(f"/inbox/{fax['id']}/pages/1.png")
    assert first.status_code == 200 and first.mimetype == "image/png" and first.data.startswith(PNG_MAGIC)
    assert first.headers["Cache-Control"] == "no-store"  # a page image is patient data
    assert client.get(f"/inbox/{fax['id']}/pages/1.png").data == first.data
    assert client.get(f"/inbox/{fax['id']}/pages/2.png").data != first.data
    assert audit_rows(client.snapshot(), endpoint="inbox.page_image", record_id=fax["id"], action="view_page")


def test_download_pdf_has_stable_name_and_bytes(client):
    fax = newest(client.snapshot())
    response = client.get(f"/inbox/{fax['id']}/download")
    assert response.mimetype == "application/pdf" and response.data.startswith(b"%PDF-")
    assert response.headers["Content-Disposition"] == f'attachment; filename="fax-{fax["id"]}.pdf"'
    client.reset()
    client.login()
    assert sha(client.get(f"/inbox/{fax['id']}/download").data) == sha(response.data)
    assert audit_rows(client.snapshot(), record_id=fax["id"], action="download_pdf")


def test_mark_unread_then_read_with_notes(client):
    fax = newest(client.snapshot())
    client.get(f"/inbox/{fax['id']}")
    response = client.post(f"/inbox/{fax['id']}/read-state", {"state": "Unread", "read-note": "Come back later"})
    assert response.status_code == 302
    row = next(f for f in client.snapshot()["inbound_faxes"] if f["id"] == fax["id"])
    assert row["status"] == "Unread"
    client.post(f"/inbox/{fax['id']}/read-state", {"state": "Read"})
    snapshot = client.snapshot()
    events = [(e["action"], e["note"]) for e in snapshot["inbound_fax_events"] if e["fax_id"] == fax["id"]]
    assert events == [("Opened", ""), ("Marked unread", "Come back later"), ("Marked read", "")]
    assert audit_rows(snapshot, record_id=fax["id"], action="mark_unread")


def test_read_state_rejects_bad_state_and_long_note(client):
    fax = newest(client.snapshot())
    before = client.snapshot()["inbound_faxes"]
    assert client.post(f"/inbox/{fax['id']}/read-state", {"state": "Deleted"}).status_code == 400
    response = client.post(f"/inbox/{fax['id']}/read-state", {"state": "Read", "read-note": "x" * 501})
    assert response.status_code == 422
    assert "Note must be 500 characters or fewer." in text(response)
    assert client.snapshot()["inbound_faxes"] == before


def test_assign_to_colleague_and_back(client):
    fax = newest(client.snapshot())
    response = client.post(f"/inbox/{fax['id']}/assign", {"assign-assignee": "mreyes", "assign-note": "Your case"})
    assert response.status_code == 302
    row = next(f for f in client.snapshot()["inbound_faxes"] if f["id"] == fax["id"])
    assert row["assigned_to"] == "mreyes"
    assert "Maria Reyes" in text(client.get(f"/inbox/{fax['id']}?tab=details"))
    client.post(f"/inbox/{fax['id']}/assign", {"assign-assignee": ""})
    snapshot = client.snapshot()
    assert next(f for f in snapshot["inbound_faxes"] if f["id"] == fax["id"])["assigned_to"] is None
    assert snapshot["inbound_fax_events"][-1]["action"] == "Assigned to the shared inbox"
    assert len(audit_rows(snapshot, record_id=fax["id"], action="assign_fax")) == 2


def test_assign_rejects_unknown_user(client):
    fax = newest(client.snapshot())
    response = client.post(f"/inbox/{fax['id']}/assign", {"assign-assignee": "intruder"})
    assert response.status_code == 422 and "Not a valid choice" in text(response)
    assert next(f for f in client.snapshot()["inbound_faxes"] if f["id"] == fax["id"])["assigned_to"] is None


def test_assigned_to_me_view(client):
    fax = newest(client.snapshot())
    client.post(f"/inbox/{fax['id']}/assign", {"assign-assignee": "coordinator"})
    page = text(client.get("/inbox?view=mine"))
    assert fax["id"] in page and "Assigned to me" in page


def test_forward_attaches_the_fax_pdf_to_a_new_draft(client):
    fax = newest(client.snapshot())
    pdf = client.get(f"/inbox/{fax['id']}/download").data
    response = client.post(f"/inbox/{fax['id']}/forward")
    assert response.status_code == 302 and "/drafts/" in response.headers["Location"]
    snapshot = client.snapshot()
    draft = snapshot["compose_drafts"][-1]
    attachment = snapshot["draft_attachments"][-1]
    digits = fax["from_number"]
    assert draft["cover_re"] == f"Fwd: fax {fax['id']} from +1 {digits[:3]}-{digits[3:6]}-{digits[6:]}"
    assert draft["owner"] == "coordinator"
    assert (attachment["draft_id"], attachment["sha256"], attachment["pages"]) == (draft["id"], sha(pdf), fax["pages"])
    assert audit_rows(snapshot, action="forward_fax", record_id=fax["id"])
