"""EHR claim page, Resubmit claim: a claim the payer has not answered goes again, once, as an
original claim (frequency 1) with the payer's filing deadline and what its claim status inquiry
showed; a claim the payer answered, a second resubmission and a passed deadline are refused with
nothing written (envs/ehr_web/claim_rebill.py). The case's unanswered claims: the EHR holds
them pending with a Denials follow-up item, whatever the payer did (envs/world/cases/builder.py)."""
from __future__ import annotations

import pytest

from admindesk.envs.ehr_web.vocab import NO_RESPONSE
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

# Never received by the payer; paid by the payer, its payment not posted; a denied claim (CO-4).
NOT_ON_FILE_TASK, UNPOSTED_TASK, DENIED_TASK = "appeal-easy-01", "appeal-medium-18", "appeal-easy-03"
INQUIRY = "Claim status inquiry on the payer's portal: no claim on file for the member and date of service."


@pytest.fixture(scope="module")
def ids():
    return {t.id: case_values(t)["ids"] for t in load_tasks(TASKS_ROOT)
            if t.id in (NOT_ON_FILE_TASK, UNPOSTED_TASK, DENIED_TASK)}


@pytest.fixture(scope="module")
def apps(app_data_dir):
    return case_clients(app_data_dir / "claim-resubmit", ("ehr_web", "payer_portal_a"))


def resubmit(ehr, claim: str, deadline: str = "03/14/2027", reason: str = INQUIRY):
    return ehr.post(f"/claims/{claim}/resubmit", {"filing_deadline": deadline, "reason": reason})


def test_an_unanswered_claim_is_resubmitted_once_as_an_original(apps, ids):
    ehr = apps["ehr_web"]
    ehr.start_task(NOT_ON_FILE_TASK)
    claim = ids[NOT_ON_FILE_TASK]["claims"]["denied"]
    assert "Resubmit as original claim" in ehr.get(f"/claims/{claim}").get_data(as_text=True)
    assert resubmit(ehr, claim).status_code == 302
    [sent] = ehr.snapshot()["claim_resubmissions"]
    assert (sent["claim_number"], sent["frequency_code"], sent["filing_deadline"]) == (claim, "1", "2027-03-14")
    again = resubmit(ehr, claim, reason="Second try after another inquiry.")
    assert again.status_code == 422 and "a second copy would be a duplicate" in again.get_data(as_text=True)
    assert len(ehr.snapshot()["claim_resubmissions"]) == 1


def test_a_resubmission_needs_an_open_filing_limit_and_the_inquiry(apps, ids):
    ehr = apps["ehr_web"]
    ehr.start_task(NOT_ON_FILE_TASK)
    claim = ids[NOT_ON_FILE_TASK]["claims"]["denied"]
    late = resubmit(ehr, claim, deadline="11/01/2026")
    assert late.status_code == 422 and "has passed" in late.get_data(as_text=True)
    unsaid = resubmit(ehr, claim, reason="")
    assert unsaid.status_code == 422 and "claim status inquiry showed" in unsaid.get_data(as_text=True)
    assert ehr.snapshot()["claim_resubmissions"] == []


def test_a_claim_the_payer_answered_is_not_resubmitted(apps, ids):
    ehr = apps["ehr_web"]
    ehr.start_task(DENIED_TASK)
    claim = ids[DENIED_TASK]["claims"]["denied"]
    assert "Resubmit as original claim" not in ehr.get(f"/claims/{claim}").get_data(as_text=True)
    refused = resubmit(ehr, claim)
    assert refused.status_code == 422 and "corrected claim" in refused.get_data(as_text=True)
    assert ehr.snapshot()["claim_resubmissions"] == []


def test_unanswered_claims_are_pending_in_the_ehr_with_a_follow_up_item(apps, ids):
    ehr, portal = apps["ehr_web"], apps["payer_portal_a"]
    for task in (NOT_ON_FILE_TASK, UNPOSTED_TASK):
        ehr.start_task(task)
        claim = ids[task]["claims"]["denied"]
        snap = ehr.snapshot()
        [row] = [c for c in snap["claims"] if c["claim_number"] == claim]
        assert (row["status"], row["paid_amount"]) == ("Pending", 0.0)
        assert not [r for r in snap["remittances"] if r["claim_number"] == claim]
        [item] = [i for i in snap["work_items"] if i["claim_number"] == claim]
        assert (item["queue"], item["review_reason"], item["status"]) == ("Denials", NO_RESPONSE, "New")
    # At the payer: the claim never received is not on file; the unposted one is paid and remitted.
    portal.start_task(NOT_ON_FILE_TASK)
    assert ids[NOT_ON_FILE_TASK]["claims"]["denied"] not in {c["claim_number"] for c in portal.snapshot()["claims"]}
    portal.start_task(UNPOSTED_TASK)
    paid = ids[UNPOSTED_TASK]["claims"]["denied"]
    [remit] = [r for r in portal.snapshot()["remittances"] if r["claim_number"] == paid]
    assert remit["check_number"] == ids[UNPOSTED_TASK]["checks"]["denied"]
