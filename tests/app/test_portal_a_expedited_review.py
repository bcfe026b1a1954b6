"""Portal A's review timeframe on a prior-auth request: an expedited request names its attesting
physician and clinical reason (or is refused with a message), the payer records both with a 72-hour
due time; a standard request keeps neither and is due in 7 calendar days; the manual defines urgency."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from admindesk.envs.payer_portal_a import create_app

from .conftest import build_app
from .test_portal_a_support import active_member, build_draft, request_by_id

REASON = "Rapidly enlarging mediastinal mass with early SVC compression; chemotherapy waits on staging."


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _submit(client, request_id: int, **fields):
    return client.post(f"/authorizations/requests/{request_id}/submit", {"attest": "y", **fields})


@pytest.mark.parametrize("fields, message", [
    ({}, "An expedited request names the treating physician who attests to the urgency."),
    ({"attesting_physician": "Robert Becker, MD"}, "An expedited request states the clinical reason"),
    ({"expedited_reason": REASON}, "An expedited request names the treating physician"),
])
def test_expedited_request_without_physician_or_reason_is_refused(client, snap, fields, message):
    request_id = build_draft(client, snap, active_member(snap))
    response = _submit(client, request_id, urgency="Expedited", **fields)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert request_by_id(client.snapshot(), request_id)["status"] == "Draft"


def test_expedited_request_records_the_attestation_and_a_72_hour_due_time(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    response = _submit(client, request_id, urgency="Expedited", attesting_physician=" Robert Becker, MD ",
                       expedited_reason=REASON)
    assert response.status_code == 302
    case = request_by_id(client.snapshot(), request_id)
    assert (case["urgency"], case["expedited_attested_by"], case["expedited_reason"]) == (
        "Expedited", "Robert Becker, MD", REASON)
    due = datetime.fromisoformat(case["decision_due_at"]) - datetime.fromisoformat(case["submitted_at"])
    assert due == timedelta(hours=72)
    page = client.get(response.location).get_data(as_text=True)
    assert "Urgency attested by" in page and "Robert Becker, MD" in page and "early SVC compression" in page


def test_standard_request_keeps_no_attestation_and_is_due_in_7_days(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    assert _submit(client, request_id, urgency="Standard", attesting_physician="Robert Becker, MD",
                   expedited_reason="Patient travels soon.").status_code == 302
    case = request_by_id(client.snapshot(), request_id)
    assert (case["urgency"], case["expedited_attested_by"], case["expedited_reason"]) == ("Standard", None, None)
    due = datetime.fromisoformat(case["decision_due_at"]) - datetime.fromisoformat(case["submitted_at"])
    assert due == timedelta(days=7)


def test_review_step_and_manual_state_what_expedited_review_is_for(client, snap):
    request_id = build_draft(client, snap, active_member(snap))
    review = client.get(f"/authorizations/requests/{request_id}/review").get_data(as_text=True)
    assert 'name="attesting_physician"' in review and 'name="expedited_reason"' in review
    manual = client.get("/payers/PYR-NWH?tab=manual").get_data(as_text=True)
    assert "seriously jeopardize the member&#39;s life or health or ability to regain maximum function" in manual
    assert "processed as standard" in manual and "travel plans" in manual
