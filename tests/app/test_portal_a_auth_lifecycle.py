"""Portal A prior-auth lifecycle: withdraw, extension / date change / units increase,
peer-to-peer with scheduling, pre-service appeal, urgency due times, retro-authorization
rules and multi-line requests decided line by line."""
from __future__ import annotations

import io
from datetime import date, datetime, timedelta

import pytest

from admindesk.envs.payer_portal_a import create_app
from admindesk.envs.payer_portal_a.policy import load_policy
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for

from .conftest import build_app
from .test_portal_a_support import (
    LUMBAR_MET,
    LUMBAR_NOT_MET,
    NOW,
    approved_lumbar_case,
    build_draft,
    case_with_status,
    lines_of,
    pdf_file,
    request_by_id,
    submit,
    us,
)

TABLES = ("pa_requests", "pa_service_lines", "pa_status_events", "letters", "auth_changes", "peer_to_peer",
          "auth_appeals")


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def _rows(snapshot) -> dict:
    return {table: snapshot[table] for table in TABLES}


def _member(snap, payer_id: str) -> dict:
    busy = {r["member_id"] for r in snap["pa_requests"]}
    return next(m for m in snap["members"] if m["payer_id"] == payer_id and m["termination"] is None
                and m["member_id"] not in busy and m["effective"] < "2025-06-01")


def _denied_case(client, snap, payer_id: str = "PYR-NWH") -> dict:
    request_id = build_draft(client, snap, _member(snap, payer_id), answers=LUMBAR_NOT_MET)
    assert submit(client, request_id).status_code == 302
    case = request_by_id(client.snapshot(), request_id)
    assert case["status"] == "Denied"
    return case


# ---- withdraw -------------------------------------------------------------------------------
def test_withdraw_a_pended_request(client, snap):
    case = case_with_status(snap, "Pended")
    page = client.get(f"/authorizations/cases/{case['case_number']}").get_data(as_text=True)
    assert "Withdraw request" in page
    response = client.post(f"/authorizations/cases/{case['case_number']}/withdraw", {"reason": "Service cancelled"})
    assert response.status_code == 302
    after = client.snapshot()
    row = request_by_id(after, case["id"])
    assert row["status"] == "Withdrawn" and "Service cancelled" in row["decision_reason"]
    assert {line["status"] for line in lines_of(after, case["id"])} == {"Withdrawn"}
    assert any(letter["subject"] == f"Request withdrawn - case {case['case_number']}" for letter in after["letters"])


@pytest.mark.parametrize("status", ["Approved", "Denied"])
def test_withdraw_is_refused_unless_pending(client, snap, status):
    case = case_with_status(snap, status)
    response = client.post(f"/authorizations/cases/{case['case_number']}/withdraw", {"reason": "No longer needed"})
    assert response.status_code == 422 and "Only a pending request can be withdrawn" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == _rows(snap)


# ---- changes to an approved auth --------------------------------------------------------------
def _change(client, case, **data):
    form = {"kind": "Extension", "line_no": "1", "reason": "Scheduling delay", **data}
    return client.post(f"/authorizations/cases/{case['case_number']}/change", form)


def test_extension_and_date_change_of_an_approved_auth(client, snap):
    case, line = approved_lumbar_case(snap)
    start = date.fromisoformat(case["approved_start"])
    new_end = start + timedelta(days=100)
    assert _change(client, case, new_end=us(new_end)).status_code == 302
    after = client.snapshot()
    change = after["auth_changes"][0]
    assert (change["kind"], change["status"], change["new_end"], change["old_end"]) == (
        "Extension", "Approved", new_end.isoformat(), case["approved_end"])
    assert request_by_id(after, case["id"])["approved_end"] == new_end.isoformat()
    assert any(row["subject"] == f"Authorization updated - {case['auth_number']}" for row in after["letters"])
    moved = (NOW + timedelta(days=10), NOW + timedelta(days=40))
    assert _change(client, case, kind="Date change", new_start=us(moved[0]), new_end=us(moved[1]),
                   reason="Patient rescheduled").status_code == 302
    line_after = lines_of(client.snapshot(), case["id"])[0]
    assert (line_after["approved_start"], line_after["approved_end"]) == tuple(d.isoformat() for d in moved)


