"""The screens of template appeals/member_waiver: Keystone's Reimbursement page states its rule on
billing members for services its plans do not cover (an advance waiver signed before the service,
naming it and its estimated cost, whatever the group code), and a patient's signed financial forms
are scanned chart documents (Financial Form) whose text ends with the signature and the date signed."""
from __future__ import annotations

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

LATE_WAIVER_TASK, VALID_WAIVER_TASK = "appeal-easy-18", "appeal-easy-20"


@pytest.fixture(scope="module")
def ids():
    return {t.id: case_values(t)["ids"] for t in load_tasks(TASKS_ROOT) if t.id in (LATE_WAIVER_TASK, VALID_WAIVER_TASK)}


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "member-waiver", ("ehr_web", "payer_portal_b"))


def test_the_reimbursement_page_states_the_member_waiver_rule(clients):
    portal = clients["payer_portal_b"]
    portal.start_task(VALID_WAIVER_TASK)
    page = portal.get("/reimbursement").get_data(as_text=True)
    assert "Non-Covered Services: Billing the Member" in page
    assert "whatever the group code on the EOB (CO or PR)" in page
    assert "<strong>before the service is given</strong>" in page and "estimated cost" in page
    assert "A general financial policy or assignment of benefits signed at registration" in page


def test_a_waiver_is_a_scanned_financial_form_dated_when_signed(clients, ids):
    snap = clients["ehr_web"].start_task(LATE_WAIVER_TASK)
    [waiver] = [d for d in snap["documents"] if d["id"] == ids[LATE_WAIVER_TASK]["documents"]["waiver"]]
    assert (waiver["kind"], waiver["author_name"], waiver["document_date"]) == (
        "Financial Form", "Patient Access (scanned)", "2026-09-15")
    assert "CPT 17110" in waiver["text"] and "Estimated cost: $285.00" in waiver["text"]
    assert "Date signed: 09/15/2026" in waiver["text"]


def test_a_general_financial_policy_sits_beside_the_waiver(clients, ids):
    snap = clients["ehr_web"].start_task(VALID_WAIVER_TASK)
    documents = ids[VALID_WAIVER_TASK]["documents"]
    forms = {d["id"]: d for d in snap["documents"] if d["kind"] == "Financial Form"}
    assert set(forms) == {documents["waiver"], documents["financial_policy"]}
    assert "Date signed: 01/12/2026" in forms[documents["financial_policy"]]["text"]
    assert "CPT" not in forms[documents["financial_policy"]]["text"]
    assert "Date signed: 09/18/2026" in forms[documents["waiver"]]["text"]
