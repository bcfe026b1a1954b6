"""Low payments: Keystone prices paid lines at its published contract share, states it on its
reimbursement page and takes a payment dispute without an attachment; a claim that payment
posting flagged reaches the EHR's Denials queue as a "Low payment" item."""
from __future__ import annotations

import dataclasses
import re

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_world

from .conftest import case_clients
from .test_portal_b_appeal_levels import app, appeal_form, claim, mine  # noqa: F401  (fixtures reused)

UNDERPAID_TASK = "appeal-medium-04"


@pytest.fixture(scope="module")
def task_clients(app_data_dir):
    return case_clients(app_data_dir / "payment-review", ("ehr_web", "payer_portal_b"))


def test_the_world_prices_keystone_lines_at_its_contract():
    world = build_world()
    keystone = world.payer("PYR-KMH")
    assert keystone.allowed_share == 0.6
    paid = [line for billed in world.claims if billed.payer_id == keystone.id for line in billed.lines if line.paid > 0]
    assert len(paid) > 20
    for line in paid:
        contractual = sum(a.amount for a in line.adjustments if (a.group, a.carc) == ("CO", "45"))
        assert round(line.charge - contractual, 2) == round(line.charge * 0.6, 2)
    assert not [f for f in audit_world(world).findings if f.kind == "priced_off_contract"]


def test_the_audit_flags_a_claim_labelled_underpaid_that_is_priced_on_the_contract():
    world = build_world()
    target = next(c for c in world.claims if c.payer_id == "PYR-KMH" and c.paid_amount > 0)
    edited = dataclasses.replace(world, claims=tuple(
        dataclasses.replace(c, underpaid=True) if c is target else c for c in world.claims))
    [finding] = [f for f in audit_world(edited).findings if f.kind == "priced_off_contract"]
    assert finding.record == target.claim_number and "labelled underpaid" in finding.detail


def test_the_reimbursement_page_states_the_contract_and_the_dispute_route(client):
    page = client.get("/reimbursement").get_data(as_text=True)
    assert "60% of the line&#39;s billed charge" in page or "60% of the line's billed charge" in page
    assert "$600.00" in page and "$450.00" in page  # the worked example: allowed, then paid after a deductible
    assert "Payment amount" in page and "Adjust the payment amount" in page
    assert "Reimbursement &amp; Fee Schedule" in client.get("/").get_data(as_text=True)


def test_a_payment_dispute_is_filed_without_an_attachment(client, claim):  # noqa: F811
    form = appeal_form(claim, reason_category="Payment amount", requested_outcome="Adjust the payment amount")
    del form["attachment_1"]
    response = client.post("/appeals/new", form, content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    snapshot = client.snapshot()
    [appeal] = mine(snapshot)
    assert (appeal["reason_category"], appeal["requested_outcome"]) == ("Payment amount", "Adjust the payment amount")
    assert not [a for a in snapshot["attachments"] if a["owner_id"] == appeal["appeal_id"]]


def test_any_other_appeal_still_needs_its_attachment(client, claim):  # noqa: F811
    form = appeal_form(claim)
    del form["attachment_1"]
    before = client.snapshot()
    response = client.post("/appeals/new", form, content_type="multipart/form-data")
    assert response.status_code == 422
    assert "Attach the appeal letter or supporting document (PDF)." in response.get_data(as_text=True)
    assert client.snapshot()["appeals"] == before["appeals"]


def test_a_flagged_low_payment_is_a_denials_item(task_clients):
    ehr = task_clients["ehr_web"]
    snapshot = ehr.start_task(UNDERPAID_TASK)
    [item] = [i for i in snapshot["work_items"] if i["review_reason"]]
    assert (item["queue"], item["review_reason"], item["status"]) == ("Denials", "Low payment", "New")
    [claim_row] = [c for c in snapshot["claims"] if c["claim_number"] == item["claim_number"]]
    assert claim_row["status"] == "Paid"
    page = ehr.get(f"/queues/items/{item['id']}").get_data(as_text=True)
    assert "Claim for payment review" in page and "Low payment: flagged at payment posting" in page
    [patient] = [p for p in snapshot["patients"] if p["mrn"] == item["mrn"]]
    listing = ehr.get("/queues/denials?patient=" + patient["mrn"]).get_data(as_text=True)
    assert claim_row["claim_number"] in listing and "Low payment" in listing
    # The remittance advice in the chart's letters reports a payment, and every link there opens.
    letters = ehr.get(f"/patients/{item['mrn']}/letters").get_data(as_text=True)
    assert f"Remittance advice: claim {claim_row['claim_number']} paid" in letters
    for message_id in re.findall(r'href="/in-basket/(\d+)"', letters):
        assert ehr.get(f"/in-basket/{message_id}").status_code == 200
    portal = task_clients["payer_portal_b"]
    portal.start_task(UNDERPAID_TASK)
    eob = portal.get(f"/claims/{item['claim_number']}?tab=eob").get_data(as_text=True)
    # The injection line's contractual write-off leaves $189.00 (45% of $420.00), not the contract's $252.00.
    assert "$231.00" in eob and "$275.00" in eob