@pytest.mark.parametrize("data, message", [
    ({"new_end": "01/01/2030"}, "allows one extension of at most 60 days for 72148"),
    ({"kind": "Units increase", "new_units": "2"}, "allows at most 1 unit(s) of 72148"),
    ({"kind": "Date change", "new_start": "01/01/2026", "new_end": "01/30/2026"}, "cannot be in the past"),
    ({"kind": ""}, "Select the change requested."),
    ({"reason": ""}, "Enter the reason for the change."),
])
def test_change_beyond_policy_or_bad_input_changes_nothing(client, snap, data, message):
    case, _ = approved_lumbar_case(snap)
    response = _change(client, case, **data)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == _rows(snap)


def test_change_refused_for_expired_and_denied_auths(client, snap):
    expired = next(r for r in snap["pa_requests"] if r["status"] == "Approved" and r["approved_end"] < NOW.isoformat())
    page = client.get(f"/authorizations/cases/{expired['case_number']}/change").get_data(as_text=True)
    assert f"expired on {us(expired['approved_end'])}" in page
    response = _change(client, expired, new_end="12/31/2026")
    assert response.status_code == 422 and "expired" in response.get_data(as_text=True)
    denied = case_with_status(snap, "Denied")
    response = _change(client, denied, new_end="12/31/2026")
    assert response.status_code == 422 and "Only an approved authorization can be changed" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == _rows(snap)


def _case_with_room_for_units(snap) -> dict:
    """A seeded approval still running whose policy grants more units than it holds."""
    active = {m["coverage_id"] for m in snap["members"] if m["termination"] is None}
    for case in snap["pa_requests"]:
        lines = lines_of(snap, case["id"])
        service = load_policy().service(lines[0]["code"]) if lines else None
        if (case["status"] == "Approved" and case["coverage_id"] in active and case["approved_end"] > NOW.isoformat()
                and service and service.approval_units and case["approved_units"] < service.approval_units):
            return case
    raise LookupError("no running approval with room for more units")


def test_units_increase_is_reviewed_on_the_attached_note(client, snap):
    case = _case_with_room_for_units(snap)
    more = str(case["approved_units"] + 1)
    response = _change(client, case, kind="Units increase", new_units=more)
    assert response.status_code == 422 and "note that orders the added units: attach it" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == _rows(snap)
    page = client.post(f"/authorizations/cases/{case['case_number']}/change",
                       {"kind": "Units increase", "line_no": "1", "reason": "Plan of care extended", "new_units": more,
                        "file": pdf_file()}, content_type="multipart/form-data").get_data(as_text=True)
    assert "Select the type of the supporting document." in page
    assert _rows(client.snapshot()) == _rows(snap)
    stream, name = pdf_file("re-evaluation.pdf")
    response = client.post(f"/authorizations/cases/{case['case_number']}/change",
                           {"kind": "Units increase", "line_no": "1", "reason": "Plan of care extended",
                            "new_units": more, "document_type": "Clinical notes", "file": (stream, name)},
                           content_type="multipart/form-data")
    assert response.status_code == 302
    after = client.snapshot()
    assert request_by_id(after, case["id"])["approved_units"] == int(more)
    attached = [a for a in after["pa_attachments"] if a["request_id"] == case["id"] and a["stage"] == "Change request"]
    assert [(a["document_type"], a["file_name"]) for a in attached] == [("Clinical notes", "re-evaluation.pdf")]


