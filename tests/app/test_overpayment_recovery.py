"""Overpayment recoveries: Keystone's notice of a duplicate payment (a letter and a recovery on
the claim), the dispute on its appeal form within the notice's window that holds the recovery,
and the EHR's Denials item for it; the world audit knows a recovery from a duplicate."""
from __future__ import annotations

import io
from datetime import date

import pytest
from pypdf import PdfReader

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_cases
from admindesk.schema.task_model import load_tasks

from .conftest import case_clients

ACCEPT_TASK, DISPUTE_TASK = "appeal-medium-13", "appeal-hard-11"


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "recovery", ("ehr_web", "payer_portal_b"))


def dispute_form(claim: dict, **changes) -> dict:
    form = {"level": "1", "kind": "Reconsideration", "appellant_name": "Jordan Ellis",
            "appellant_relationship": "Billing office staff", "claim_number": claim["claim_number"],
            "service_date": claim["service_date_shown"], "billed_amount": f"{claim['billed_amount']:.2f}",
            "reason_category": "Overpayment recovery", "requested_outcome": "Withdraw the overpayment recovery",
            "explanation": "The two claims bill different knees (RT and LT) on the same date; neither duplicates "
                           "the other. Please withdraw the recovery.",
            "attestation": "y", "document_type_1": "Clinical notes", "document_type_2": "Clinical notes"}
    form.update(changes)
    return form


def recovered_claim(snapshot: dict) -> dict:
    [recovery] = snapshot["overpayment_recoveries"]
    [claim] = [c for c in snapshot["claims"] if c["claim_number"] == recovery["claim_number"]]
    return {**claim, "service_date_shown": _portal_date(claim["service_date"])}


def _portal_date(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%d-%b-%Y")


def test_the_notice_opens_a_recovery_and_a_letter(clients):
    portal = clients["payer_portal_b"]
    snapshot = portal.start_task(DISPUTE_TASK)
    [recovery] = snapshot["overpayment_recoveries"]
    assert (recovery["status"], recovery["reason"], recovery["amount"]) == ("Pending offset", "Duplicate payment", 252.0)
    assert (recovery["notice_on"], recovery["dispute_by"]) == ("2026-11-04", "2026-12-19")
    [letter] = [x for x in snapshot["correspondence"] if x["letter_id"] == recovery["letter_id"]]
    assert letter["letter_type"] == "Overpayment notice"
    pdf = portal.get(f"/correspondence/{letter['letter_id']}.pdf").data
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert recovery["first_claim_number"] in text and "Overpayment recovery" in text
    inbox = portal.get("/correspondence?q=" + recovery["claim_number"]).get_data(as_text=True)
    assert f'href="/claims/{recovery["claim_number"]}"' in inbox  # the letter's related record is the claim
    listing = portal.get("/claims?claim_number=" + recovery["claim_number"]).get_data(as_text=True)
    assert "Recovery: Pending offset" in listing
    page = portal.get(f"/claims/{recovery['claim_number']}").get_data(as_text=True)
    assert "Overpayment Recovery" in page and "Pending offset" in page and recovery["first_claim_number"] in page


def test_a_dispute_in_time_holds_the_recovery_without_an_attachment(clients):
    portal = clients["payer_portal_b"]
    claim = recovered_claim(portal.start_task(DISPUTE_TASK))
    response = portal.post("/appeals/new", dispute_form(claim), content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    snapshot = portal.snapshot()
    [appeal] = [a for a in snapshot["appeals"] if a["claim_number"] == claim["claim_number"]]
    [recovery] = snapshot["overpayment_recoveries"]
    assert appeal["reason_category"] == "Overpayment recovery" and appeal["status"] == "In Review"
    assert (recovery["status"], recovery["dispute_appeal_id"]) == ("On hold - disputed", appeal["appeal_id"])
    # Disputed once: a second dispute is refused and changes nothing.
    again = portal.post("/appeals/new", dispute_form(claim, appellant_name="Jordan Ellis 2"),
                        content_type="multipart/form-data")
    assert again.status_code == 422
    assert portal.snapshot()["appeals"] == snapshot["appeals"]


def test_a_recovery_dispute_is_refused_on_a_claim_without_one_or_at_level_2(clients):
    portal = clients["payer_portal_b"]
    snapshot = portal.start_task(DISPUTE_TASK)
    [recovery] = snapshot["overpayment_recoveries"]
    [first] = [c for c in snapshot["claims"] if c["claim_number"] == recovery["first_claim_number"]]
    first = {**first, "service_date_shown": _portal_date(first["service_date"])}
    response = portal.post("/appeals/new", dispute_form(first), content_type="multipart/form-data")
    assert response.status_code == 422
    assert "is not recovering a payment on claim" in response.get_data(as_text=True)
    response = portal.post("/appeals/new", dispute_form(recovered_claim(snapshot), level="2", kind="Formal appeal"),
                           content_type="multipart/form-data")
    assert response.status_code == 422
    assert "disputed at level 1" in response.get_data(as_text=True)
    assert portal.snapshot()["appeals"] == snapshot["appeals"]


def test_the_recovery_is_a_denials_item_with_the_notice_for_the_desk(clients):
    ehr = clients["ehr_web"]
    snapshot = ehr.start_task(ACCEPT_TASK)
    [item] = [i for i in snapshot["work_items"] if i["review_reason"]]
    assert (item["queue"], item["review_reason"], item["status"]) == ("Denials", "Overpayment recovery", "New")
    assert item["due_date"] == "2026-12-07"  # two weeks before the notice's dispute date
    page = ehr.get(f"/queues/items/{item['id']}").get_data(as_text=True)
    assert "Overpayment recovery: the payer&#39;s overpayment notice" in page
    [notice] = [m for m in snapshot["inbasket_messages"] if m["subject"].startswith("Overpayment notice")]
    assert notice["recipient"] is None and item["claim_number"] in notice["subject"]
    assert "12/21/2026" in notice["body"]


def test_the_audit_tells_a_recovery_of_a_duplicate_from_one_of_another_service():
    [task] = [t for t in load_tasks() if t.id == DISPUTE_TASK]
    world = build_world()
    assert not audit_cases(world, [task]).findings
    [claim] = [c for c in task.case.claims if c.recoupment is not None]
    right = claim.recoupment.model_copy(update={"payer_error": False})
    case = task.case.model_copy(update={"claims": [c.model_copy(update={"recoupment": right}) if c is claim else c
                                                   for c in task.case.claims]})
    [finding] = audit_cases(world, [task.model_copy(update={"case": case})]).findings
    assert finding.kind == "recoupment_not_a_duplicate" and finding.record.startswith(DISPUTE_TASK)
