"""Keystone's therapy visit limit at precertification (KM-REHAB-801): the Benefit Accumulators page
says whether the member's limit is soft or hard; a therapy code needs nothing while visits remain,
is denied past a hard limit, and past a soft limit is reviewed (pended without the re-evaluation,
approved up to the policy's 12 visits and 60 days with it)."""
from __future__ import annotations

import io
from datetime import date

import pytest
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b.claim_models import AccumulatorVisit

from .conftest import case_clients

SOFT_TASK, HARD_TASK = "pa-easy-09", "pa-medium-10"
NOTE_PDF = render_pdf("Physical therapy re-evaluation", [("Patient", "Test")], "LEFS 49/80; 8 further visits.")


@pytest.fixture(scope="module")
def portal(app_data_dir):
    return case_clients(app_data_dir / "therapy_limit", ("payer_portal_b",))["payer_portal_b"]


def member_of(snapshot: dict) -> dict:
    [accumulator] = snapshot["benefit_accumulators"]
    return next(s for s in snapshot["subscribers"] if s["subscriber_id"] == accumulator["subscriber_id"])


def portal_day(iso: str) -> str:
    """A snapshot's date as Keystone's forms take it (DD-Mon-YYYY)."""
    return date.fromisoformat(iso).strftime("%d-%b-%Y")


def request(portal, member: dict, **changes) -> dict:
    """A precertification of therapeutic exercise for the member; returns the stored request."""
    npi = next(p["npi"] for p in portal.snapshot()["providers"] if p["kind"] == "Individual")
    form = {"subscriber_id": member["subscriber_id"], "subscriber_dob": portal_day(member["dob"]),
            "rendering_npi": npi, "referring_npi": "", "place_of_service": "11", "urgency": "Standard",
            "service_code": "97110", "units": "8", "diagnosis_codes": "Z47.1, M25.561",
            "start_date": "17-Nov-2026", "end_date": "11-Dec-2026", "conservative_therapy_weeks": "",
            "red_flag_symptoms": "", "prior_imaging": "", "ahi": "", "spo2_rest": "",
            "clinical_summary": "Twenty visits used; LEFS 24 to 49 of 80; eight more visits planned.",
            "contact_name": "Jordan Ellis", "contact_phone": "717-555-0100",
            "document_type_1": "Clinical notes", "attachment_1": (io.BytesIO(NOTE_PDF), "reeval.pdf"),
            "document_type_2": "Other", "document_type_3": "Other", **changes}
    response = portal.post("/precertification/new", form, content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = [r for r in portal.snapshot()["precert_requests"] if r["source"] == "Portal"]
    return item


def accumulator_page(portal, member: dict) -> str:
    response = portal.post("/eligibility", {"subscriber_id": member["subscriber_id"],
                                            "dob": portal_day(member["dob"]), "service_date": "17-Nov-2026"})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    return portal.get(response.headers["Location"] + "/accumulators").get_data(as_text=True)


@pytest.mark.parametrize(("task_id", "shown"), [(SOFT_TASK, "Soft limit"), (HARD_TASK, "Hard limit")])
def test_the_accumulator_page_says_whether_the_limit_is_soft_or_hard(portal, task_id, shown):
    member = member_of(portal.start_task(task_id))
    page = accumulator_page(portal, member)
    assert "Limit Type" in page and shown in page
    assert ("KM-REHAB-801" in page) == (shown == "Soft limit")


def test_past_a_soft_limit_the_plan_of_care_visits_are_approved(portal):
    member = member_of(portal.start_task(SOFT_TASK))
    item = request(portal, member)
    assert item["status"] == "Approved", item["decision_reason"]
    assert item["approved_units"] == 8 and item["approved_end"] == "2026-12-11"
    assert "KM-REHAB-801" in item["decision_reason"]


def test_past_a_soft_limit_the_policy_caps_visits_and_days(portal):
    member = member_of(portal.start_task(SOFT_TASK))
    item = request(portal, member, units="20", end_date="31-Mar-2027")
    assert item["status"] == "Approved"
    assert item["approved_units"] == 12 and item["approved_end"] == "2027-01-15"


def test_past_a_soft_limit_without_the_note_the_request_is_pended(portal):
    member = member_of(portal.start_task(SOFT_TASK))
    item = request(portal, member, document_type_1="Other")
    assert item["status"] == "Pended" and "Clinical notes" in item["decision_reason"]


def test_past_a_hard_limit_the_request_is_denied(portal):
    member = member_of(portal.start_task(HARD_TASK))
    item = request(portal, member, diagnosis_codes="M54.50", units="6", start_date="19-Nov-2026",
                   end_date="08-Dec-2026")
    assert item["status"] == "Denied" and item["authorization_number"] is None
    assert "hard limit" in item["decision_reason"] and "20 are applied" in item["decision_reason"]


def test_with_visits_remaining_no_precertification_is_needed(portal):
    member = member_of(portal.start_task(SOFT_TASK))
    with portal.app.extensions["admindesk"].db.new_session() as session:
        session.delete(session.scalars(select(AccumulatorVisit).order_by(AccumulatorVisit.service_date.desc())).first())
        session.commit()
    item = request(portal, member)
    assert item["status"] == "Not Required" and "1 of 20 therapy visits remain" in item["decision_reason"]


def test_other_codes_are_not_held_to_the_visit_limit(portal):
    member = member_of(portal.start_task(HARD_TASK))
    item = request(portal, member, service_code="72148", units="1", diagnosis_codes="M54.50",
                   conservative_therapy_weeks="8", red_flag_symptoms="No")
    assert "hard limit" not in item["decision_reason"] and item["status"] != "Not Required"


def test_the_requirement_lookup_points_therapy_codes_to_the_visit_limit(portal):
    portal.start_task(SOFT_TASK)
    page = portal.get("/precertification/requirements?code=97110").get_data(as_text=True)
    assert "not required while visits remain" in page and "KM-REHAB-801" in page and "Benefit Accumulators" in page
    assert "KM-REHAB-801" not in portal.get("/precertification/requirements?code=99213").get_data(as_text=True)
