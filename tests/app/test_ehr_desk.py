"""The EHR desk: in-basket, queue tabs, aging, bulk actions with refusals, saved views,
next item, the pager's wording, phone format, shipped font and icons."""
from __future__ import annotations

import re

import pytest

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.formats import phone

from .conftest import build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def text(response) -> str:
    return response.get_data(as_text=True)


def items(client, queue: str) -> list[dict]:
    return [r for r in client.snapshot()["work_items"] if r["queue"] == queue]


def test_inbasket_holds_payer_correspondence_and_staff_messages_from_the_records(client):
    messages = client.snapshot()["inbasket_messages"]
    folders = {m["folder"] for m in messages}
    assert folders == {"Payer Correspondence", "Staff Message"}
    mine = [m for m in messages if m["recipient"] == "coordinator" and m["status"] != "Done"]
    assert any(m["folder"] == "Staff Message" for m in mine)
    letter = next(m for m in mine if m["folder"] == "Payer Correspondence")
    page = text(client.get("/in-basket/?folder=Payer+Correspondence"))
    assert letter["subject"] in page and "Mark selected done" in page
    detail = text(client.get(f"/in-basket/{letter['id']}"))
    assert letter["body"] in detail
    assert next(m for m in client.snapshot()["inbasket_messages"] if m["id"] == letter["id"])["status"] in (
        "Read", "Done")


def test_marking_messages_done_names_the_refused_ones_and_writes_only_the_rest(client):
    messages = client.snapshot()["inbasket_messages"]
    mine = next(m for m in messages if m["recipient"] == "coordinator" and m["status"] != "Done")
    theirs = next(m for m in messages if m["recipient"] not in ("coordinator", None))
    page = text(client.post("/in-basket/done", {"message_ids": [str(mine["id"]), str(theirs["id"])]},
                            follow_redirects=True))
    assert "1 message(s) marked done" in page and f"message {theirs['id']} is not in your In Basket" in page
    after = {m["id"]: m for m in client.snapshot()["inbasket_messages"]}
    assert after[mine["id"]]["status"] == "Done" and after[mine["id"]]["done_by"] == "coordinator"
    assert after[theirs["id"]] == theirs
    empty = text(client.post("/in-basket/done", {"folder": "Staff Message"}, follow_redirects=True))
    assert "Select at least one message" in empty


def test_queue_tabs_split_active_deferred_and_completed_with_days_in_queue(client):
    page = text(client.get("/queues/denials"))
    assert re.search(r"Active \(\d+\)", page) and "Deferred (0)" in page and "Days in queue" in page
    completed = text(client.get("/queues/denials?tab=completed"))
    closed = [r for r in items(client, "Denials") if r["status"] in ("Resolved", "Write-off Requested")]
    assert f"Completed ({len(closed)})" in completed and '">Resolved</span>' in completed
    assert '">New</span>' not in completed


def test_bulk_assign_applies_to_the_free_items_and_refuses_the_rest_by_name(client):
    open_items = [r for r in items(client, "DME") if r["status"] != "Supplier Confirmed"]
    free = [r for r in open_items if r["assignee"] is None][:2]
    taken = next(r for r in open_items if r["assignee"] == "kbrooks")
    ids = [str(r["id"]) for r in free] + [str(taken["id"])]
    page = text(client.post("/queues/dme/bulk", {"item_ids": ids, "action": "assign", "assignee": "kbrooks"},
                            follow_redirects=True))
    assert "2 item(s) updated" in page and f"item {taken['id']} is already assigned to Kendra Brooks" in page
    after = {r["id"]: r for r in items(client, "DME")}
    assert all(after[r["id"]]["assignee"] == "kbrooks" for r in free)
    events = [e for e in client.snapshot()["work_item_events"] if e["work_item_id"] in {r["id"] for r in free}]
    assert len(events) == 2 and all(e["change"] == "Assigned to Kendra Brooks (bulk action)" for e in events)


def test_bulk_status_refuses_statuses_that_need_item_fields_and_empty_selections(client):
    before = client.snapshot()["work_items"]
    item = next(r for r in before if r["queue"] == "DME" and r["status"] == "New")
    needs_supplier = text(client.post("/queues/dme/bulk", {"item_ids": [str(item["id"])], "action": "status",
                                                           "status": "Sent to Supplier"}, follow_redirects=True))
    assert "Sent to Supplier records the supplier: set it on each item." in needs_supplier
    nothing = text(client.post("/queues/dme/bulk", {"action": "status", "status": "On Hold"}, follow_redirects=True))
    assert "Select at least one item" in nothing
    wrong_queue = next(r for r in before if r["queue"] == "Denials")
    mixed = text(client.post("/queues/dme/bulk", {"item_ids": [str(item["id"]), str(wrong_queue["id"])],
                                                  "action": "status", "status": "On Hold"}, follow_redirects=True))
    assert f"item {wrong_queue['id']} is not in the DME queue" in mixed
    after = {r["id"]: r for r in client.snapshot()["work_items"]}
    assert after[item["id"]]["status"] == "On Hold" and after[wrong_queue["id"]] == wrong_queue


