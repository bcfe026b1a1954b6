"""The order's authorization records the code a payer approved when it is not the order's (a
modified approval, e.g. 72148 for an ordered 72158): a code on file, only with Approved, kept
only when it differs from the order's, and carried into the authorization history."""
from __future__ import annotations

import pytest

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Order

from .conftest import build_app


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)



APPROVED = {"status": "Approved", "payer_id": "PYR-NWH", "auth_number": "NWH26-123456",
            "reference_number": "CS12345678", "approved_units": "1", "start_date": "11/20/2026",
            "end_date": "01/18/2027"}


def other_code(order: Order) -> str:
    return "72148" if order.code != "72148" else "72141"


def auth_row(client, order_id) -> dict:
    return next(r for r in client.snapshot()["order_authorizations"] if r["order_id"] == order_id)


def test_an_approved_code_other_than_the_orders_is_kept_and_in_the_history(client, open_order):
    code = other_code(open_order)
    response = client.post(f"/orders/{open_order.id}/authorization", {**APPROVED, "approved_code": code.lower()})
    assert response.status_code == 302
    assert auth_row(client, open_order.id)["approved_code"] == code
    [row] = [r for r in client.snapshot()["authorization_history"] if r["order_id"] == open_order.id]
    assert row["approved_code"] == code
    page = client.get(f"/orders/{open_order.id}").get_data(as_text=True)
    assert f"of {code} (ordered {open_order.code})" in page


def test_the_orders_own_code_is_not_kept_as_another(client, open_order):
    client.post(f"/orders/{open_order.id}/authorization", {**APPROVED, "approved_code": open_order.code})
    row = auth_row(client, open_order.id)
    assert row["status"] == "Approved" and row["approved_code"] is None


@pytest.mark.parametrize("fields,message", [
    ({"approved_code": "99999"}, "99999 is not a CPT/HCPCS code on file."),
    ({"status": "Submitted - Pending", "auth_number": "", "approved_units": "", "start_date": "", "end_date": "",
      "approved_code": "72148"}, "An approved code is recorded only with the status Approved."),
])
def test_an_approved_code_is_refused_when_it_is_not_one(client, open_order, fields, message):
    response = client.post(f"/orders/{open_order.id}/authorization", {**APPROVED, **fields})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert auth_row(client, open_order.id)["status"] == "Not Started"
