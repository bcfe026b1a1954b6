"""Payer portal B: Keystone's PAP and home-oxygen criteria (KM-DME-401/402) and PAP continued coverage.

Every denial quotes the failed criterion; a refused continued-coverage request writes nothing.
"""
from __future__ import annotations

import io

import pytest

from admindesk.envs.payer_portal_b import create_app

from .conftest import build_app
from .test_portal_b_dme_appeals import LETTER_PDF, OXYGEN_TEST, data, pdf, submit_dme  # noqa: F401


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def last_request(client) -> dict:
    return [r for r in client.snapshot()["dme_requests"] if r["source"] == "Portal"][-1]


# The oximetry report and (a new file each time) the visit note, which documents any Group II finding.
OXYGEN = {**OXYGEN_TEST, "document_type_3": "Clinical notes"}


@pytest.mark.parametrize("changes, status, reason", [
    ({"ahi": "9.5", "comorbidities": ["Hypertension"]}, "Approved", "3-month rental"),
    ({"ahi": "9.5"}, "Denied", "AHI 9.5 does not meet the criterion AHI >= 15, or AHI 5-14 with a documented "
                               "comorbidity (hypertension, stroke"),
    ({"ahi": "4.0", "comorbidities": ["Stroke"]}, "Denied", "AHI 4 does not meet the criterion"),
    ({"sleep_test_date": "30-Oct-2026"}, "Denied", "The face-to-face evaluation (01-Nov-2026) must come before the "
                                                   "sleep test (30-Oct-2026)."),
    ({"sleep_test_date": ""}, "Pended", "Qualifying test result required"),
])
def test_pap_criteria(client, data, changes, status, reason):  # noqa: F811
    assert submit_dme(client, data, **changes).status_code == 302
    item = last_request(client)
    assert item["status"] == status and reason in item["decision_reason"], item["decision_reason"]
    if "comorbidities" in changes:
        assert item["comorbidities"] == changes["comorbidities"]


@pytest.mark.parametrize("changes, status, reason", [
    ({"spo2_rest": "92", "spo2_exertion": "86", "spo2_on_oxygen": "93"}, "Approved", "12-month rental"),
    ({"spo2_rest": "92", "spo2_exertion": "86"}, "Denied", "no documented improvement on oxygen"),
    ({"spo2_rest": "92", "spo2_exertion": "86", "spo2_on_oxygen": "85"}, "Denied", "no documented improvement"),
    ({"spo2_rest": "89", "oxygen_conditions": ["Pulmonary hypertension / cor pulmonale"]}, "Approved",
     "under Group II; approved for a 3-month rental. Continued coverage needs a retest and a re-evaluation by the "
     "treating practitioner between day 61 and day 90."),
    ({"spo2_rest": "91", "pao2": "57", "oxygen_conditions": ["Erythrocythemia"], "hematocrit": "58.0"},
     "Approved", "3-month"),
    ({"spo2_rest": "89", "oxygen_conditions": ["Dependent edema / congestive heart failure"],
      "attachment_3": (io.BytesIO(b""), "")}, "Pended", "Upload: Clinical notes (documenting the Group II finding)"),
    ({"spo2_rest": "87", "document_type_2": "Clinical notes"}, "Pended", "Upload: Oximetry or blood gas report"),
    ({"spo2_rest": "87", "oxygen_test_by": "DME supplier"}, "Denied", "performed by a DME supplier"),
    ({"spo2_rest": "87", "oxygen_test_state": "Other"}, "Denied", "chronic stable state"),
    ({"spo2_rest": "87", "oxygen_test_date": "05-Oct-2026"}, "Denied",
     "(05-Oct-2026) must be within the 30 days before the order date 05-Nov-2026 (06-Oct-2026 to 05-Nov-2026)"),
    ({"spo2_rest": "87", "oxygen_test_date": "06-Oct-2026"}, "Approved", "12-month rental"),
    ({"spo2_rest": "87", "oxygen_test_by": ""}, "Pended", "with the test date, who performed it"),
    ({"spo2_rest": "91", "pao2": "57", "oxygen_conditions": ["Erythrocythemia"], "hematocrit": "52.0"},
     "Denied", "erythrocythemia (hematocrit > 56%)"),
    ({"spo2_rest": "89"}, "Denied", "(Group II) SpO2 89% or PaO2 56-59 mmHg with dependent edema/CHF"),
    ({"spo2_rest": ""}, "Pended", "Qualifying test result required"),
])
def test_oxygen_groups(client, data, changes, status, reason):  # noqa: F811
    form = {**OXYGEN, "attachment_3": pdf(LETTER_PDF, "visit.pdf"), **changes}
    assert submit_dme(client, data, **form).status_code == 302
    item = last_request(client)
    assert item["status"] == status and reason in item["decision_reason"], item["decision_reason"]


