"""DME tasks scored against the rows the real workflows write: a coordinator's right path
through the EHR, Keystone Mutual's portal (B) and the fax app passes every deterministic
check and guard of dme-hard-02, and the same path faxed to the wrong line does not."""
from __future__ import annotations

import importlib
import io
from datetime import date

import pytest

from admindesk.envs.common.factory import AppConfig
from admindesk.harness.env.services import APP_NAMES
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_task_file
from admindesk.verifiers import score_task
from admindesk.verifiers.records import EpisodeRecord
from tests.app.conftest import TEMPLATE_CACHE, TOKEN, FormClient
from tests.app.test_fax_support import new_draft, post_draft

TASK = load_task_file(TASKS_ROOT / "dme" / "dme-hard-02.yaml")


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    data = tmp_path_factory.mktemp("dme-workflows")
    return {name: importlib.import_module(f"admindesk.envs.{name}").create_app(
        AppConfig(data_dir=data / name, token=TOKEN, testing=True, tasks_dir=TASKS_ROOT, cache_dir=TEMPLATE_CACHE))
        for name in APP_NAMES}


@pytest.fixture
def clients(apps):
    """Signed-in clients on every app, reset to the task's case."""
    found = {}
    for name, app in apps.items():
        client = FormClient(app)
        reset = client.client.post("/_bench/reset", json={"task": TASK.id, "now": TASK.now.isoformat()},
                                   headers={"X-Bench-Token": TOKEN})
        assert reset.status_code == 200, reset.get_data(as_text=True)
        client.login()
        found[name] = client
    return found


def _portal_date(value: str) -> str:
    return date.fromisoformat(value).strftime("%d-%b-%Y")


def _us_date(value: date) -> str:
    return value.strftime("%m/%d/%Y")


def play(clients, to_supplier_line: bool = True) -> EpisodeRecord:
    """The coordinator's path for dme-hard-02; returns the episode's record."""
    ehr, portal, fax = clients["ehr_web"], clients["payer_portal_b"], clients["fax"]
    case, initial = case_values(TASK), {name: c.snapshot() for name, c in clients.items()}
    ids = case["ids"]
    order_id, member = ids["orders"]["svc"], ids["coverages"]["primary"]["payer_member_id"]
    assert ehr.get(f"/orders/{order_id}").status_code == 200
    assert ehr.get(f"/documents/{ids['documents']['f2f']}").status_code == 200
    pdfs = {key: ehr.get(f"/documents/{ids['documents'][key]}/download").data for key in ("wo", "f2f", "study")}
    assert portal.get("/policies/KM-DME-401").status_code == 200
    checked = portal.post("/eligibility", {"subscriber_id": member, "dob": _portal_date(case["patient"]["dob"])})
    assert checked.status_code == 302, checked.get_data(as_text=True)
    chart = initial["ehr_web"]
    order = next(o for o in chart["orders"] if o["id"] == order_id)
    supplier = next(s for s in chart["suppliers"] if s["id"] == case["orders"][0]["supplier"])
    f2f, study = case["documents"][0], case["documents"][1]
    submitted = portal.post("/dme/new", {
        "subscriber_id": member, "subscriber_dob": _portal_date(case["patient"]["dob"]), "hcpcs_code": "E0601",
        "quantity": "1", "diagnosis_codes": "G47.33", "ordering_npi": order["ordering_npi"],
        "supplier_npi": supplier["npi"], "face_to_face_date": _portal_date(f2f["date"]),
        "order_date": _portal_date(case["documents"][2]["date"]), "ahi": str(study["facts"]["ahi"]),
        "request_kind": "Initial", "sleep_test_date": _portal_date(study["date"]),
        "document_type_2": "Sleep study report",
        "written_order": (io.BytesIO(pdfs["wo"]), "order.pdf"), "attachment_2": (io.BytesIO(pdfs["study"]), "psg.pdf")},
        content_type="multipart/form-data")
    assert submitted.status_code == 302, submitted.get_data(as_text=True)
    request = next(r for r in portal.snapshot()["dme_requests"] if r["subscriber_id"] == member)
    assert request["status"] == "Approved", request["decision_reason"]
    recorded = ehr.post(f"/orders/{order_id}/authorization", {
        "status": "Approved", "payer_id": "PYR-KMH", "auth_number": request["authorization_number"],
        "reference_number": request["request_id"], "approved_units": "1",
        "start_date": _us_date(TASK.now.date()), "end_date": "02/16/2027"})
    assert recorded.status_code == 302, recorded.get_data(as_text=True)
    directory = fax.snapshot()["directory_contacts"]
    line = next(c for c in directory if c["external_ref"] == supplier["id"] and c["contact_type"] == "DME Supplier"
                and c["line_status"] == ("Active" if to_supplier_line else "Disconnected"))
    draft = new_draft(fax)
    name = f"{case['patient']['first_name']} {case['patient']['last_name']}"
    cover = {"to_number": line["fax_number"], "recipient_name": line["name"], "cover_to": "Order intake",
             "cover_re": f"CPAP order for {name}, DOB 03/03/1971",
             "comments": f"Insurance: Keystone Mutual Health, auth {request['authorization_number']}. "
                         "Enclosed: written order, face-to-face evaluation, sleep study."}
    for index, key in enumerate(("wo", "f2f")):
        post_draft(fax, draft, "upload", attachment=(io.BytesIO(pdfs[key]), f"{key}{index}.pdf"), **cover)
    sent = post_draft(fax, draft, "send", attachment=(io.BytesIO(pdfs["study"]), "study.pdf"), **cover)
    assert sent.status_code == 302, sent.get_data(as_text=True)
    assert fax.get("/inbox").status_code == 200
    replies = fax.snapshot()["supplier_replies"]
    for reply in replies:  # the coordinator opens the supplier's reply to read its order number
        assert fax.get(f"/inbox/{reply['inbound_fax_id']}").status_code == 200
    item = next(w for w in ehr.snapshot()["work_items"] if w["order_id"] == order_id and w["queue"] == "DME")
    updated = ehr.post(f"/queues/items/{item['id']}/status", {
        "status": "Supplier Confirmed" if replies else "Sent to Supplier", "supplier_id": supplier["id"],
        "supplier_confirmation": replies[-1]["supplier_order_number"] if replies else "",
        "note": f"Keystone Mutual approved the CPAP ({request['authorization_number']}); packet faxed to "
                f"{supplier['name']}."})
    assert updated.status_code == 302, updated.get_data(as_text=True)
    final = {name: c.snapshot() for name, c in clients.items()}
    return EpisodeRecord(task_id=TASK.id, initial_snapshots=initial, final_snapshots=final,
                         answer="Approved and confirmed by the supplier.")


def test_the_right_path_passes_every_deterministic_check_and_guard(clients):
    result = score_task(TASK, play(clients))
    named = [check for subtask in result.subtasks for check in subtask.checks] + result.guards
    failing = [item.result.explanation for item in named if not item.result.passed and item.result.judged]
    assert failing == []
    assert result.outcome == "unjudged"


def test_a_packet_sent_to_the_suppliers_disconnected_line_fails(clients):
    result = score_task(TASK, play(clients, to_supplier_line=False))
    assert result.outcome == "fail"
