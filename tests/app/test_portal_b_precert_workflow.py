"""Payer portal B: what happens to a precertification after it is filed, and Keystone's filing rules.

Withdraw, extension / date change / units increase, peer-to-peer scheduling, retro
authorization, urgency due times, multi-line requests and drug limits in billing units.
"""
from __future__ import annotations

import io
from datetime import timedelta

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_precert import NOTE_PDF, people, portal_requests, submit  # noqa: F401

WRITES = ("precert_requests", "precert_events", "precert_lines", "peer_to_peer_reviews", "number_sequences")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def only_request(client) -> dict:
    [item] = portal_requests(client)
    return item


def assert_refused(client, before, response, message):
    assert response.status_code == 422, response.location
    assert message in response.get_data(as_text=True)
    after = client.snapshot()
    for table in WRITES:
        assert after[table] == before[table], table


def change(client, reference, **fields):
    form = {"change_type": "Extension", "new_start": "", "new_end": "", "new_units": "",
            "reason": "Therapy delayed by a scheduling conflict at the imaging center.", **fields}
    return client.post(f"/precertification/{reference}/change", form)


def test_urgency_sets_the_decision_due_time(client, people):  # noqa: F811
    submit(client, people)
    submit(client, people, subscriber_id=people["other"].subscriber_id,
           subscriber_dob=people["other"].dob.strftime("%d-%b-%Y"), urgency="Urgent")
    standard, urgent = sorted(portal_requests(client), key=lambda r: r["reference_number"])
    assert standard["decision_due"] == "2026-12-01T09:00:00" and urgent["decision_due"] == "2026-11-19T09:00:00"
    [event, _] = client.snapshot()["precert_events"]
    assert event["event"] == "Submitted: Approved" and "Standard review" in event["detail"]


def test_drug_units_are_billing_units(client, people):  # noqa: F811
    """J3262 is billed per 1 mg: a 560 mg dose is 560 units, within Keystone's 800-unit limit (infused in the
    office: site-of-care policy KM-RX-510 asks a reason for the hospital)."""
    submit(client, people, service_code="J3262", units="560", diagnosis_codes="M05.79", place_of_service="11",
           conservative_therapy_weeks="16", document_type_2="Lab results",
           attachment_2=(io.BytesIO(NOTE_PDF), "tb-screen.pdf"))
    item = only_request(client)
    assert item["status"] == "Approved" and item["approved_units"] == 560


def test_extension_of_an_approval(client, people):  # noqa: F811
    submit(client, people)
    item = only_request(client)
    assert change(client, item["reference_number"], new_end="15-Jan-2027").status_code == 302
    changed = only_request(client)
    assert changed["approved_end"] == "2027-01-15"
    event = client.snapshot()["precert_events"][-1]
    assert event["event"] == "Extension approved" and event["changes"] == {"approved_end": ["2026-12-31", "2027-01-15"]}
    page = client.get(f"/precertification/{item['reference_number']}").get_data(as_text=True)
    assert "Extension approved" in page and "Status Timeline" in page
    assert_refused(client, client.snapshot(), change(client, item["reference_number"], new_end="20-Jan-2027"),
                   "one extension per precertification")


def test_units_increase_over_the_limit_and_date_change(client, people):  # noqa: F811
    submit(client, people)
    reference = only_request(client)["reference_number"]
    assert_refused(client, client.snapshot(), change(client, reference, change_type="Units increase", new_units="2"),
                   "over Keystone Mutual&#39;s limit of 1 billing units")
    assert change(client, reference, change_type="Date change", new_start="05-Dec-2026").status_code == 302
    moved = only_request(client)
    assert (moved["approved_start"], moved["approved_end"]) == ("2026-12-05", "2027-01-04")


