"""Payer portal B: the outcome of a held peer-to-peer review; an overturn approves the precertification."""
from __future__ import annotations

import pytest

from admindesk.envs.common.clock import CLOCK_KEY
from admindesk.envs.common.state.kit_models import BenchState
from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_precert import people, submit  # noqa: F401
from .test_portal_b_precert_workflow import assert_refused, only_request

SLOT = {"slot": "2026-11-17T13:30", "physician_name": "Dr. Ana Ruiz", "callback_phone": "717-555-0100"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture
def scheduled(client, people):  # noqa: F811
    """A denied request with a peer-to-peer scheduled 17-Nov-2026 13:30 (the clock reads 16-Nov 09:00)."""
    submit(client, people, diagnosis_codes="J45.909")
    reference = only_request(client)["reference_number"]
    assert client.post(f"/precertification/{reference}/peer-to-peer", SLOT).status_code == 302
    [review] = client.snapshot()["peer_to_peer_reviews"]
    return reference, review["p2p_id"]


def move_clock(app, when: str) -> None:
    """Time passes within the episode: the frozen clock moves on, the data stays."""
    with app.extensions["admindesk"].db.new_session() as session:
        session.merge(BenchState(key=CLOCK_KEY, value=when))
        session.commit()


def record(client, reference, p2p_id, outcome, note="Reviewer agreed after the call."):
    return client.post(f"/precertification/{reference}/peer-to-peer/{p2p_id}/outcome",
                       {"outcome": outcome, "note": note})


def test_outcome_before_the_call_is_refused(client, scheduled):
    reference, p2p_id = scheduled
    assert "Record Peer-to-Peer Outcome" in client.get(f"/precertification/{reference}").get_data(as_text=True)
    assert_refused(client, client.snapshot(), record(client, reference, p2p_id, "Overturned"),
                   "record its outcome after the call")
    assert_refused(client, client.snapshot(), record(client, reference, p2p_id, ""), "Select the outcome of the call.")


def test_overturned_peer_to_peer_approves_the_request(app, client, scheduled):
    reference, p2p_id = scheduled
    move_clock(app, "2026-11-17T15:00:00")
    assert record(client, reference, p2p_id, "Overturned").status_code == 302
    [review] = client.snapshot()["peer_to_peer_reviews"]
    assert (review["status"], review["outcome"]) == ("Held", "Overturned")
    item = only_request(client)
    assert item["status"] == "Approved" and item["authorization_number"] and item["approved_start"] == "2026-12-01"
    events = [(e["event"], e["changes"]) for e in client.snapshot()["precert_events"]][-2:]
    assert events == [("Peer-to-peer overturned", {}), ("Approved", {"status": ["Denied", "Approved"]})]
    assert_refused(client, client.snapshot(), record(client, reference, p2p_id, "Upheld", "Second outcome entry."),
                   "its outcome is already on file")


def test_upheld_and_withdrawn_leave_the_denial(app, client, scheduled):
    reference, p2p_id = scheduled
    assert record(client, reference, p2p_id, "Withdrawn", "Physician unavailable.").status_code == 302
    [review] = client.snapshot()["peer_to_peer_reviews"]
    assert (review["status"], review["outcome"]) == ("Withdrawn", "Withdrawn")
    assert only_request(client)["status"] == "Denied"
    second_slot = {**SLOT, "slot": "2026-11-18T10:00"}
    assert client.post(f"/precertification/{reference}/peer-to-peer", second_slot).status_code == 302
    second = client.snapshot()["peer_to_peer_reviews"][-1]["p2p_id"]
    move_clock(app, "2026-11-18T11:00:00")
    assert record(client, reference, second, "Upheld").status_code == 302
    assert client.snapshot()["peer_to_peer_reviews"][-1]["outcome"] == "Upheld"
    assert only_request(client)["status"] == "Denied"
