"""Payer portal B: the germline genetic testing policy (KM-LAB-701) on the precertification
form (its genetic testing answers), the request's determination and the policy pages."""
from __future__ import annotations

import io

import pytest
from sqlalchemy import select

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app
from admindesk.envs.payer_portal_b.models import Provider
from admindesk.envs.payer_portal_b.rules.genetic_testing import HEREDITARY_CRITERIA

from .conftest import build_app
from .test_portal_b_precert import request_form, requesters

COUNSELING_PDF = render_pdf("Genetic counseling note", [("Patient", "Test")], "Pre-test counseling completed.")
PEDIGREE_PDF = render_pdf("Pedigree", [("Patient", "Test")], "Mother: ovarian cancer at 52.")
FAMILY = HEREDITARY_CRITERIA[4]
MET = {"genetic_counseling": "Yes", "hereditary_criterion": FAMILY, "changes_management": "Yes",
       "prior_germline_testing": "No"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture(scope="module")
def people(app):
    """An active subscriber with nothing on file and an organisation's NPI (a laboratory)."""
    with app.extensions["admindesk"].db.new_session() as session:
        lab = session.scalars(select(Provider.npi).where(Provider.kind != "Individual").order_by(Provider.npi)).first()
    return {**requesters(app), "npi": lab}


def genetic_request(people, **changes) -> dict:
    """BRCA1/BRCA2 analysis (81162) for a member whose mother had ovarian cancer, every answer met."""
    return request_form(people, **{
        "service_code": "81162", "diagnosis_codes": "Z80.41, Z80.3", "start_date": "24-Nov-2026",
        "end_date": "22-Jan-2027", "conservative_therapy_weeks": "", "red_flag_symptoms": "",
        "hospital_site_reason": "", **MET,
        "clinical_summary": "Mother with ovarian cancer at 52; pre-test genetic counseling completed 10/29/2026.",
        "attachment_1": (io.BytesIO(COUNSELING_PDF), "counseling.pdf"),
        "document_type_2": "Clinical notes", "attachment_2": (io.BytesIO(PEDIGREE_PDF), "pedigree.pdf"), **changes})


def submit(client, people, **changes):
    response = client.post("/precertification/new", genetic_request(people, **changes),
                           content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [item] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    return item


def test_every_criterion_documented_is_approved_for_one_test(client, people):
    item = submit(client, people, units="2")
    assert item["status"] == "Approved" and item["policy_number"] == "KM-LAB-701"
    assert item["approved_units"] == 1 and item["rendering_npi"] == people["npi"]
    assert item["clinical"]["hereditary_criterion"] == FAMILY
    page = client.get(f"/precertification/{item['reference_number']}").get_data(as_text=True)
    assert "Genetic Testing" in page and FAMILY in page


@pytest.mark.parametrize("field", sorted(MET))
def test_an_unanswered_criterion_is_pended_naming_it(client, people, field):
    item = submit(client, people, **{field: ""})
    assert item["status"] == "Pended" and item["authorization_number"] is None
    assert "Additional clinical information required" in item["decision_reason"]


@pytest.mark.parametrize("answer", [{"genetic_counseling": "No"}, {"hereditary_criterion": "None documented"},
                                    {"changes_management": "No"}, {"prior_germline_testing": "Yes"}],
                         ids=["no-counseling", "no-criterion", "no-change", "tested-before"])
def test_an_unmet_criterion_is_denied_quoting_the_policy(client, people, answer):
    item = submit(client, people, **answer)
    assert item["status"] == "Denied" and "KM-LAB-701" in item["decision_reason"]
    assert "pre-test genetic counseling" in item["decision_reason"]


def test_a_diagnosis_outside_the_policy_is_denied(client, people):
    item = submit(client, people, diagnosis_codes="M54.16")
    assert item["status"] == "Denied" and "not covered" in item["decision_reason"]


def test_a_pended_request_answered_with_the_counseling_is_approved(client, people):
    item = submit(client, people, genetic_counseling="")
    response = client.post(f"/precertification/{item['reference_number']}/additional-information",
                           {"document_type": "Clinical notes",
                            "attachment": (io.BytesIO(COUNSELING_PDF), "counseling.pdf"),
                            "conservative_therapy_weeks": "", "red_flag_symptoms": "", "prior_imaging": "",
                            "ahi": "", "spo2_rest": "", "hospital_site_reason": "", **MET},
                           content_type="multipart/form-data")
    assert response.status_code == 302
    [item] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "Portal"]
    assert item["status"] == "Approved" and item["authorization_number"]


def test_policy_pages_show_the_genetic_testing_policy(client):
    page = client.get("/policies/KM-LAB-701").get_data(as_text=True)
    assert "Germline Genetic Testing for Hereditary Cancer Syndromes" in page
    for text in ("81162", "81432", "81435", "Pre-test genetic counseling", "performing laboratory", "pedigree"):
        assert text in page
    assert "KM-LAB-701" in client.get("/policies?q=81162").get_data(as_text=True)
    assert "KM-LAB-701" in client.get("/precertification/requirements?code=81435").get_data(as_text=True)
    form = client.get("/precertification/new").get_data(as_text=True)
    assert all(criterion in form for criterion in HEREDITARY_CRITERIA)
