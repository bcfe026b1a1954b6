"""The EHR's staff messages: from an order (or a work item) the desk writes to the ordering
clinician with the patient and order attached; a form error writes nothing and keeps what
was typed; the In Basket's Sent list shows the user's own messages only."""
from __future__ import annotations

import pytest

from admindesk.envs.ehr_web import create_app

from .conftest import FormClient, build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def text(response) -> str:
    return response.get_data(as_text=True)


def an_open_order(snapshot: dict) -> dict:
    return next(o for o in snapshot["orders"] if o["status"] not in ("Completed", "Cancelled"))


def test_an_order_s_message_form_is_addressed_to_its_ordering_provider(client):
    order = an_open_order(client.snapshot())
    assert "Message provider" in text(client.get(f"/orders/{order['id']}"))
    page = text(client.get(f"/patients/{order['mrn']}/messages/new?order_id={order['id']}"))
    assert f'<option selected value="{order["ordering_npi"]}">' in page
    assert f'<option selected value="{order["id"]}">' in page


def test_a_sent_message_is_stored_with_its_patient_and_order_and_listed_as_sent(client):
    snapshot = client.snapshot()
    order = an_open_order(snapshot)
    before = len(snapshot["staff_messages"])
    response = client.post(f"/patients/{order['mrn']}/messages/new", {
        "to_npi": order["ordering_npi"], "message_type": "Peer-to-peer requested", "priority": "High",
        "order_id": order["id"], "subject": "Peer-to-peer offered by the payer",
        "body": "The payer offers a peer-to-peer on 12/08 at 10:30; please call the number on the letter."},
        follow_redirects=True)
    assert response.status_code == 200 and "Message sent to" in text(response)
    [message] = client.snapshot()["staff_messages"][before:]
    assert (message["to_npi"], message["mrn"], message["order_id"], message["priority"], message["sender"]) == (
        order["ordering_npi"], order["mrn"], order["id"], "High", "coordinator")
    listing = text(client.get("/in-basket/sent"))
    assert "Peer-to-peer offered by the payer" in listing and f'/in-basket/sent/{message["id"]}' in listing


def test_a_message_with_errors_writes_nothing_and_keeps_what_was_typed(client):
    snapshot = client.snapshot()
    order = an_open_order(snapshot)
    other = next(o for o in snapshot["orders"] if o["mrn"] != order["mrn"])
    response = client.post(f"/patients/{order['mrn']}/messages/new", {
        "to_npi": "", "message_type": "Signature needed", "priority": "Routine", "order_id": other["id"],
        "subject": "Order needs your signature", "body": ""})
    page = text(response)
    assert response.status_code == 422
    assert "Choose the clinician to send it to." in page and "Write the message." in page
    assert "Not a valid choice" in page  # another patient's order is no choice here
    assert 'value="Order needs your signature"' in page
    assert client.snapshot()["staff_messages"] == snapshot["staff_messages"]


def test_another_user_s_sent_message_is_not_shown(app, client):
    order = an_open_order(client.snapshot())
    client.post(f"/patients/{order['mrn']}/messages/new", {
        "to_npi": order["ordering_npi"], "message_type": "FYI", "priority": "Routine", "order_id": "",
        "subject": "For your information", "body": "The payer approved the request."})
    message_id = client.snapshot()["staff_messages"][-1]["id"]
    other = FormClient(app)
    other.login("mreyes")
    assert other.get(f"/in-basket/sent/{message_id}").status_code == 404
    assert "For your information" not in text(other.get("/in-basket/sent"))