# ---- peer to peer and pre-service appeal ----------------------------------------------------------
def test_peer_to_peer_offers_slots_then_schedules_a_reviewer(client, snap):
    case = _denied_case(client, snap)
    response = client.post(f"/authorizations/cases/{case['case_number']}/peer-to-peer",
                           {"physician_name": "Dr. Ana Ruiz", "callback_phone": "(717) 555-0142"})
    assert response.status_code == 302
    call = client.snapshot()["peer_to_peer"][0]
    assert call["status"] == "Slots Offered" and len(call["offered_slots"]) == 3
    assert all(datetime.fromisoformat(slot).weekday() < 5 and slot > NOW.isoformat() for slot in call["offered_slots"])
    page = client.get(response.location).get_data(as_text=True)
    assert "Book this time" in page
    bad = client.post(response.location, {"slot": "2026-12-25T03:00:00"})
    assert bad.status_code == 422 and "Choose one of the offered slots." in bad.get_data(as_text=True)
    chosen = call["offered_slots"][1]
    assert client.post(response.location, {"slot": chosen}).status_code == 302
    booked = client.snapshot()["peer_to_peer"][0]
    assert (booked["status"], booked["scheduled_at"]) == ("Scheduled", chosen)
    assert booked["reviewer_name"] == rules_for("PYR-NWH").medical_directors[1]
    again = client.post(f"/authorizations/cases/{case['case_number']}/peer-to-peer",
                        {"physician_name": "Dr. Ana Ruiz", "callback_phone": "7175550142"})
    assert again.status_code == 422 and "already scheduled" in again.get_data(as_text=True)


def test_peer_to_peer_refused_for_an_approved_case(client, snap):
    case = case_with_status(snap, "Approved")
    response = client.post(f"/authorizations/cases/{case['case_number']}/peer-to-peer",
                           {"physician_name": "Dr. Ana Ruiz", "callback_phone": "7175550142"})
    assert response.status_code == 422 and "for a denied request only" in response.get_data(as_text=True)
    assert _rows(client.snapshot()) == _rows(snap)


def test_expedited_preservice_appeal_is_due_in_72_hours(client, snap):
    case = _denied_case(client, snap, "PYR-CSH")  # a payer that decides pre-service appeals when due
    url = f"/authorizations/cases/{case['case_number']}/appeal"
    data = {"urgency": "Expedited", "argument": "Progressive weakness documented on 11/10.",
            "contact_name": "Jordan Ellis", "contact_phone": "7175550100"}
    assert client.post(url, data).status_code == 302
    appeal = client.snapshot()["auth_appeals"][0]
    assert (appeal["status"], appeal["urgency"]) == ("In Review", "Expedited")
    assert appeal["decision_due_at"] == (datetime.fromisoformat(appeal["submitted_at"]) + timedelta(hours=72)).isoformat()
    before = _rows(client.snapshot())
    again = client.post(url, {**data, "argument": "Second try"})
    assert again.status_code == 422 and "already in review" in again.get_data(as_text=True)
    approved = case_with_status(snap, "Approved")
    refused = client.post(f"/authorizations/cases/{approved['case_number']}/appeal", data)
    assert refused.status_code == 422 and "on a denied request only" in refused.get_data(as_text=True)
    assert _rows(client.snapshot()) == before


def test_preservice_appeal_files_its_supporting_document_to_the_case(client, snap):
    case = _denied_case(client, snap, "PYR-CSH")
    url = f"/authorizations/cases/{case['case_number']}/appeal"
    data = {"urgency": "Standard", "argument": "The follow-up note of 11/12 documents five weeks of therapy.",
            "contact_name": "Jordan Ellis", "contact_phone": "7175550100"}
    before = _rows(client.snapshot())
    not_a_pdf = (io.BytesIO(b"not a pdf"), "note.pdf")
    for extra, message in (({"document_type": "Clinical notes"}, "Choose the PDF to send"),
                           ({"file": pdf_file()}, "Select the type of the supporting document"),
                           ({"document_type": "Clinical notes", "file": not_a_pdf}, "PDF")):
        refused = client.post(url, {**data, **extra}, content_type="multipart/form-data")
        assert refused.status_code == 422 and message in refused.get_data(as_text=True)
        assert _rows(client.snapshot()) == before
    stream, name = pdf_file("followup.pdf", "Follow-up visit")
    filed = client.post(url, {**data, "document_type": "Clinical notes", "file": (stream, name)},
                        content_type="multipart/form-data")
    assert filed.status_code == 302, filed.get_data(as_text=True)
    after = client.snapshot()
    sent = [a for a in after["pa_attachments"] if a["request_id"] == case["id"] and a["stage"] == "Pre-service appeal"]
    assert [(a["file_name"], a["document_type"]) for a in sent] == [("followup.pdf", "Clinical notes")]
    assert [a["status"] for a in after["auth_appeals"] if a["case_number"] == case["case_number"]] == ["In Review"]
    documents = client.get(f"/authorizations/cases/{case['case_number']}?tab=documents").get_data(as_text=True)
    assert "followup.pdf" in documents and "Pre-service appeal" in documents


