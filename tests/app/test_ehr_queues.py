"""EHR work queues: filters, sorting, paging, item detail, assignment, status changes, notes."""
from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models_work import WorkItem
from admindesk.envs.ehr_web.vocab import NON_DENIAL_CARCS, QUEUES

from .conftest import build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def first_item(app, queue: str, **where) -> WorkItem:
    with app.extensions["admindesk"].db.new_session() as session:
        stmt = select(WorkItem).where(WorkItem.queue == queue, WorkItem.assignee.is_(None), WorkItem.status == "New")
        return session.scalars(stmt.order_by(WorkItem.id)).first()


def item_row(client, item_id):
    return next(r for r in client.snapshot()["work_items"] if r["id"] == item_id)


def text(response) -> str:
    return response.get_data(as_text=True)


def test_seeded_queues(client):
    items = client.snapshot()["work_items"]
    queues = {r["queue"] for r in items}
    assert queues == {"Prior Auth", "Denials", "DME"}
    assert any(r["assignee"] for r in items) and any(r["assignee"] is None for r in items)
    assert all(r["due_date"] for r in items)


@pytest.mark.parametrize("slug, heading, column", [("prior-auth", "Prior Auth Work Queue", "Planned"),
                                                   ("denials", "Denials Work Queue", "Appeal deadline"),
                                                   ("dme", "DME Work Queue", "Service")])
def test_queue_lists_render(client, slug, heading, column):
    page = text(client.get(f"/queues/{slug}"))
    assert heading in page and column in page and "Assign to me" in page and "Viewing page 1 of " in page
    event = client.snapshot()["audit_events"][-1]
    assert event["record_type"] == "work_queue" and event["record_id"] == heading.replace(" Work Queue", "")


def test_denials_list_shows_each_claims_denial_codes(client):
    page = text(client.get("/queues/denials?status=all&sort=item&dir=asc"))
    snapshot = client.snapshot()
    item_id = int(page.split('aria-label="Open item ')[1].split('"')[0])
    claim = next(r for r in snapshot["work_items"] if r["id"] == item_id)["claim_number"]
    unpaid = {r["line_no"] for r in snapshot["claim_lines"] if r["claim_number"] == claim and r["paid"] == 0}
    denials = [a for a in snapshot["claim_adjustments"] if a["claim_number"] == claim and a["line_no"] in unpaid
               and a["carc_code"] not in NON_DENIAL_CARCS]
    row = page.split(f'aria-label="Open item {item_id}"')[1].split("</tr>")[0]
    assert denials and claim in row
    for adjustment in denials:
        assert f"{adjustment['group_code']}-{adjustment['carc_code']}" in row


def test_chart_banner_counts_items_open_in_their_own_queue(app, client):
    item = first_item(app, "Prior Auth")

    def open_count() -> int:
        page = text(client.get(f"/patients/{item.mrn}/summary"))
        return int(page.split("Open work items: ")[1].split("<")[0]) if "Open work items: " in page else 0

    before = open_count()
    assert before >= 1
    client.post(f"/queues/items/{item.id}/status", {"status": "Denied"})  # a closing status of Prior Auth
    assert item_row(client, item.id)["status"] == "Denied"
    assert open_count() == before - 1


def test_queue_pages_hold_25_items(client):
    page = text(client.get("/queues/prior-auth"))
    assert page.count("aria-label=\"Open item ") == 25
    assert "Viewing page 2 of " in text(client.get("/queues/prior-auth?page=2"))


def test_queue_filters(app, client):
    mine = text(client.get("/queues/prior-auth?assignee=me"))
    today = client.snapshot()["_meta"]["now"][:10]
    closed = QUEUES["prior-auth"].closed_statuses
    # The Active tab: open items not deferred to a later follow-up date.
    rows = [r for r in client.snapshot()["work_items"] if r["queue"] == "Prior Auth" and r["assignee"] == "coordinator"
            and r["status"] not in closed and (r["follow_up_date"] or today) <= today]
    assert f"Records 1 to {min(25, len(rows))} of {len(rows)}" in mine
    by_payer = text(client.get("/queues/denials?payer=PYR-KMH&status=all"))
    assert "Keystone Mutual Health" in by_payer and "Northwind Health Plan</td>" not in by_payer
    resolved = text(client.get("/queues/denials?status=Resolved"))
    assert '">Resolved</span>' in resolved and '">New</span>' not in resolved
    window = text(client.get("/queues/dme?due_from=11/01/2026&due_to=11/20/2026"))
    expected = [r for r in client.snapshot()["work_items"]
                if r["queue"] == "DME" and "2026-11-01" <= r["due_date"] <= "2026-11-20"]
    assert expected and f"of {len(expected)}</span>" in window
    event = client.snapshot()["audit_events"][-1]
    assert event["detail"]["filters"] == {"due_from": "11/01/2026", "due_to": "11/20/2026"}


