"""Chart rules: the medication list follows the diagnoses the world codes (FY2026 ICD-10-CM)."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.chart_rules import DIAGNOSIS_MEDICATIONS, medications_for
from admindesk.envs.ehr_web.models import Encounter, Medication
from admindesk.envs.world.codes import load_codes

from .conftest import FormClient, build_app, query


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.mark.parametrize("code,drug", [("G35.A", "vitamin D3 1,000 units tablet"),
                                       ("G35.D", "vitamin D3 1,000 units tablet"),
                                       ("G20.A1", "carbidopa/levodopa 25/100 mg tablet"),
                                       ("E11.65", "metformin 1,000 mg tablet")])
def test_a_billable_subcode_gets_its_category_medication(code, drug):
    assert drug in [name for name, _sig in medications_for(code)]


def test_an_exact_code_wins_over_its_category_and_unknown_codes_imply_nothing():
    assert medications_for("E11.9") == DIAGNOSIS_MEDICATIONS["E11.9"]
    assert medications_for("Z00.00") == ()


def test_every_rule_names_a_billable_code_or_a_category_of_billable_codes():
    billable = load_codes().icd10
    for key in DIAGNOSIS_MEDICATIONS:
        assert key in billable or any(code.startswith(key + ".") for code in billable), key


@pytest.mark.parametrize("code,drug", [("G35.A", "vitamin D3 1,000 units tablet"),
                                       ("G20.A1", "carbidopa/levodopa 25/100 mg tablet")])
def test_seeded_patients_with_ms_or_parkinsons_list_the_drug(app, code, drug):
    mrns = {e.mrn for e in query(app, select(Encounter).where(Encounter.diagnosis_codes.contains(code)))}
    assert mrns, f"the world has no visit coded {code}"
    listed = {m.mrn for m in query(app, select(Medication).where(Medication.name == drug))}
    assert mrns <= listed


def test_a_stopped_drug_lists_its_stop_date_and_why_it_was_stopped(app):
    """The notes that stopped each drug (facts prior_therapy_start/_stop/_outcome) give the Medications
    tab its rows, as a step-therapy review reads them (pa-hard-13: golimumab IV after three drugs)."""
    client = FormClient(app)
    snapshot = client.start_task("pa-hard-13")
    mrn = next(p["mrn"] for p in snapshot["patients"] if p["last_name"] == "Halvorsen-Achebe")
    stopped = {m["name"]: m for m in snapshot["medications"] if m["mrn"] == mrn and m["status"] == "Discontinued"}
    assert stopped["etanercept 50 mg"]["end_date"] == "2025-12-29"
    assert stopped["etanercept 50 mg"]["stop_reason"].startswith("cost")
    assert stopped["methotrexate 20 mg"]["sig"] == "by mouth once weekly"
    page = client.get(f"/patients/{mrn}/medications").get_data(as_text=True)
    assert "Reason stopped" in page and "06/15/2026" in page and "inadequate response: DAS28-CRP 5.6" in page
