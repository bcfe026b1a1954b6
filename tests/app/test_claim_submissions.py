"""A claim's clearinghouse history: the EHR claim page lists each transmission (999 and 277CA
answers, the payer's control number) with its acknowledgement report in the chart; portal A's
manual says what proves timely filing, and a timely-filing reconsideration whose proof date is
before the payer first accepted the claim (a front-end rejection) is upheld at filing."""
from __future__ import annotations

from functools import cache

import pytest

from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.schema.case_ids import case_record_ids
from admindesk.schema.task_model import load_tasks

from .conftest import case_clients

REJECTED_FIRST, ACCEPTED_FIRST = "appeal-medium-19", "appeal-easy-02"


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "submissions", ("ehr_web", "payer_portal_a"))


@cache
def _tasks() -> dict:
    return {t.id: t for t in load_tasks()}


def task(task_id: str):
    return _tasks()[task_id]


def case_claim(task_id: str) -> str:
    """The claim number of the task's denied claim (a snapshot holds the whole world's claims)."""
    case = task(task_id).case
    return case_record_ids(task_id, case.model_dump(mode="json"))["claims"]["denied"]


def test_the_claim_page_lists_each_transmission_with_its_report(clients):
    ehr = clients["ehr_web"]
    snapshot = ehr.start_task(REJECTED_FIRST)
    rows = sorted(snapshot["claim_submissions"], key=lambda row: row["transmitted_on"])
    assert {row["claim_number"] for row in rows} == {case_claim(REJECTED_FIRST)}
    assert [(r["clearinghouse_status"], r["payer_status"]) for r in rows] == [("Accepted", "Rejected"),
                                                                            ("Accepted", "Accepted")]
    assert rows[0]["payer_control_number"] is None and rows[1]["payer_control_number"].startswith("ACH45")
    page = ehr.get(f"/claims/{rows[0]['claim_number']}").get_data(as_text=True)
    assert "Submission history (clearinghouse)" in page
    assert "A7:164 Entity&#39;s contract/member number (subscriber): member ID not found" in page
    for row in rows:
        assert f'href="/documents/{row["report_document_id"]}"' in page


def test_each_report_states_both_acknowledgements(clients):
    ehr = clients["ehr_web"]
    snapshot = ehr.start_task(REJECTED_FIRST)
    documents = {d["id"]: d for d in snapshot["documents"]}
    rejected, accepted = sorted(snapshot["claim_submissions"], key=lambda row: row["transmitted_on"])
    text = documents[rejected["report_document_id"]]["text"]
    assert documents[rejected["report_document_id"]]["kind"] == "Clearinghouse Report"
    assert f"batch {rejected['batch_id']} passed the clearinghouse format edits" in text
    assert "REJECTED by payer front end - A7:164" in text and "has no payer claim control number" in text
    text = documents[accepted["report_document_id"]]["text"]
    assert f"ACCEPTED by payer front end - A1:20 accepted for processing. Payer claim control number " \
           f"{accepted['payer_control_number']}." in text


def test_the_manual_states_the_limit_and_what_proves_timely_filing(clients):
    portal = clients["payer_portal_a"]
    portal.start_task(REJECTED_FIRST)
    manual = portal.get("/payers/PYR-ACH?tab=manual").get_data(as_text=True)
    assert f"Timely filing limit: {rules_for('PYR-ACH').claim_filing_days} days from the date of service" in manual
    assert "its rejection report does not establish a filing date" in manual


@pytest.mark.parametrize("proof, reason", [
    ("05/13/2026", "No transmission of this claim was accepted on 05/13/2026"),  # the front end rejected it
    ("08/11/2026", "after the 90-day filing limit ended on 08/09/2026"),  # accepted, but late
])
def test_a_timely_filing_proof_the_payers_front_end_does_not_support_is_upheld(clients, proof, reason):
    portal = clients["payer_portal_a"]
    snapshot = portal.start_task(REJECTED_FIRST)
    [claim] = [c for c in snapshot["claims"] if c["claim_number"] == case_claim(REJECTED_FIRST)]
    assert claim["first_accepted_on"] == "2026-08-11"
    response = portal.post(f"/appeals/new?claim_number={claim['claim_number']}", {
        "appeal_type": "Reconsideration", "level": "1", "reason": "Timely filing proof", "contact_name": "Jordan Ellis",
        "contact_phone": "717-555-0100", "letter_text": "The claim was timely filed.", "proof_of_filing_date": proof},
        content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)
    [appeal] = portal.snapshot()["appeals"]
    assert appeal["decision"] == "Upheld" and reason in appeal["decision_reason"]


def test_a_claim_without_a_history_keeps_no_front_end_date(clients):
    portal = clients["payer_portal_a"]
    snapshot = portal.start_task("appeal-easy-11")
    assert [c["first_accepted_on"] for c in snapshot["claims"]
            if c["claim_number"] == case_claim("appeal-easy-11")] == [None]
    snapshot = portal.start_task(ACCEPTED_FIRST)
    [claim] = task(ACCEPTED_FIRST).case.claims
    assert [c["first_accepted_on"] for c in snapshot["claims"] if c["claim_number"] == case_claim(ACCEPTED_FIRST)] == [claim.submissions[0].transmitted_on.isoformat()]