def test_queue_sorting(client):
    ascending = text(client.get("/queues/denials?status=all&sort=item&dir=asc"))
    descending = text(client.get("/queues/denials?status=all&sort=item&dir=desc"))
    first_asc = ascending.split('aria-label="Open item ')[1].split('"')[0]
    first_desc = descending.split('aria-label="Open item ')[1].split('"')[0]
    assert int(first_asc) < int(first_desc)
    assert 'aria-sort="descending"' in descending


@pytest.mark.parametrize("args, message", [("due_from=31/31/2026", "is not a valid date"),
                                           ("due_from=11/20/2026&due_to=11/01/2026", "must be on or after"),
                                           ("status=Bogus", "Not a valid choice")])
def test_queue_filter_bad_input(client, args, message):
    response = client.get(f"/queues/prior-auth?{args}")
    assert response.status_code == 422 and message in text(response)


def test_item_detail_shows_context_and_dialogs(app, client):
    item = first_item(app, "Denials")
    page = text(client.get(f"/queues/items/{item.id}"))
    assert item.claim_number in page and "Appeal deadline" in page and "CO-" in page
    assert '<dialog id="status-dialog" aria-labelledby="status-title"' in page
    assert '<dialog id="assign-dialog" aria-labelledby="assign-title"' in page
    item_view, claim_view = client.snapshot()["audit_events"][-2:]
    assert (item_view["record_type"], item_view["record_id"]) == ("work_item", str(item.id))
    # The item's claim panel discloses the claim: the access log counts it as seen.
    assert (claim_view["action"], claim_view["record_type"], claim_view["record_id"]) == \
        ("view", "claim", item.claim_number)


def test_assign_to_me_from_the_list_returns_to_the_list(app, client):
    item = first_item(app, "Prior Auth")
    response = client.post(f"/queues/items/{item.id}/assign",
                           {"assignee": "coordinator", "next": "/queues/prior-auth?page=2"})
    assert response.status_code == 302 and response.location.endswith("/queues/prior-auth?page=2")
    assert item_row(client, item.id)["assignee"] == "coordinator"
    events = client.snapshot()["work_item_events"]
    assert events[-1]["change"] == "Assigned to Jordan Ellis" and events[-1]["work_item_id"] == item.id
    assert str(item.id) in text(client.get("/my-items"))


def test_assign_rejects_unknown_user_and_unsafe_next(app, client):
    item = first_item(app, "DME")
    bad = client.post(f"/queues/items/{item.id}/assign", {"assignee": "mallory"})
    assert bad.status_code == 422 and "Not a valid choice" in text(bad) and "data-open-on-load" in text(bad)
    assert item_row(client, item.id)["assignee"] is None
    response = client.post(f"/queues/items/{item.id}/assign", {"assignee": "kbrooks", "next": "//evil.example/"})
    assert response.location.endswith(f"/queues/items/{item.id}")
    client.post(f"/queues/items/{item.id}/assign", {"assignee": ""})
    assert item_row(client, item.id)["assignee"] is None


def test_status_change_with_follow_up_and_note(app, client):
    item = first_item(app, "Prior Auth")
    client.post(f"/queues/items/{item.id}/status",
                {"status": "Submitted - Pending", "follow_up_date": "11/20/2026", "note": "Submitted on portal."})
    row = item_row(client, item.id)
    assert row["status"] == "Submitted - Pending" and row["follow_up_date"] == "2026-11-20"
    assert row["updated_by"] == "coordinator"
    snapshot = client.snapshot()
    assert snapshot["notes"][-1]["subject_type"] == "work_item" and snapshot["notes"][-1]["subject_id"] == str(item.id)
    assert "Status: Submitted - Pending" in snapshot["work_item_events"][-1]["change"]
    page = text(client.get(f"/queues/items/{item.id}"))
    assert "Submitted on portal." in page and "11/20/2026" in page