def test_change_refused_for_expired_or_denied(client, people):  # noqa: F811
    on_file = people["on_file"]
    client.reset(f"{on_file.approved_end + timedelta(days=1)}T09:00:00")  # the day after it expired
    client.login()
    assert_refused(client, client.snapshot(), change(client, on_file.reference_number, new_end="01-Jul-2027"),
                   "expired on")
    client.reset()
    client.login()
    submit(client, people, diagnosis_codes="J45.909")
    denied = only_request(client)
    assert_refused(client, client.snapshot(), change(client, denied["reference_number"], new_end="01-Feb-2027"),
                   "only an approved request can be changed")


def test_withdraw(client, people):  # noqa: F811
    submit(client, people)
    reference = only_request(client)["reference_number"]
    response = client.post(f"/precertification/{reference}/withdraw", {"reason": "Procedure cancelled by patient."})
    assert response.status_code == 302 and only_request(client)["status"] == "Withdrawn"
    assert_refused(client, client.snapshot(), client.post(f"/precertification/{reference}/withdraw",
                                                          {"reason": "Second try at withdrawing."}),
                   "only a pended or approved request can be withdrawn")


def test_peer_to_peer_of_a_denial(client, people):  # noqa: F811
    submit(client, people, diagnosis_codes="J45.909")
    reference = only_request(client)["reference_number"]
    page = client.get(f"/precertification/{reference}").get_data(as_text=True)
    assert "17-Nov-2026 10:00 with Dr. Helen Marsh, MD (Medical Director)" in page
    form = {"slot": "2026-11-17T13:30", "physician_name": "Dr. Ana Ruiz", "callback_phone": "717-555-0100"}
    assert client.post(f"/precertification/{reference}/peer-to-peer", form).status_code == 302
    [review] = client.snapshot()["peer_to_peer_reviews"]
    assert (review["slot"], review["reviewer"], review["status"]) == (
        "2026-11-17T13:30:00", "Dr. Raj Patel, MD (Physician Reviewer)", "Scheduled")
    form["physician_name"] = "Dr. Ana Ruiz, MD"
    assert_refused(client, client.snapshot(), client.post(f"/precertification/{reference}/peer-to-peer", form),
                   "is already scheduled")


def test_peer_to_peer_refused_after_14_days(client):
    on_file = [r for r in client.snapshot()["precert_requests"] if r["status"] == "Denied" and r["source"] == "On file"]
    reference = on_file[0]["reference_number"]  # denied at its order date, weeks before 16-Nov-2026
    form = {"slot": "2026-11-17T10:00", "physician_name": "Dr. Ana Ruiz", "callback_phone": "717-555-0100"}
    assert_refused(client, client.snapshot(), client.post(f"/precertification/{reference}/peer-to-peer", form),
                   "within 14 calendar days of the denial")


@pytest.mark.parametrize("admission, start, message", [
    ("Elective", "13-Nov-2026", "only for emergent admissions"),
    ("Emergent", "10-Nov-2026", "within 2 business days of the admission on 10-Nov-2026 (by 12-Nov-2026)"),
])
def test_retro_requests_outside_the_rule_are_refused(client, people, admission, start, message):  # noqa: F811
    before = client.snapshot()
    response = submit(client, people, admission_type=admission, start_date=start)
    assert_refused(client, before, response, message)


def test_retro_emergent_admission_within_two_business_days(client, people):  # noqa: F811
    assert submit(client, people, admission_type="Emergent", start_date="12-Nov-2026").status_code == 302
    item = only_request(client)
    assert item["retro"] is True and item["admission_type"] == "Emergent"


def test_multi_line_request_is_decided_line_by_line(client, people):  # noqa: F811
    submit(client, people, service_code_2="99213", units_2="1", service_code_3="72149", units_3="")
    item = only_request(client)
    lines = [(line["service_code"], line["status"]) for line in client.snapshot()["precert_lines"]]
    assert lines == [("72148", "Approved"), ("99213", "Not Required"), ("72149", "Approved")]
    assert item["status"] == "Partially Approved" and item["authorization_number"]


def test_multi_line_refuses_a_fax_only_line(client, people):  # noqa: F811
    before = client.snapshot()
    assert_refused(client, before, submit(client, people, service_code_2="95810"), "must be requested by fax")
