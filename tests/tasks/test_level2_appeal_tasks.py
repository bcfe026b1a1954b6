"""Level-2 appeal tasks scored against the rows the real workflows write. appeal-medium-03: the
denial item records the level-1 appeal (Appeal Filed, its reference, due for follow-up), the
payer upheld it; a specialist's right path (the level 2 on portal A with the consultation the
decision lacked, recorded on the item) passes every deterministic check and guard, and the
same appeal without that document does not. appeal-medium-06: the level-2 window has closed;
writing down why and asking for the write-off passes, and the appeal is refused by the portal."""
from __future__ import annotations

import importlib
import io
from datetime import date, timedelta

import pytest

from admindesk.envs.common.factory import AppConfig
from admindesk.harness.env.services import APP_NAMES
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_task_file
from admindesk.verifiers import score_task
from admindesk.verifiers.records import EpisodeRecord
from tests.app.conftest import TEMPLATE_CACHE, TOKEN, FormClient

OPEN = load_task_file(TASKS_ROOT / "appeals" / "appeal-medium-03.yaml")
CLOSED = load_task_file(TASKS_ROOT / "appeals" / "appeal-medium-06.yaml")


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    data = tmp_path_factory.mktemp("level2-appeals")
    return {name: importlib.import_module(f"admindesk.envs.{name}").create_app(
        AppConfig(data_dir=data / name, token=TOKEN, testing=True, tasks_dir=TASKS_ROOT, cache_dir=TEMPLATE_CACHE))
        for name in APP_NAMES}


def reset(apps, task) -> dict[str, FormClient]:
    """Signed-in clients on every app, reset to the task's case."""
    found = {}
    for name, app in apps.items():
        client = FormClient(app)
        done = client.client.post("/_bench/reset", json={"task": task.id, "now": task.now.isoformat()},
                                  headers={"X-Bench-Token": TOKEN})
        assert done.status_code == 200, done.get_data(as_text=True)
        client.login()
        found[name] = client
    return found


def denial_item(ehr: FormClient, claim: str) -> dict:
    return next(w for w in ehr.snapshot()["work_items"] if w["claim_number"] == claim and w["queue"] == "Denials")


def read_denial(ehr: FormClient, ids: dict) -> dict:
    """The specialist opens the item, the claim and its EOB in the EHR; returns the item."""
    claim = ids["claims"]["denied"]
    item = denial_item(ehr, claim)
    for url in (f"/queues/items/{item['id']}", f"/claims/{claim}", f"/claims/{claim}/remittance"):
        assert ehr.get(url).status_code == 200, url
    return item


def read_level1(portal: FormClient, claim: str, reference: str, detail: str) -> None:
    assert portal.get(f"/claims/{claim}", query_string={"tab": "appeals"}).status_code == 200
    assert portal.get(f"{detail}/{reference}").status_code == 200


def record(task, clients, answer: str) -> EpisodeRecord:
    return EpisodeRecord(task_id=task.id, initial_snapshots=clients.pop("initial"),
                         final_snapshots={name: c.snapshot() for name, c in clients.items()}, answer=answer)


def test_the_item_records_the_level1_appeal_the_payer_upheld(apps):
    clients = reset(apps, OPEN)
    case = case_values(OPEN)
    ids = case["ids"]
    item = denial_item(clients["ehr_web"], ids["claims"]["denied"])
    level1 = next(a for a in clients["payer_portal_a"].snapshot()["appeals"]
                  if a["claim_number"] == ids["claims"]["denied"])
    assert (item["status"], item["appeal_reference"], item["appeal_submitted_on"]) == (
        "Appeal Filed", level1["reference_number"], case["payer_history"]["appeals"][0]["filed_on"])
    assert item["follow_up_date"] <= OPEN.now.date().isoformat()  # due: it is on the Active tab
    assert (level1["level"], level1["decision"]) == ("1", "Upheld")


