"""EHR authorization lifecycle: history rows per order, units used/remaining, and the
changes (extension, units increase, date change, cancellation, withdrawal) with their refusals."""
from __future__ import annotations

import pytest

from admindesk.envs.ehr_web import create_app

from .conftest import build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)



APPROVED = {"status": "Approved", "payer_id": "PYR-NWH", "auth_number": "NWH26-123456",
            "reference_number": "CS12345678", "approved_units": "12", "start_date": "11/20/2026",
            "end_date": "02/18/2027"}
# A denial carries no approved units or dates.
DENIED = {"status": "Denied", "payer_id": "PYR-NWH", "reference_number": "CS12345678"}
PENDING = {"status": "Submitted - Pending", "payer_id": "PYR-NWH", "reference_number": "CS12345678"}


def history(client, order_id) -> list[dict]:
    return [r for r in client.snapshot()["authorization_history"] if r["order_id"] == order_id]


def auth_row(client, order_id) -> dict:
    return next(r for r in client.snapshot()["order_authorizations"] if r["order_id"] == order_id)


def change(client, order_id, **fields):
    return client.post(f"/orders/{order_id}/authorization/changes", fields)


def test_seeded_history_matches_the_auth_on_file(client):
    snap = client.snapshot()
    approved = [a for a in snap["order_authorizations"] if a["status"] == "Approved"]
    assert approved
    rows = {}
    for row in snap["authorization_history"]:
        rows.setdefault(row["order_id"], []).append(row)
    for auth in approved:
        events = rows[auth["order_id"]]
        assert [e["event"] for e in events] == ["Initial", "Update"]
        assert events[0]["status"] == "Submitted - Pending" and events[-1]["auth_number"] == auth["auth_number"]
        assert 0 <= auth["units_used"] <= auth["approved_units"]
    # Units used come from claims billed under the auth number: completed approved orders used some.
    assert any(a["units_used"] == a["approved_units"] for a in approved)
    pending = [a for a in snap["order_authorizations"] if a["status"] == "Submitted - Pending"]
    assert pending and all([e["event"] for e in rows[a["order_id"]]] == ["Initial"] for a in pending)


def test_save_writes_initial_then_update_rows(client, open_order):
    assert history(client, open_order.id) == []
    client.post(f"/orders/{open_order.id}/authorization", {"status": "Submitted - Pending", "payer_id": "PYR-NWH",
                                                          "reference_number": "CS12345678"})
    client.post(f"/orders/{open_order.id}/authorization", APPROVED)
    client.post(f"/orders/{open_order.id}/authorization", DENIED)
    rows = history(client, open_order.id)
    assert [(r["event"], r["status"]) for r in rows] == [
        ("Initial", "Submitted - Pending"), ("Update", "Approved"), ("Denial", "Denied")]
    assert rows[1]["auth_number"] == "NWH26-123456" and rows[1]["recorded_by"] == "coordinator"


