"""Payer portal B: Keystone's hospital bed criteria (KM-DME-404 on LCD L33820), stated on the policy
page and applied to a DME request: a qualifying condition, and for a semi-electric bed frequent or
immediate changes in body position."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_dme_appeals import LETTER_PDF, data, pdf, submit_dme  # noqa: F401


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


# A semi-electric bed for heart failure, its face-to-face note attached as clinical notes.
BED = {"hcpcs_code": "E0260", "diagnosis_codes": "I50.22", "ahi": "", "sleep_test_date": "",
       "bed_indication": "Head of bed elevated more than 30 degrees",
       "bed_position_changes": "Frequent or immediate changes in body position", "document_type_2": "Clinical notes"}


@pytest.mark.parametrize("changes, status, reason", [
    ({}, "Approved", "Meets medical policy KM-DME-404; approved for a 13-month rental."),
    ({"bed_indication": "None documented"}, "Denied", "No qualifying condition is documented for a hospital bed"),
    ({"bed_position_changes": "Not documented"}, "Denied", "A semi-electric bed (E0260) also needs frequent changes"),
    ({"hcpcs_code": "E0250", "bed_position_changes": "Not documented"}, "Approved", "13-month rental"),
    ({"bed_indication": ""}, "Pended", "Hospital bed: the qualifying condition is required"),
    ({"bed_position_changes": ""}, "Pended", "Hospital bed: the qualifying condition is required"),
])
def test_bed_criteria(client, data, changes, status, reason):  # noqa: F811
    form = {**BED, "attachment_2": pdf(LETTER_PDF, "visit.pdf"), **changes}
    assert submit_dme(client, data, **form).status_code == 302
    item = [r for r in client.snapshot()["dme_requests"] if r["source"] == "Portal"][-1]
    assert item["status"] == status and reason in item["decision_reason"], item["decision_reason"]
    assert item["bed_indication"] == (form["bed_indication"] or None)


def test_bed_answers_shown_on_the_request(client, data):  # noqa: F811
    response = submit_dme(client, data, **{**BED, "attachment_2": pdf(LETTER_PDF, "visit.pdf")})
    page = client.get(response.location).get_data(as_text=True)
    assert "Head of bed elevated more than 30 degrees; Frequent or immediate changes in body position" in page


def test_policy_page_states_the_bed_rules(client):
    page = client.get("/policies/KM-DME-404").get_data(as_text=True)
    for words in ("LCD L33820", "elevated more than 30 degrees", "traction equipment",
                  "frequent changes in body position", "would be more comfortable", "written order prior to delivery",
                  "within the 6 months before the written order"):
        assert words in page, words