# ---- urgency, retro authorization, multi-line ---------------------------------------------------
@pytest.mark.parametrize("urgency, due", [("Standard", timedelta(days=7)), ("Expedited", timedelta(hours=72))])
def test_urgency_sets_the_decision_due_time(client, snap, urgency, due):
    request_id = build_draft(client, snap, _member(snap, "PYR-NWH"))
    # An expedited request names its attesting physician and clinical reason (a standard one needs neither).
    attestation = {"attesting_physician": "Dr. Robert Becker", "expedited_reason": "New cord compression signs"}
    fields = {"attest": "y", "urgency": urgency, **(attestation if urgency == "Expedited" else {})}
    assert client.post(f"/authorizations/requests/{request_id}/submit", fields).status_code == 302
    case = request_by_id(client.snapshot(), request_id)
    assert case["urgency"] == urgency
    assert case["decision_due_at"] == (datetime.fromisoformat(case["submitted_at"]) + due).isoformat()
    assert us(case["decision_due_at"][:10]) in client.get(f"/authorizations/cases/{case['case_number']}").get_data(as_text=True)


@pytest.mark.parametrize("payer_id, days_ago, emergent, refusal", [
    ("PYR-NWH", 10, False, None),
    ("PYR-NWH", 20, False, "was 20 days ago"),
    ("PYR-CSH", 2, False, "not attested as emergent"),
    ("PYR-CSH", 2, True, None),
    ("PYR-HSA", 1, True, "does not accept retro-authorization requests"),
])
def test_retro_authorization_follows_the_payer_rule(client, snap, payer_id, days_ago, emergent, refusal):
    service_day = NOW - timedelta(days=days_ago)
    request_id = build_draft(client, snap, _member(snap, payer_id), start=us(service_day), end=us(service_day))
    before = _rows(client.snapshot())
    data = {"attest": "y", **({"emergent": "y"} if emergent else {})}
    response = client.post(f"/authorizations/requests/{request_id}/submit", data)
    if refusal:
        text = response.get_data(as_text=True)
        assert response.status_code == 422 and refusal in text and rules_for(payer_id).retro_rule_text() in text
        assert _rows(client.snapshot()) == before
    else:
        assert response.status_code == 302
        case = request_by_id(client.snapshot(), request_id)
        assert case["retro"] is True and case["emergent"] is emergent and case["case_number"]


def test_multi_line_request_decides_each_line(client, snap):
    member = _member(snap, "PYR-NWH")
    answers = {**LUMBAR_MET, "symptom_duration_months": "1", "focal_neurologic_deficit": "No", "known_condition": "No"}
    request_id = build_draft(client, snap, member)
    base = f"/authorizations/requests/{request_id}"
    assert client.post(f"{base}/services/add", {"code": "70553", "units": "1", "diagnosis_codes": "R51.9",
                                                "from_date": "12/01/2026", "to_date": "12/31/2026",
                                                "place_of_service": "22"}).status_code == 302
    page = client.get(f"{base}/questionnaire").get_data(as_text=True)
    assert "Weeks of conservative therapy" in page and "Duration of symptoms (months)" in page
    assert client.post(f"{base}/questionnaire", answers).status_code == 302
    assert submit(client, request_id).status_code == 302
    after = client.snapshot()
    case = request_by_id(after, request_id)
    lines = lines_of(after, request_id)
    assert case["status"] == "Partially Approved" and case["auth_number"]
    assert [(line["code"], line["status"], line["approved_units"]) for line in lines] == [
        ("72148", "Approved", 1), ("70553", "Denied", None)]
    assert "brain MRI requires a focal deficit" in lines[1]["decision_reason"]
    letter = next(row for row in after["letters"] if row["case_number"] == case["case_number"])
    payer_days = next(p["timely_appeal_days"] for p in snap["payers"] if p["id"] == "PYR-NWH")
    assert "Line 2 70553: DENIED" in letter["body"] and f"within {payer_days} days" in letter["body"]