def test_saved_views_keep_the_filters_refuse_duplicates_and_can_be_deleted(client):
    client.post("/queues/prior-auth/views", {"name": "My urgent", "query": "assignee=me&sort=due&evil=1"})
    [view] = client.snapshot()["saved_queue_views"]
    assert (view["name"], view["queue"], view["query"]) == ("My urgent", "Prior Auth", "assignee=me&sort=due")
    page = text(client.get("/queues/prior-auth"))
    assert 'href="/queues/prior-auth?assignee=me&amp;sort=due">My urgent</a>' in page
    duplicate = text(client.post("/queues/prior-auth/views", {"name": "my URGENT", "query": ""},
                                 follow_redirects=True))
    assert "already have a Prior Auth view named" in duplicate
    blank = text(client.post("/queues/prior-auth/views", {"name": "  ", "query": ""}, follow_redirects=True))
    assert "Enter a name for the view." in blank
    assert len(client.snapshot()["saved_queue_views"]) == 1
    client.post(f"/queues/views/{view['id']}/delete")
    assert client.snapshot()["saved_queue_views"] == []


def test_next_item_opens_the_most_pressing_active_item_that_is_mine_or_free(client):
    candidates = [r for r in items(client, "Prior Auth") if r["status"] not in ("Auth Obtained", "No Auth Required",
                                                                              "Denied")
                  and r["assignee"] in (None, "coordinator")]
    best = min(candidates, key=lambda r: ({"Urgent": 0, "Routine": 1}.get(r["priority"], 2), r["due_date"], r["id"]))
    response = client.get("/queues/prior-auth/next")
    assert response.location.endswith(f"/queues/items/{best['id']}")
    following = client.get(f"/queues/prior-auth/next?after={best['id']}")
    assert not following.location.endswith(f"/queues/items/{best['id']}")


def test_empty_lists_say_no_items_and_pages_use_the_ehr_wording(client):
    page = text(client.get("/queues/dme?tab=deferred"))
    assert "No items" in page and "0 of 0" not in page and "Page 1 of 1" not in page
    full = text(client.get("/queues/prior-auth"))
    assert re.search(r"Records 1 to 25 of \d+", full) and "Viewing page 1 of " in full


def test_phone_numbers_are_written_the_ehr_way():
    assert phone("5705550142") == "(570) 555-0142"
    assert phone("1-570-555-0142") == "(570) 555-0142"
    assert phone("ext 12") == "ext 12" and phone(None) == ""


def test_item_pages_show_people_by_name_and_the_footer_is_the_products(client):
    item = next(r for r in client.snapshot()["work_items"] if r["queue"] == "DME" and r["status"] == "New")
    client.post(f"/queues/items/{item['id']}/status", {"status": "In Progress"})
    page = text(client.get(f"/queues/items/{item['id']}"))
    assert "by Jordan Ellis" in page and "by coordinator" not in page
    assert "PROD-SIM" not in page and "(570) 555-0100" in page


def test_the_web_font_and_icons_ship_with_the_app(client):
    css = text(client.get("/static/ehr.css"))
    assert 'url("fonts/LiberationSans-Regular.ttf")' in css
    font = client.get("/static/fonts/LiberationSans-Regular.ttf")
    assert font.status_code == 200 and font.data[:4] == b"\x00\x01\x00\x00"
    assert "Red Hat" in text(client.get("/static/fonts/LICENSE-LiberationSans.txt"))
    icons = text(client.get("/static/icons/ehr-icons.svg"))
    assert all(f'id="i-{name}"' in icons for name in ("home", "inbox", "lock", "alert", "next"))
    assert "icons/ehr-icons.svg#i-home" in text(client.get("/"))


@pytest.mark.parametrize("url,data", [("/queues/dme/bulk", {"action": "assign", "assignee": " "}),
                                      ("/queues/dme/bulk", {"action": "status", "status": " "})])
def test_blank_looking_choices_are_refused_in_bulk(client, url, data):
    item = next(r for r in items(client, "DME") if r["status"] == "New")
    page = text(client.post(url, {"item_ids": [str(item["id"])], **data}, follow_redirects=True))
    assert "Choose a valid bulk action and value." in page
    assert next(r for r in items(client, "DME") if r["id"] == item["id"]) == item


def test_assigning_to_a_blank_looking_user_is_refused(client):
    item = next(r for r in items(client, "DME") if r["status"] == "New")
    response = client.post(f"/queues/items/{item['id']}/assign", {"assignee": " "})
    assert response.status_code == 422 and "Not a valid choice" in text(response)


def test_the_bare_world_has_deferred_and_completed_items_in_every_queue_tab(client):
    for slug, tabs in (("prior-auth", ("active", "deferred", "completed")), ("dme", ("active", "completed")),
                       ("denials", ("active", "completed"))):
        for tab in tabs:
            page = client.get(f"/queues/{slug}?tab={tab}").get_data(as_text=True)
            assert 'aria-label="Open item ' in page, (slug, tab)
