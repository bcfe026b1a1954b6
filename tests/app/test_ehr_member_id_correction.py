"""EHR Coverage tab, Correct coverage, and the claim page's resubmission after a CARC 31 denial
(the payer cannot identify the patient as its member): a correction to the payer's enrollment is
kept in the coverage history and starts the verification over, a correction that changes nothing,
takes another coverage's member id or contradicts itself is refused with nothing written
(envs/ehr_web/coverage_changes.py); the denied claim is resubmitted as an original claim only
once registration holds another member id, and carries it (envs/ehr_web/claim_rebill.py)."""
from __future__ import annotations

import pytest

from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

from .conftest import case_clients

# A new card at renewal (new id, later effective date); a dependent billed under the subscriber's id.
RENEWAL_TASK, DEPENDENT_TASK = "appeal-easy-05", "appeal-easy-06"
SOURCE = "Payer eligibility by name and date of birth, inquiry EB26111600001."


@pytest.fixture(scope="module")
def values():
    return {t.id: case_values(t) for t in load_tasks(TASKS_ROOT) if t.id in (RENEWAL_TASK, DEPENDENT_TASK)}


@pytest.fixture(scope="module")
def ehr(app_data_dir):
    return case_clients(app_data_dir / "member-id", ("ehr_web",))["ehr_web"]


def correct(ehr, mrn: str, coverage: str, **fields):
    data = {"coverage_id": coverage, "member_id": "", "subscriber_name": "", "relationship": "Self",
            "effective_date": "", "reason": SOURCE, **fields}
    return ehr.post(f"/patients/{mrn}/coverage/correct", data)


def resubmit(ehr, claim: str):
    return ehr.post(f"/claims/{claim}/resubmit", {"filing_deadline": "03/16/2027", "reason": SOURCE})


def _coverage(ehr, coverage_id: str) -> dict:
    return next(c for c in ehr.snapshot()["coverages"] if c["id"] == coverage_id)


def test_a_dependent_is_corrected_to_the_payers_member_and_the_claim_resubmitted_under_it(ehr, values):
    ids = values[DEPENDENT_TASK]["ids"]
    ehr.start_task(DEPENDENT_TASK)
    coverage, claim = ids["coverages"]["primary"], ids["claims"]["denied"]
    # Before the correction the claim page says why it cannot go again, and refuses it.
    assert "correct the coverage" in ehr.get(f"/claims/{claim}").get_data(as_text=True)
    early = resubmit(ehr, claim)
    assert early.status_code == 422 and ehr.snapshot()["claim_resubmissions"] == []
    done = correct(ehr, ids["mrn"], coverage["id"], member_id=coverage["payer_member_id"],
                   subscriber_name="Marguerite Kesselring", relationship="Spouse", effective_date="01/01/2023")
    assert done.status_code == 302
    row = _coverage(ehr, coverage["id"])
    assert (row["member_id"], row["subscriber_name"], row["relationship_to_subscriber"], row["verification_status"]) \
        == (coverage["payer_member_id"], "Marguerite Kesselring", "Spouse", "Not Verified")
    history = [(e["event"], e["old_value"], e["new_value"]) for e in ehr.snapshot()["coverage_history"]
               if e["coverage_id"] == coverage["id"] and e["event"].endswith("change")]
    assert ("Member ID change", coverage["member_id"], coverage["payer_member_id"]) in history
    assert {event for event, _old, _new in history} == {"Member ID change", "Subscriber change", "Relationship change"}
    assert resubmit(ehr, claim).status_code == 302
    [sent] = ehr.snapshot()["claim_resubmissions"]
    assert (sent["claim_number"], sent["frequency_code"]) == (claim, "1")
    assert sent["member_id"] == coverage["payer_member_id"]


def test_a_renewal_card_corrects_the_member_id_and_the_effective_date(ehr, values):
    ids = values[RENEWAL_TASK]["ids"]
    ehr.start_task(RENEWAL_TASK)
    coverage = ids["coverages"]["primary"]
    done = correct(ehr, ids["mrn"], coverage["id"], member_id=coverage["payer_member_id"],
                   subscriber_name="Philippa Oyelaran", relationship="Self", effective_date="07/01/2026")
    assert done.status_code == 302
    row = _coverage(ehr, coverage["id"])
    assert (row["member_id"], row["effective_date"]) == (coverage["payer_member_id"], "2026-07-01")


@pytest.mark.parametrize("fields, message", [
    ({"member_id": "CSH30571846", "subscriber_name": "Philippa Oyelaran", "effective_date": "01/01/2022"},
     "Nothing differs from the registration"),
    ({"member_id": "CSH30592217", "subscriber_name": "Someone Else", "effective_date": "07/01/2026"},
     "Self means the patient is the subscriber"),
    ({"member_id": "CSH30592217", "subscriber_name": "Philippa Oyelaran", "relationship": "Child",
      "effective_date": "07/01/2026"}, "The patient is not their own dependent"),
    ({"member_id": "CSH-30592217-0002", "subscriber_name": "Philippa Oyelaran", "effective_date": "07/01/2026"},
     "as the payer prints it"),
    ({"member_id": "CSH30592217", "subscriber_name": "Philippa Oyelaran", "effective_date": "07/01/2026",
      "reason": ""}, "Say where the correction comes from"),
])
def test_a_correction_that_cannot_stand_is_refused_with_nothing_written(ehr, values, fields, message):
    ids = values[RENEWAL_TASK]["ids"]
    ehr.start_task(RENEWAL_TASK)
    coverage = ids["coverages"]["primary"]
    before = ehr.snapshot()
    refused = correct(ehr, ids["mrn"], coverage["id"], **fields)
    assert refused.status_code == 422 and message in refused.get_data(as_text=True)
    after = ehr.snapshot()
    assert (after["coverages"], after["coverage_history"]) == (before["coverages"], before["coverage_history"])