def test_extension_units_increase_and_date_change(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", APPROVED)
    assert change(client, open_order.id, change="Extension", new_end_date="05/18/2027",
                  note="Extension approved, ref 555").status_code == 302
    assert change(client, open_order.id, change="Units increase", new_units="20").status_code == 302
    assert change(client, open_order.id, change="Date change", new_start_date="12/01/2026",
                  new_end_date="06/01/2027", new_auth_number="NWH26-999999").status_code == 302
    rows = history(client, open_order.id)
    assert [r["event"] for r in rows] == ["Initial", "Extension", "Units increase", "Date change"]
    assert (rows[1]["end_date"], rows[1]["note"]) == ("2027-05-18", "Extension approved, ref 555")
    assert rows[2]["approved_units"] == 20
    auth = auth_row(client, open_order.id)
    assert (auth["status"], auth["approved_units"], auth["start_date"], auth["end_date"], auth["auth_number"]) == \
        ("Approved", 20, "2026-12-01", "2027-06-01", "NWH26-999999")
    page = client.get(f"/orders/{open_order.id}").get_data(as_text=True)
    assert "Authorization history (4)" in page and "Units remaining" in page and "Units increase" in page


def test_cancellation_of_an_approved_auth(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", APPROVED)
    response = change(client, open_order.id, change="Cancellation", note="Patient cancelled the MRI.")
    assert response.status_code == 302
    assert auth_row(client, open_order.id)["status"] == "Cancelled"
    assert history(client, open_order.id)[-1]["event"] == "Cancellation"
    event = [e for e in client.snapshot()["audit_events"] if e["action"] == "change_authorization"][-1]
    assert event["detail"]["status_after"] == "Cancelled"


def test_withdrawal_of_a_pending_request(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", {"status": "Submitted - Pending", "payer_id": "PYR-NWH",
                                                          "reference_number": "CS12345678"})
    assert change(client, open_order.id, change="Withdrawal", note="Duplicate request.").status_code == 302
    assert auth_row(client, open_order.id)["status"] == "Withdrawn"
    assert [r["status"] for r in history(client, open_order.id)] == ["Submitted - Pending", "Withdrawn"]


EXPIRED = {**APPROVED, "start_date": "01/05/2026", "end_date": "04/05/2026"}


@pytest.mark.parametrize("setup, fields, message", [
    (EXPIRED, {"change": "Extension", "new_end_date": "12/31/2026"}, "expired on 04/05/2026"),
    (EXPIRED, {"change": "Units increase", "new_units": "30"}, "an expired authorization cannot be changed"),
    (APPROVED, {"change": "Extension", "new_end_date": "01/01/2027"}, "must be after the current end date"),
    (APPROVED, {"change": "Extension"}, "Enter the new end date"),
    (APPROVED, {"change": "Extension", "new_end_date": "05/01/2027", "new_units": "3"}, "cannot lower"),
    (APPROVED, {"change": "Units increase", "new_units": "12"}, "more than the 12 units approved"),
    (APPROVED, {"change": "Units increase", "new_units": "abc"}, "Enter a whole number from 1 to 999"),
    (APPROVED, {"change": "Date change", "new_start_date": "11/20/2026", "new_end_date": "02/18/2027"},
     "These are the dates on file already"),
    (APPROVED, {"change": "Date change", "new_start_date": "03/01/2027", "new_end_date": "02/01/2027"},
     "End date must be on or after the start date"),
    (APPROVED, {"change": "Withdrawal", "note": "x"}, "Cancel an approved authorization instead"),
    (APPROVED, {"change": "Cancellation"}, "Give the reason for the cancellation"),
    (DENIED, {"change": "Extension", "new_end_date": "05/01/2027"},
     "Extension: only an approved authorization can be changed; this one is Denied"),
    (DENIED, {"change": "Cancellation", "note": "x"}, "this one is Denied"),
    (APPROVED, {"change": "Renewal"}, "Not a valid choice"),
    (APPROVED, {"change": ""}, "Choose the change to record"),
    (APPROVED, {"change": "Extension", "new_end_date": "13/45/2027"}, "is not a valid date"),
])
def test_refused_changes_write_nothing(client, open_order, setup, fields, message):
    client.post(f"/orders/{open_order.id}/authorization", setup)
    before_auth, before_history = auth_row(client, open_order.id), history(client, open_order.id)
    response = change(client, open_order.id, **fields)
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and message in page and "This activity cannot be saved until these fields are corrected:" in page
    assert auth_row(client, open_order.id) == before_auth
    assert history(client, open_order.id) == before_history


@pytest.mark.parametrize("setup, fields, refused", [
    (APPROVED, {"change": "Cancellation", "note": "x", "new_units": "20"}, "new_units"),
    (APPROVED, {"change": "Cancellation", "note": "x", "new_end_date": "05/18/2027"}, "new_end_date"),
    (APPROVED, {"change": "Cancellation", "note": "x", "new_auth_number": "NWH26-999999"}, "new_auth_number"),
    (PENDING, {"change": "Withdrawal", "note": "x", "new_start_date": "12/01/2026"}, "new_start_date"),
    (PENDING, {"change": "Withdrawal", "note": "x", "new_units": "3"}, "new_units"),
])
def test_ending_changes_take_no_approval_terms(client, open_order, setup, fields, refused):
    client.post(f"/orders/{open_order.id}/authorization", setup)
    before_auth, before_history = auth_row(client, open_order.id), history(client, open_order.id)
    response = change(client, open_order.id, **fields)
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert f"{fields['change']} records no new units, dates or authorization number: clear this field." in page
    assert f'id="{refused}-error"' in page
    assert auth_row(client, open_order.id) == before_auth and history(client, open_order.id) == before_history


@pytest.mark.parametrize("fields, message", [
    ({"change": "Extension", "new_end_date": "05/18/2027", "new_start_date": "12/01/2026"},
     "Extension does not change the start date: clear this field (a date change records it)."),
    ({"change": "Units increase", "new_units": "20", "new_end_date": "05/18/2027"},
     "Units increase does not change the end date: clear this field (an extension or a date change records it)."),
    ({"change": "Date change", "new_start_date": "12/01/2026", "new_end_date": "06/01/2027", "new_units": "20"},
     "Date change does not change the approved units: clear this field (a units increase records it)."),
])
def test_a_change_takes_only_its_own_fields(client, open_order, fields, message):
    client.post(f"/orders/{open_order.id}/authorization", APPROVED)
    before_auth, before_history = auth_row(client, open_order.id), history(client, open_order.id)
    response = change(client, open_order.id, **fields)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert auth_row(client, open_order.id) == before_auth and history(client, open_order.id) == before_history


def test_main_form_cannot_skip_the_cancellation_rules(client, open_order):
    response = client.post(f"/orders/{open_order.id}/authorization", {**APPROVED, "status": "Withdrawn"})
    assert response.status_code == 422 and "Record a withdrawn authorization with" in response.get_data(as_text=True)
    assert history(client, open_order.id) == []


def test_the_saved_authorization_shows_in_its_form(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", APPROVED)
    page = client.get(f"/orders/{open_order.id}").get_data(as_text=True)
    assert 'value="NWH26-123456"' in page and 'value="CS12345678"' in page and 'value="12"' in page
    assert '<option selected value="Approved">' in page or 'value="Approved" selected' in page