def test_denial_appeal_filed_records_reference(app, client):
    item = first_item(app, "Denials")
    url = f"/queues/items/{item.id}/status"
    missing = client.post(url, {"status": "Appeal Filed"})
    page = text(missing)
    assert missing.status_code == 422 and "Appeal reference is required" in page and "Enter the date the appeal" in page
    assert item_row(client, item.id)["status"] == "New"
    client.post(url, {"status": "Appeal Filed", "appeal_reference": "APL-2026-0042", "appeal_submitted_on": "11/16/2026",
                      "follow_up_date": "12/16/2026"})
    row = item_row(client, item.id)
    assert (row["status"], row["appeal_reference"], row["appeal_submitted_on"]) == ("Appeal Filed", "APL-2026-0042",
                                                                                    "2026-11-16")


def test_dme_supplier_rules(app, client):
    item = first_item(app, "DME")
    url = f"/queues/items/{item.id}/status"
    no_supplier = client.post(url, {"status": "Sent to Supplier"})
    assert no_supplier.status_code == 422 and "Choose the supplier" in text(no_supplier)
    no_confirmation = client.post(url, {"status": "Supplier Confirmed", "supplier_id": "SUP-BRH"})
    assert "Enter the supplier&#39;s confirmation number." in text(no_confirmation)
    assert item_row(client, item.id)["status"] == "New"
    client.post(url, {"status": "Supplier Confirmed", "supplier_id": "SUP-BRH", "supplier_confirmation": "BRH-77812"})
    row = item_row(client, item.id)
    assert (row["status"], row["supplier_id"], row["supplier_confirmation"]) == ("Supplier Confirmed", "SUP-BRH",
                                                                                 "BRH-77812")


def test_an_overdue_follow_up_date_may_stay_but_a_new_one_cannot_be_in_the_past(app, client):
    item = first_item(app, "Denials")
    with app.extensions["admindesk"].db.new_session() as session:
        session.get(WorkItem, item.id).follow_up_date = date(2026, 11, 2)  # before today (11/16/2026)
        session.commit()
    url = f"/queues/items/{item.id}/status"
    moved = client.post(url, {"status": "In Progress", "follow_up_date": "11/09/2026"})
    assert moved.status_code == 422 and "Follow-up date cannot be in the past." in text(moved)
    kept = client.post(url, {"status": "Write-off Requested", "follow_up_date": "11/02/2026"})
    assert kept.status_code == 302
    row = item_row(client, item.id)
    assert (row["status"], row["follow_up_date"]) == ("Write-off Requested", "2026-11-02")


@pytest.mark.parametrize("data, message", [
    ({"status": "Write-off Requested"}, "Not a valid choice"),  # a Denials status, not a Prior Auth one
    ({"status": "In Progress", "follow_up_date": "11/15/2026"}, "Follow-up date cannot be in the past."),
    ({"status": "In Progress", "follow_up_date": "11-15-2026"}, "is not a valid date"),
    ({"status": "In Progress", "note": "n" * 4001}, "limited to 4000 characters"),
])
def test_status_bad_input_changes_nothing(app, client, data, message):
    item = first_item(app, "Prior Auth")
    before = client.snapshot()
    response = client.post(f"/queues/items/{item.id}/status", data)
    assert response.status_code == 422 and message in text(response)
    after = client.snapshot()
    assert item_row(client, item.id) == next(r for r in before["work_items"] if r["id"] == item.id)
    assert after["notes"] == before["notes"] == [] and after["work_item_events"] == []


def test_item_notes(app, client):
    item = first_item(app, "DME")
    bad = client.post(f"/queues/items/{item.id}/notes", {"text": ""})
    assert bad.status_code == 422 and client.snapshot()["notes"] == []
    client.post(f"/queues/items/{item.id}/notes", {"text": "Left message with supplier."})
    assert "Left message with supplier." in text(client.get(f"/queues/items/{item.id}"))


def test_my_items_lists_only_mine(client):
    page = text(client.get("/my-items?sort=queue&dir=desc"))
    mine = [r for r in client.snapshot()["work_items"] if r["assignee"] == "coordinator"]
    assert f"of {len(mine)}" in page


def test_a_corrected_claims_number_has_a_field_labelled_for_it(app, client):
    item = first_item(app, "Denials")
    client.post(f"/queues/items/{item.id}/status", {"status": "Corrected Claim Sent", "appeal_reference": "CC-2026-0007",
                                                     "follow_up_date": "12/16/2026"})
    page = text(client.get(f"/queues/items/{item.id}"))
    assert "Appeal / corrected claim #" in page and "CC-2026-0007" in page
    assert item_row(client, item.id)["appeal_reference"] == "CC-2026-0007"
    assert "Appeal / corrected claim #: CC-2026-0007" in client.snapshot()["work_item_events"][-1]["change"]
