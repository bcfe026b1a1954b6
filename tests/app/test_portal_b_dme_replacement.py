"""Payer portal B: Keystone's replacement rule (KM-DME-401/404): the useful lifetime counts from
the delivery of the item replaced; within it only an incident, documented, is covered; RA."""
from __future__ import annotations

from datetime import date, datetime

import pytest
from sqlalchemy import select

from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import DmeRequest
from admindesk.envs.payer_portal_b.rules.dme_rules import useful_lifetime_end

from .conftest import build_app
from .test_portal_b_dme_appeals import LETTER_PDF, data, pdf, submit_dme  # noqa: F401


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def filed(client) -> list[dict]:
    return [r for r in client.snapshot()["dme_requests"] if r["source"] == "Portal"]


def delivered_device(app, data, delivered: date | None) -> str:  # noqa: F811
    """A CPAP approved before the portal's history (on file) that the supplier delivered on `delivered`."""
    subscriber = data["subscriber"]
    with app.extensions["admindesk"].db.new_session() as session:
        request_id = f"KM-P-21-{len(list(session.scalars(select(DmeRequest)))) + 90000000}"
        session.add(DmeRequest(
            request_id=request_id, subscriber_id=subscriber.subscriber_id, patient_name=subscriber.full_name,
            hcpcs_code="E0601", quantity=1, diagnosis_codes=["G47.33"], ordering_npi=data["npi"],
            supplier_npi=data["supplier"], face_to_face_date=date(2021, 9, 20), order_date=date(2021, 10, 18),
            ahi=24.6, status="Approved", decision_reason="Meets medical policy criteria.",
            authorization_number="KMH21000001", submitted_by="", submitted_at=datetime(2021, 10, 18, 10),
            source="On file", delivered_on=delivered))
        session.commit()
    return request_id


def replace(client, data, prior: str, **changes):  # noqa: F811
    """A replacement of `prior` ordered 05-Nov-2026 after a visit on 01-Nov, the police report attached."""
    form = {"request_kind": "Replacement", "initial_request_id": prior, "replacement_reason": "Theft",
            "replacement_date": "30-Nov-2026", "modifier": "ra", "ahi": "", "sleep_test_date": "",
            "document_type_2": "Loss, theft or damage report", "attachment_2": pdf(LETTER_PDF, "police.pdf"),
            **changes}
    return submit_dme(client, data, **form)


@pytest.mark.parametrize("delivered, changes, status, reason", [
    (date(2023, 5, 19), {}, "Approved", "Replacement (Theft) meets medical policy KM-DME-401; approved for a "
                                        "3-month rental, billed with modifier RA."),
    # Ordered in 2021 but delivered 10-Jan-2022: the lifetime runs past the planned replacement.
    (date(2022, 1, 10), {"replacement_reason": "Reasonable useful lifetime ended"}, "Denied",
     "delivered on 10-Jan-2022 runs until 10-Jan-2027. Before then a replacement is covered only for loss, theft"),
    (date(2021, 11, 30), {"replacement_reason": "Reasonable useful lifetime ended", "document_type_2": "Other"},
     "Approved", "Replacement (Reasonable useful lifetime ended)"),
    (date(2023, 5, 19), {"document_type_2": "Clinical notes"}, "Pended", "Upload: Loss, theft or damage report"),
    (date(2021, 6, 1), {"replacement_reason": "Reasonable useful lifetime ended", "face_to_face_date": "01-Mar-2026"},
     "Denied", "more than 6 months before the order date"),
])
def test_replacement_rule(app, client, data, delivered, changes, status, reason):  # noqa: F811
    prior = delivered_device(app, data, delivered)
    response = replace(client, data, prior, **changes)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    item = filed(client)[-1]
    assert item["status"] == status and reason in item["decision_reason"], item["decision_reason"]
    assert (item["request_kind"], item["initial_request_id"], item["modifier"]) == ("Replacement", prior, "RA")
    page = client.get(response.location).get_data(as_text=True)
    assert f"Replacement of {prior}" in page and "modifier RA" in page


def test_an_initial_request_for_the_same_item_is_a_duplicate(app, client, data):  # noqa: F811
    delivered_device(app, data, date(2023, 5, 19))
    assert submit_dme(client, data, face_to_face_date="02-Nov-2026").status_code == 302
    assert filed(client)[-1]["status"] == "Duplicate"


def test_replacement_refusals_write_nothing(app, client, data):  # noqa: F811
    undelivered = delivered_device(app, data, None)
    before = client.snapshot()
    for prior, changes, message in [
        (undelivered, {}, "is not an approved, delivered DME request"),
        ("KM-D-26-009999", {}, "is not an approved, delivered DME request"),
        (undelivered, {"modifier": ""}, "billed with HCPCS modifier RA"),
        (undelivered, {"replacement_reason": ""}, "A replacement request needs the DME request ID"),
        (undelivered, {"hcpcs_code": "K0001", "diagnosis_codes": "R26.81"}, "for the same or similar equipment"),
    ]:
        response = replace(client, data, prior, **changes)
        assert response.status_code == 422 and message in response.get_data(as_text=True), message
    after = client.snapshot()
    assert after["dme_requests"] == before["dme_requests"] and after["attachments"] == before["attachments"]


def test_the_lifetime_counts_five_years_from_delivery():
    assert useful_lifetime_end(date(2022, 1, 10)) == date(2027, 1, 10)
    assert useful_lifetime_end(date(2024, 2, 29)) == date(2029, 3, 1)


def test_the_request_page_shows_the_delivery(app, client, data):  # noqa: F811
    prior = delivered_device(app, data, date(2022, 1, 10))
    page = client.get(f"/dme/{prior}").get_data(as_text=True)
    assert "<dt>Delivered</dt><dd>10-Jan-2022 (supplier's claim)</dd>" in page
