"""EHR order detail: details, the authorization section (validation rules) and comments."""
from __future__ import annotations

import pytest

from admindesk.envs.ehr_web import create_app

from .conftest import build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)



def auth_row(client, order_id):
    return next(r for r in client.snapshot()["order_authorizations"] if r["order_id"] == order_id)


VALID = {"status": "Approved", "payer_id": "PYR-NWH", "auth_number": "NWH26-123456", "reference_number": "CS12345678",
         "approved_units": "1", "start_date": "11/20/2026", "end_date": "02/18/2027"}


def test_order_detail_shows_order_provider_and_site(client, open_order):
    page = client.get(f"/orders/{open_order.id}").get_data(as_text=True)
    for needle in (open_order.code, open_order.description, open_order.ordering_npi, open_order.place_of_service,
                   open_order.planned_date.strftime("%m/%d/%Y"), "Authorization", "Order comments",
                   open_order.diagnosis_list[0]):
        assert needle in page
    event = client.snapshot()["audit_events"][-1]
    assert (event["record_type"], event["record_id"], event["tab"]) == ("order", open_order.id, "orders")


def test_authorization_saved(client, open_order):
    response = client.post(f"/orders/{open_order.id}/authorization", VALID)
    assert response.status_code == 302
    row = auth_row(client, open_order.id)
    assert row == {**row, "status": "Approved", "payer_id": "PYR-NWH", "auth_number": "NWH26-123456",
                   "reference_number": "CS12345678", "approved_units": 1, "start_date": "2026-11-20",
                   "end_date": "2027-02-18", "updated_by": "coordinator", "updated_at": "2026-11-16T09:00:00"}
    event = [e for e in client.snapshot()["audit_events"] if e["action"] == "update_authorization"][-1]
    assert event["record_id"] == open_order.id and event["detail"]["status_after"] == "Approved"
    page = client.get(f"/orders/{open_order.id}").get_data(as_text=True)
    assert "NWH26-123456" in page and "saved: Approved" in page


def test_pending_status_needs_no_auth_number(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", {"status": "Submitted - Pending", "payer_id": "PYR-NWH",
                                                          "reference_number": "CS99887766"})
    row = auth_row(client, open_order.id)
    assert row["status"] == "Submitted - Pending" and row["reference_number"] == "CS99887766"
    assert row["auth_number"] is None


@pytest.mark.parametrize("change, message", [
    ({"auth_number": "AB1"}, "Use 6-20 letters, digits or dashes"),
    ({"auth_number": "NWH 26 12345"}, "Use 6-20 letters, digits or dashes"),
    ({"auth_number": "A" * 21}, "Field cannot be longer than 20 characters"),
    ({"auth_number": ""}, "Authorization number is required when the status is Approved"),
    ({"start_date": "02/30/2026"}, "is not a valid date"),
    ({"start_date": ""}, "Start date is required when the status is Approved"),
    ({"end_date": "11/01/2026"}, "End date must be on or after the start date"),
    ({"approved_units": "0"}, "Enter a whole number from 1 to 999"),
    ({"approved_units": "1000"}, "Enter a whole number from 1 to 999"),
    ({"approved_units": "2.5"}, "Enter a whole number from 1 to 999"),
    ({"status": "Maybe"}, "Not a valid choice"),
    ({"payer_id": "PYR-NOPE"}, "Not a valid choice"),
    ({"payer_id": ""}, "Payer is required when the status is Approved"),
])
def test_authorization_bad_input_changes_nothing(client, open_order, change, message):
    before = auth_row(client, open_order.id)
    response = client.post(f"/orders/{open_order.id}/authorization", {**VALID, **change})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert message in page and "This activity cannot be saved until these fields are corrected:" in page
    assert auth_row(client, open_order.id) == before


def test_bad_input_is_echoed_escaped(client, open_order):
    response = client.post(f"/orders/{open_order.id}/authorization", {**VALID, "auth_number": "<b>x</b>"})
    page = response.get_data(as_text=True)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_order_comments_added_and_listed(client, open_order):
    url = f"/orders/{open_order.id}/comments"
    empty = client.post(url, {"text": ""})
    assert empty.status_code == 422 and "Enter the note text." in empty.get_data(as_text=True)
    assert client.snapshot()["notes"] == []
    client.post(url, {"text": "Clinicals faxed to payer."})
    notes = client.snapshot()["notes"]
    assert [(n["subject_type"], n["subject_id"], n["text"]) for n in notes] == [
        ("order", open_order.id, "Clinicals faxed to payer.")]
    page = client.get(f"/orders/{open_order.id}").get_data(as_text=True)
    assert "Order comments (1)" in page and "Clinicals faxed to payer." in page


def test_orders_tab_lists_auth_status(client, open_order):
    page = client.get(f"/patients/{open_order.mrn}/orders").get_data(as_text=True)
    assert open_order.id in page and "Not Started" in page


PENDING = {"status": "Submitted - Pending", "payer_id": "PYR-NWH", "reference_number": "CS12345678"}


TERMS = {"approved_units": "12", "start_date": "11/20/2026", "end_date": "02/18/2027"}


@pytest.mark.parametrize("status", ["Submitted - Pending", "Pended - Info Requested", "Not Started", "Denied",
                                    "No Auth Required"])
def test_approval_terms_need_an_approved_status(client, open_order, status):
    before = auth_row(client, open_order.id)
    response = client.post(f"/orders/{open_order.id}/authorization", {**PENDING, "status": status, **TERMS})
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "This activity cannot be saved until these fields are corrected:" in page
    for term, pronoun in (("Approved units", "them"), ("Approved start date", "it"), ("Approved end date", "it")):
        assert (f"{term} can be entered only with the status Approved. Leave {pronoun} blank while the status is "
                f"{status}.") in page
    assert auth_row(client, open_order.id) == before
    assert [r for r in client.snapshot()["authorization_history"] if r["order_id"] == open_order.id] == []


def test_a_cancelled_authorization_keeps_its_terms_but_cannot_change_them(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", VALID)
    client.post(f"/orders/{open_order.id}/authorization/changes", {"change": "Cancellation", "note": "Not needed."})
    # The form shows the terms on file; saving it again as it stands (a new reference) is fine.
    kept = client.post(f"/orders/{open_order.id}/authorization",
                       {**VALID, "status": "Cancelled", "reference_number": "CS55550000"})
    assert kept.status_code == 302
    row = auth_row(client, open_order.id)
    assert (row["status"], row["approved_units"], row["reference_number"]) == ("Cancelled", 1, "CS55550000")
    changed = client.post(f"/orders/{open_order.id}/authorization", {**VALID, "status": "Cancelled", "approved_units": "5"})
    assert changed.status_code == 422
    assert "A cancelled authorization keeps the approved units on file, which cannot be changed." in \
        changed.get_data(as_text=True)
    assert auth_row(client, open_order.id) == row
