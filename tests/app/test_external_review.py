"""After an upheld level 2, portal A takes an independent external review the way its letter
says (a clinical appeal at the External review level, within the window counted from the
level 2 decision), and refuses any other kind without writing anything. And the EHR sends a
service performed without the authorization it needed, not billed yet, to the Prior Auth desk."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.cases import build_case
from admindesk.schema.task_model import load_task_file
from tests.cases.examples import TASKS_DIR

from .conftest import case_clients

TASK_ID = "case-external-review"
TASK_FILE = TASKS_DIR / "external-review.yaml"
TODAY = date(2026, 11, 16)


@pytest.fixture(scope="module")
def records():
    task = load_task_file(TASK_FILE)
    return build_case(build_world(), task.id, task.case)


@pytest.fixture(scope="module")
def clients(app_data_dir):
    return case_clients(app_data_dir / "external-review", ("payer_portal_a", "ehr_web"), TASKS_DIR)


def _request(client, claim_number: str, appeal_type: str):
    data = {"appeal_type": appeal_type, "level": "External", "reason": "Medical necessity",
            "contact_name": "Jordan Ellis", "contact_phone": "717-555-0100",
            "letter_text": "Request for independent external review of the upheld level 2 decision."}
    return client.post(f"/appeals/new?claim_number={claim_number}", data, content_type="multipart/form-data")


def test_the_level_2_letter_offers_external_review_and_the_portal_takes_it_as_a_clinical_appeal(clients, records):
    client = clients["payer_portal_a"]
    snap = client.start_task(TASK_ID)
    (claim,) = records.payer.claims
    level1, level2 = (next(a for a in snap["appeals"] if a["level"] == level) for level in ("1", "2"))
    letters = {row["letter_number"]: row["body"] for row in snap["letters"]}
    last_day = date(2026, 9, 1) + timedelta(days=180)  # Northwind's appeal window, from the level 2 decision
    assert f"external review by an independent review organization within 180 days of this notice (by " \
           f"{last_day:%m/%d/%Y})" in letters[level2["decision_letter_number"]]
    assert "external review" not in letters[level1["decision_letter_number"]]  # level 1 opens a level 2

    form = client.get(f"/appeals/new?claim_number={claim.claim_number}").get_data(as_text=True)
    assert '<option selected value="External">' in form and 'alert-error' not in form  # proposed, open

    refused = _request(client, claim.claim_number, "Formal Appeal")
    assert refused.status_code == 422 and "choose Clinical Appeal" in refused.get_data(as_text=True)
    assert len(client.snapshot()["appeals"]) == 2  # nothing written

    assert _request(client, claim.claim_number, "Clinical Appeal").status_code == 302
    (filed,) = [a for a in client.snapshot()["appeals"] if a["level"] == "External"]
    assert (filed["appeal_type"], filed["prior_reference"], filed["status"]) == (
        "Clinical Appeal", level2["reference_number"], "In Review")
    assert filed["decision_due"].startswith((TODAY + timedelta(days=45)).isoformat())  # the reviewer's 45 days


def test_a_service_performed_without_its_authorization_comes_back_to_the_prior_auth_desk(clients, records):
    snap = clients["ehr_web"].start_task(TASK_ID)
    mri, scan = (order.id for order in records.chart.orders)
    items = [(i["order_id"], i["status"], i["priority"], i["assignee"], i["created_on"])
             for i in snap["work_items"] if i["queue"] == "Prior Auth" and i["order_id"] in (mri, scan)]
    # Charge review finds the unbilled urgent scan two days after it was done; the billed MRI's
    # authorization was obtained long ago (its claim is the Denials desk's).
    assert [item for item in items if item[0] == scan] == [(scan, "New", "Urgent", "coordinator", "2026-11-12")]
    assert [item[1] for item in items if item[0] == mri] in ([], ["Auth Obtained"])
