"""Portal A on a CO-197 denial: each payer's provider manual says when an authorization applies to
a claim (member, code, units, dates) and what it accepts afterwards, and a reconsideration is
decided on what the cited authorization covers: the order's approval overturns it, a newer
approval of another service beside it does not."""
from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.schema.case_ids import case_record_ids
from admindesk.schema.task_model import load_tasks

from .conftest import case_clients

FIX = "appeal-easy-11"


@pytest.fixture(scope="module")
def portal(app_data_dir):
    return case_clients(app_data_dir / "missing_auth", ("payer_portal_a",))["payer_portal_a"]


def _ids() -> dict:
    task = next(t for t in load_tasks() if t.id == FIX)
    return case_record_ids(FIX, task.case.model_dump(mode="json"))


def test_the_manual_states_when_an_authorization_applies_to_a_claim(portal):
    portal.start_task(FIX)
    manual = portal.get("/payers/PYR-NWH?tab=manual").get_data(as_text=True)
    assert "Authorization-absent denials (CO-197)" in manual
    assert "covers the member, the billed procedure code, the billed units and the date of service" in manual
    assert (f"carrying the authorization number, within {rules_for('PYR-NWH').corrected_claim_days} days of the "
            "original remittance") in manual
    assert "citing the authorization number (decided at filing)" in manual
    assert "never to a start date in the past" in manual
    slower = portal.get("/payers/PYR-PSM?tab=manual").get_data(as_text=True)
    assert f"(decided within {rules_for('PYR-PSM').appeal_review_days} days)" in slower


@pytest.mark.parametrize("starts, decision", [("2026-09-21", "Overturned"), ("2026-10-18", "Upheld")])
def test_a_reconsideration_is_decided_on_what_the_cited_authorization_covers(portal, starts, decision):
    snapshot = portal.start_task(FIX)
    ids = _ids()
    member = ids["coverages"]["primary"]["payer_member_id"]
    [auth] = [r["auth_number"] for r in snapshot["pa_requests"]
              if r["member_id"] == member and r["approved_start"] == starts]
    response = portal.post(f"/appeals/new?claim_number={ids['claims']['denied']}", {
        "appeal_type": "Reconsideration", "level": "1", "reason": "Authorization was on file",
        "contact_name": "Jordan Ellis", "contact_phone": "717-555-0100", "cited_auth_number": auth,
        "letter_text": "The service was authorized."}, content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)
    [appeal] = portal.snapshot()["appeals"]
    assert appeal["decision"] == decision and appeal["cited_auth_number"] == auth
