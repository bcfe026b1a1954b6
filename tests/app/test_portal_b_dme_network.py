"""Payer portal B: DME same-or-similar duplicates (requests and precertifications on file) and the supplier network."""
from __future__ import annotations

from datetime import date, datetime

import pytest
from sqlalchemy import select

from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import DmeRequest, Plan, PrecertRequest, Subscriber, Supplier

from .conftest import build_app
from .test_portal_b_dme_appeals import data, dme_filed, submit_dme  # noqa: F401


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def network(app):
    """A CPAP authorization on file, a non-contracted supplier, and an HMO and a PPO subscriber."""
    with app.extensions["admindesk"].db.new_session() as session:
        cpap = session.scalars(select(DmeRequest).where(DmeRequest.hcpcs_code == "E0601", DmeRequest.source == "On file",
                                                        DmeRequest.status == "Approved")
                               .order_by(DmeRequest.order_date.desc())).first()
        outside = session.scalars(select(Supplier).where(Supplier.network_status == "Non-contracted")
                                  .order_by(Supplier.npi)).first()
        by_product = {}
        for subscriber in session.scalars(select(Subscriber).where(Subscriber.termination.is_(None))
                                          .order_by(Subscriber.subscriber_id)):
            by_product.setdefault(session.get(Plan, subscriber.plan_id).product, subscriber)
        result = {"cpap": cpap, "cpap_subscriber": session.get(Subscriber, cpap.subscriber_id), "outside": outside,
                  "hmo": by_product["HMO"], "ppo": by_product["PPO"]}
        session.expunge_all()
    return result


def as_subscriber(subscriber) -> dict:
    return {"subscriber_id": subscriber.subscriber_id, "subscriber_dob": subscriber.dob.strftime("%d-%b-%Y")}


def test_authorization_on_file_makes_a_dme_request_a_duplicate(client, data, network):  # noqa: F811
    submit_dme(client, data, **as_subscriber(network["cpap_subscriber"]), hcpcs_code="E0470")
    [item] = dme_filed(client)
    assert item["status"] == "Duplicate" and network["cpap"].request_id in item["decision_reason"]


def test_precertification_on_file_makes_a_dme_request_a_duplicate(client, data, network):  # noqa: F811
    """A DME item recorded as a precertification (made through the precertification form) is seen too."""
    subscriber = network["hmo"]
    with client.app.extensions["admindesk"].db.new_session() as session:
        session.add(PrecertRequest(
            reference_number="KM-P-26-000900", subscriber_id=subscriber.subscriber_id, patient_name="On file",
            service_code="E0601", units=1, diagnosis_codes=["G47.33"], rendering_npi=None, referring_npi=None,
            place_of_service="12", urgency="Standard", start_date=date(2026, 6, 1), end_date=date(2026, 12, 1),
            clinical={}, clinical_summary="", contact_name="", contact_phone="", policy_number="KM-DME-401",
            status="Approved", decision_reason="On file.", authorization_number="KMH26900900", approved_units=1,
            approved_start=date(2026, 6, 1), approved_end=date(2026, 12, 1), duplicate_of=None, source="On file",
            submitted_by=None, submitted_at=datetime(2026, 5, 28, 10, 0), updated_at=datetime(2026, 5, 28, 10, 0)))
        session.commit()
    submit_dme(client, data, **as_subscriber(subscriber), hcpcs_code="E0470")
    [item] = dme_filed(client)
    assert item["status"] == "Duplicate" and "Precertification KM-P-26-000900" in item["decision_reason"]


def test_same_or_similar_window_is_five_years(client, data):  # noqa: F811
    """A CPAP approved in 2020 does not block a replacement in 2026 (old rule: blocked forever)."""
    subscriber = data["subscriber"]
    with client.app.extensions["admindesk"].db.new_session() as session:
        session.add(DmeRequest(
            request_id="KM-D-20-000001", subscriber_id=subscriber.subscriber_id, patient_name=subscriber.full_name,
            hcpcs_code="E0601", quantity=1, diagnosis_codes=["G47.33"], ordering_npi=data["npi"],
            supplier_npi=data["supplier"], face_to_face_date=date(2020, 3, 1), order_date=date(2020, 3, 5),
            ahi=30.0, spo2_rest=None, spo2_exertion=None, status="Approved", decision_reason="On file.",
            authorization_number="KMH20900001", approved_months=3, submitted_by="coordinator",
            submitted_at=datetime(2020, 3, 5, 10, 0)))
        session.commit()
    submit_dme(client, data)
    assert [r["status"] for r in client.snapshot()["dme_requests"] if r["subscriber_id"] == subscriber.subscriber_id
            and r["source"] == "Portal"] == ["Approved", "Approved"]


def test_non_contracted_supplier_refused_on_hmo(client, data, network):  # noqa: F811
    before = client.snapshot()
    response = submit_dme(client, data, **as_subscriber(network["hmo"]), supplier_npi=network["outside"].npi)
    assert response.status_code == 422 and "has no out-of-network DME benefit" in response.get_data(as_text=True)
    for table in ("dme_requests", "attachments", "number_sequences"):
        assert client.snapshot()[table] == before[table]


def test_non_contracted_supplier_out_of_network_on_ppo(client, data, network):  # noqa: F811
    assert submit_dme(client, data, **as_subscriber(network["ppo"]),
                      supplier_npi=network["outside"].npi).status_code == 302
    [item] = dme_filed(client)
    assert item["supplier_network"] == "Out of network"