def continued(client, data, trial_id, **changes):  # noqa: F811
    """A continued-coverage request on a trial set up 01-Aug-2026 (days 31-91: 31-Aug to 30-Oct), re-evaluated
    on 15-Oct, with the written order of 20-Jul that began the trial and the adherence report attached."""
    form = {"request_kind": "Continued coverage", "initial_request_id": trial_id, "device_setup_date": "01-Aug-2026",
            "adherence_start": "05-Sep-2026", "nights_4h": "23", "face_to_face_date": "15-Oct-2026",
            "order_date": "20-Jul-2026", "document_type_2": "PAP adherence report", **changes}
    return submit_dme(client, data, **form)


def test_pap_continued_coverage_on_adherence(client, data):  # noqa: F811
    assert submit_dme(client, data).status_code == 302
    trial = last_request(client)
    assert trial["status"] == "Approved" and trial["request_kind"] == "Initial"
    assert continued(client, data, trial["request_id"]).status_code == 302
    item = last_request(client)
    assert (item["request_kind"], item["status"], item["approved_months"]) == ("Continued coverage", "Approved", 10)
    assert (item["initial_request_id"], item["nights_4h"], item["adherence_start"]) == (trial["request_id"], 23, "2026-09-05")
    assert continued(client, data, trial["request_id"], nights_4h="20").status_code == 302
    low = last_request(client)
    assert low["status"] == "Denied" and "20 of 30 nights" in low["decision_reason"]
    assert "4 h/night on 70% of nights, 21 of 30" in low["decision_reason"]
    # Day 31 of a trial set up on 01-Aug is 31-Aug; 20-Aug is too early.
    assert continued(client, data, trial["request_id"], adherence_start="20-Aug-2026").status_code == 302
    early = last_request(client)
    assert early["status"] == "Denied" and "within days 31-91 of the trial" in early["decision_reason"]


def test_continued_coverage_refusals_write_nothing(client, data):  # noqa: F811
    before = client.snapshot()
    for changes, message in [
        ({"initial_request_id": "KM-D-26-009999"}, "is not an approved initial PAP request"),
        ({"nights_4h": ""}, "A continued-coverage request needs the approved trial"),
        ({"initial_request_id": "KM-D-26-009999", "hcpcs_code": "E1390", "diagnosis_codes": "J44.9"},
         "applies to PAP devices (E0601, E0470) only"),
    ]:
        response = continued(client, data, **{"trial_id": changes.pop("initial_request_id", "KM-D-26-009999")},
                             **changes)
        assert response.status_code == 422 and message in response.get_data(as_text=True)
    after = client.snapshot()
    assert after["dme_requests"] == before["dme_requests"] and after["attachments"] == before["attachments"]


@pytest.mark.parametrize("changes, status, reason", [
    ({"face_to_face_date": "20-Aug-2026"}, "Denied", "re-evaluation (20-Aug-2026) must take place within days 31-91"),
    ({"face_to_face_date": "02-Nov-2026", "order_date": "02-Nov-2026"}, "Denied", "within days 31-91 of the trial"),
    ({"adherence_start": "25-Oct-2026", "device_setup_date": "20-Sep-2026", "face_to_face_date": "10-Nov-2026"},
     "Denied", "The adherence period ends 23-Nov-2026, after today."),
    ({"document_type_2": "Sleep study report"}, "Pended", "Upload: PAP adherence report"),
])
def test_continued_coverage_needs_the_reevaluation_an_ended_period_and_the_report(
        client, data, changes, status, reason):  # noqa: F811 (the `data` fixture, imported)
    assert submit_dme(client, data).status_code == 302
    trial = last_request(client)
    assert continued(client, data, trial["request_id"], **changes).status_code == 302
    item = last_request(client)
    assert item["status"] == status and reason in item["decision_reason"], item["decision_reason"]