def play_level2(apps, with_document: bool = True) -> EpisodeRecord:
    """The specialist's path for appeal-medium-03."""
    clients = reset(apps, OPEN)
    clients["initial"] = {name: c.snapshot() for name, c in clients.items()}
    ehr, portal = clients["ehr_web"], clients["payer_portal_a"]
    ids = case_values(OPEN)["ids"]
    claim, doc = ids["claims"]["denied"], ids["documents"]["consult"]
    item = read_denial(ehr, ids)
    pdf = ehr.get(f"/documents/{doc}/download").data
    read_level1(portal, claim, item["appeal_reference"], "/appeals")
    form = {"appeal_type": "Clinical Appeal", "level": "2", "reason": "Medical necessity",
            "contact_name": "Jordan Ellis", "contact_phone": "570-555-0142",
            "letter_text": f"Level 2 appeal of claim {claim} after level 1 appeal {item['appeal_reference']} was "
                           "upheld; the sleep medicine consultation it lacked is enclosed."}
    if with_document:
        form.update(attachment_type="Clinical notes", attachment_file=(io.BytesIO(pdf), "consult.pdf"))
    filed = portal.post(f"/appeals/new?claim_number={claim}", form, content_type="multipart/form-data")
    assert filed.status_code == 302, filed.get_data(as_text=True)
    level2 = next(a for a in portal.snapshot()["appeals"] if a["claim_number"] == claim and a["level"] == "2")
    today = OPEN.now.date()
    updated = ehr.post(f"/queues/items/{item['id']}/status", {
        "status": "Appeal Filed", "appeal_reference": level2["reference_number"],
        "appeal_submitted_on": today.strftime("%m/%d/%Y"),
        "follow_up_date": (today + timedelta(days=30)).strftime("%m/%d/%Y"),
        "note": f"Level 1 {item['appeal_reference']} upheld; level 2 {level2['reference_number']} filed with the "
                "consultation. Follow up in 30 days."})
    assert updated.status_code == 302, updated.get_data(as_text=True)
    return record(OPEN, clients, f"Level 2 appeal {level2['reference_number']} filed.")


def deterministic_failures(task, episode: EpisodeRecord) -> list[str]:
    result = score_task(task, episode)
    named = [check for subtask in result.subtasks for check in subtask.checks] + result.guards
    return [item.result.explanation for item in named if not item.result.passed and item.result.judged]


def test_the_level2_with_the_missing_document_passes_every_deterministic_check(apps):
    assert deterministic_failures(OPEN, play_level2(apps)) == []


def test_a_level2_without_the_missing_document_fails(apps):
    assert score_task(OPEN, play_level2(apps, with_document=False)).outcome == "fail"


def test_past_the_level2_window_the_write_off_request_passes_and_the_portal_refuses_a_filing(apps):
    clients = reset(apps, CLOSED)
    clients["initial"] = {name: c.snapshot() for name, c in clients.items()}
    ehr, portal = clients["ehr_web"], clients["payer_portal_b"]
    ids = case_values(CLOSED)["ids"]
    claim = ids["claims"]["denied"]
    item = read_denial(ehr, ids)
    read_level1(portal, claim, item["appeal_reference"], "/appeals")
    assert portal.get("/appeals/new", query_string={"claim": claim}).status_code == 200
    refused = portal.post("/appeals/new", {"level": "2", "kind": "Formal appeal", "claim_number": claim})
    assert "filing window ended on 03-Nov-2026" in refused.get_data(as_text=True)
    note = (f"Level 1 appeal {item['appeal_reference']} was upheld on 9/4/2026; Keystone's level 2 window closed "
            "on 11/3/2026. Nothing filed. Supervisor: please approve the write-off of the CO-50 balance.")
    assert ehr.post(f"/queues/items/{item['id']}/notes", {"text": note}).status_code == 302
    # The status form carries the item's overdue follow-up date as it is: it may stay.
    overdue = date.fromisoformat(item["follow_up_date"]).strftime("%m/%d/%Y")
    closed = ehr.post(f"/queues/items/{item['id']}/status", {"status": "Write-off Requested", "follow_up_date": overdue})
    assert closed.status_code == 302, closed.get_data(as_text=True)
    assert deterministic_failures(CLOSED, record(CLOSED, clients, "Nothing filed; write-off requested.")) == []
