"""Portal B's Da Vinci PAS API over time: a resubmission is the portal's duplicate, and
`Claim/$inquire` answers a request as it stands, including a decision made later on the portal."""
from __future__ import annotations

import io

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import FormClient, build_app
from .test_portal_b_pas import (
    api_token,
    by_pas,
    call,
    claim_response,
    keystone_npi,
    pas_bundle,
    pdf_of,
    review_actions,
    task_order,
)


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def npi(app) -> str:
    return keystone_npi(FormClient(app))


@pytest.fixture
def client(app) -> FormClient:
    """A client of the module's app, not signed in (each test resets to its task)."""
    return FormClient(app)


def test_resubmission_opens_no_second_active_request(client, npi):
    order = task_order("pa-easy-01", npi)
    _, first = by_pas(client, "pa-easy-01", order)
    response, again = call(client, "/fhir/Claim/$submit", pas_bundle(order), api_token(client))
    second = claim_response(again)
    assert response.status_code == 200 and second.id != first.id
    assert review_actions(second) == [""] and first.id in second.disposition
    active = [r for r in client.snapshot()["precert_requests"]
              if r["subscriber_id"] == order.subscriber_id and r["status"] in ("Approved", "Pended")]
    assert [r["reference_number"] for r in active] == [first.id]


def inquire(client: FormClient, headers: dict, **parameters):
    body = {"resourceType": "Parameters",
            "parameter": [{"name": name, "valueString": value} for name, value in parameters.items()]}
    return call(client, "/fhir/Claim/$inquire", body, headers)


def test_inquire_follows_a_pended_request_to_its_later_decision(client, npi):
    order = task_order("pa-easy-01", npi, documents=())
    _, submitted = by_pas(client, "pa-easy-01", order)
    headers = api_token(client)
    response, answer_bundle = inquire(client, headers, subscriberId=order.subscriber_id, referenceNumber=submitted.id)
    pended = claim_response(answer_bundle)
    assert response.status_code == 200 and pended.outcome == "queued" and review_actions(pended) == ["A4"]
    assert "Upload: Clinical notes" in pended.disposition and "decision due" in pended.processNote[0].text
    # The coordinator sends the missing notes on the portal; the next inquiry sees the decision.
    client.login()
    client.post(f"/precertification/{submitted.id}/additional-information",
                {"document_type": "Clinical notes", "attachment": (io.BytesIO(pdf_of("Clinical notes")), "notes.pdf")},
                content_type="multipart/form-data")
    _, answer_bundle = inquire(client, headers, subscriberId=order.subscriber_id, referenceNumber=submitted.id)
    decided = claim_response(answer_bundle)
    assert decided.outcome == "complete" and review_actions(decided) == ["A1"] and decided.preAuthRef
    # By authorization number, in a PAS inquiry Bundle (the request's Claim echoed back).
    inquiry = pas_bundle(order)
    inquiry["entry"][0]["resource"]["insurance"][0]["preAuthRef"] = [decided.preAuthRef]
    response, answer_bundle = call(client, "/fhir/Claim/$inquire", inquiry, headers)
    assert response.status_code == 200 and claim_response(answer_bundle).id == submitted.id


def test_inquire_only_for_the_subscriber_of_the_request(client, npi):
    order = task_order("pa-easy-01", npi)
    _, submitted = by_pas(client, "pa-easy-01", order)
    response, outcome = inquire(client, api_token(client), subscriberId="KMH0000000", referenceNumber=submitted.id)
    assert response.status_code == 404 and outcome.issue[0].code == "not-found"
    response, outcome = inquire(client, api_token(client), subscriberId=order.subscriber_id)
    assert response.status_code == 400 and "referenceNumber or authorizationNumber" in outcome.issue[0].diagnostics
