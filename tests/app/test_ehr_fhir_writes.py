"""The EHR's FHIR R4 API, writing: a Communication stores the note the HTML note forms store,
a Task update changes a work item as the work-item screen does (the same rules, history and
audit), and a refused write answers an OperationOutcome naming the element and stores nothing."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Patient
from admindesk.envs.ehr_web.models_work import WorkItem

from .conftest import FormClient, build_app, query
from .test_ehr_fhir import FhirClient, outcome

FOLLOW_UP = "urn:admindesk:ehr:fhir:follow-up-date"
FIELD = "urn:admindesk:ehr:work-item-field"


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture
def api(app) -> FhirClient:
    """Signed in with a token, on a fresh reset of the world (no task's case)."""
    client = FhirClient(app)
    client.reset(task=None)
    client.sign_in()
    return client


def note(mrn: str, text: str, about: str | None = None) -> dict:
    return {"resourceType": "Communication", "status": "completed", "subject": {"reference": f"Patient/{mrn}"},
            "payload": [{"contentString": text}], **({"about": [{"reference": about}]} if about else {})}


def first_item(app, queue: str, status: str = "New") -> WorkItem:
    return query(app, select(WorkItem).where(WorkItem.queue == queue, WorkItem.status == status)
                 .order_by(WorkItem.id).limit(1))[0]


def work_rows(api: FhirClient) -> dict:
    snapshot = api.snapshot()
    return {name: snapshot[name] for name in ("notes", "work_items", "work_item_events")}


def without_ids(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items() if key != "id"} for row in rows]


def test_a_communication_is_the_note_the_chart_form_stores(api):
    mrn = "E1000449"
    created = api.post("/fhir/Communication", note(mrn, "Called the payer: eligibility active."))
    assert created.status_code == 201, created.get_data(as_text=True)
    assert api.read(created.headers["Location"].removeprefix("http://localhost")) == created.get_json()
    screens = FormClient(api.app)
    screens.login()
    screens.post(f"/patients/{mrn}/notes", {"text": "Called the payer: eligibility active."})
    by_api, by_form = without_ids(api.snapshot()["notes"])
    assert by_api == by_form and (by_api["subject_type"], by_api["subject_id"]) == ("patient", mrn)
    assert by_api["author"] == "coordinator"
    assert screens.get(f"/patients/{mrn}/notes").get_data(as_text=True).count("eligibility active") == 2
    [audit] = [row for row in api.snapshot()["audit_events"] if row["endpoint"] == "api_fhir.create"]
    assert (audit["action"], audit["record_type"], audit["record_id"], audit["username"]) == (
        "add_note", "patient", mrn, "coordinator")


def test_a_communication_about_an_order_claim_or_work_item_is_its_note(app, api):
    item = first_item(app, "Denials")
    for about, subject in ((f"Task/{item.id}", ("work_item", str(item.id))),
                           (f"Claim/{item.claim_number}", ("claim", item.claim_number))):
        created = api.post("/fhir/Communication", note(item.mrn, f"Note on {about}", about))
        assert created.status_code == 201 and created.get_json()["about"] == [{"reference": about}]
        stored = api.snapshot()["notes"][-1]
        assert (stored["subject_type"], stored["subject_id"], stored["mrn"]) == (*subject, item.mrn)
    order = first_item(app, "Prior Auth")
    assert api.post("/fhir/Communication", note(order.mrn, "Order comment.", f"ServiceRequest/{order.order_id}")
                    ).status_code == 201
    assert api.snapshot()["notes"][-1]["subject_type"] == "order"
    assert [c["payload"][0]["contentString"] for c in api.search(
        f"/fhir/Communication?about=ServiceRequest/{order.order_id}")] == ["Order comment."]


@pytest.mark.parametrize("body,status,expected", [
    (note("E1000449", "   "), 422, "Communication.payload[0].contentString: Enter the note text."),
    (note("E1000449", "x" * 4001), 422, "Notes are limited to 4000 characters"),
    (note("E9999999", "Text."), 422, "Communication.subject: no patient Patient/E9999999"),
    (note("E1000449", "Text.", "Claim/NOPE-1"), 422, "no Claim/NOPE-1 in the EHR"),
    (note("E1000449", "Text.", "Encounter/ENC-1"), 422, "not a Encounter"),
    ({**note("E1000449", "Text."), "payload": []}, 422, "exactly one payload"),
    ({**note("E1000449", "Text."), "status": None}, 400, "Communication.status: Value for the field 'status'"),
    ({**note("E1000449", "Text."), "resourceType": "Task"}, 400, "resourceType must be 'Communication'"),
    ({"resourceType": "Communication", "status": "completed"}, 422, "Communication.subject"),
])
def test_a_refused_communication_names_the_element_and_stores_nothing(api, body, status, expected):
    body = {key: value for key, value in body.items() if value is not None}
    assert expected in outcome(api.post("/fhir/Communication", body), status)
    assert api.snapshot()["notes"] == []


def test_a_note_about_another_patients_record_is_refused(app, api):
    item = first_item(app, "Prior Auth")
    other = query(app, select(Patient.mrn).where(Patient.mrn != item.mrn).limit(1))[0]
    refused = api.post("/fhir/Communication", note(other, "Text.", f"Task/{item.id}"))
    assert f"belongs to patient {item.mrn}" in outcome(refused, 422)
    assert api.snapshot()["notes"] == []


def test_a_task_update_changes_the_work_item_as_the_screen_does(app, api):
    item = first_item(app, "Prior Auth")
    screens = FormClient(app)
    screens.login()
    screens.post(f"/queues/items/{item.id}/status", {"status": "Submitted - Pending", "follow_up_date": "11/20/2026",
                                                     "note": "Submitted on the portal."})
    by_form = work_rows(api)
    api.reset(task=None)
    api.sign_in()
    task = api.read(f"/fhir/Task/{item.id}")
    assert task["status"] == "requested" and task["businessStatus"] == {"text": "New"}
    task.update(businessStatus={"text": "Submitted - Pending"}, note=[{"text": "Submitted on the portal."}],
                extension=[{"url": FOLLOW_UP, "valueDate": "2026-11-20"}])
    updated = api.put(f"/fhir/Task/{item.id}", task)
    assert updated.status_code == 200, updated.get_data(as_text=True)
    assert updated.get_json()["status"] == "in-progress" and updated.get_json()["note"][0]["time"]
    by_api = work_rows(api)
    assert {name: without_ids(rows) for name, rows in by_api.items()} == {
        name: without_ids(rows) for name, rows in by_form.items()}
    [event] = by_api["work_item_events"]
    assert event["change"] == "Status: Submitted - Pending; Follow-up date: 11/20/2026"
    [audit] = [row for row in api.snapshot()["audit_events"] if row["endpoint"] == "api_fhir.update"]
    assert (audit["action"], audit["record_id"], audit["username"], audit["detail"]["status"]) == (
        "update_work_item", str(item.id), "coordinator", "Submitted - Pending")
    assert [t["id"] for t in api.search(f"/fhir/Task?patient={item.mrn}&business-status=Submitted - Pending")] == [
        str(item.id)]
    assert str(item.id) in [t["id"] for t in api.search("/fhir/Task?status=in-progress&code=prior-auth&_count=100")]


def test_queue_fields_are_task_outputs(app, api):
    item = first_item(app, "Denials")
    task = api.read(f"/fhir/Task/{item.id}")
    task.update(businessStatus={"text": "Appeal Filed"}, output=[
        {"type": {"coding": [{"system": FIELD, "code": "appeal-reference"}]}, "valueString": "APL-2026-0001"},
        {"type": {"coding": [{"system": FIELD, "code": "appeal-submitted-on"}]}, "valueDate": "2026-11-16"}])
    assert api.put(f"/fhir/Task/{item.id}", task).status_code == 200
    row = next(r for r in api.snapshot()["work_items"] if r["id"] == item.id)
    assert (row["status"], row["appeal_reference"], row["appeal_submitted_on"]) == (
        "Appeal Filed", "APL-2026-0001", "2026-11-16")
    outputs = {o["type"]["coding"][0]["code"]: o for o in api.read(f"/fhir/Task/{item.id}")["output"]}
    assert outputs["appeal-reference"]["valueString"] == "APL-2026-0001"
    dme = first_item(app, "DME")
    task = api.read(f"/fhir/Task/{dme.id}")
    task.update(businessStatus={"text": "Sent to Supplier"}, output=[
        {"type": {"coding": [{"system": FIELD, "code": "supplier"}]}, "valueReference": {"reference":
                                                                                       "Organization/SUP-BRH"}}])
    assert api.put(f"/fhir/Task/{dme.id}", task).status_code == 200
    assert next(r for r in api.snapshot()["work_items"] if r["id"] == dme.id)["supplier_id"] == "SUP-BRH"


@pytest.mark.parametrize("queue,change,status,expected", [
    ("Prior Auth", {"businessStatus": {"text": "Resolved"}}, 422,
     "Task.businessStatus: Not a valid choice. The Prior Auth queue's statuses: New, In Progress"),
    ("Prior Auth", {"businessStatus": None}, 422, "Task.businessStatus: give the queue status"),
    ("Prior Auth", {"extension": [{"url": FOLLOW_UP, "valueDate": "2026-01-02"}]}, 422,
     "Follow-up date cannot be in the past."),
    ("Denials", {"businessStatus": {"text": "Appeal Filed"}}, 422,
     "Task.output.where(type.coding.code='appeal-reference'): Appeal reference is required"),
    ("Prior Auth", {"output": [{"type": {"coding": [{"system": FIELD, "code": "supplier"}]},
                                "valueReference": {"reference": "Organization/SUP-BRH"}}]}, 422,
     "the Prior Auth queue does not record 'supplier'"),
    ("DME", {"businessStatus": {"text": "Sent to Supplier"}, "output": [
        {"type": {"coding": [{"system": FIELD, "code": "supplier"}]}, "valueReference": {"reference":
                                                                                       "Organization/PYR-KMH"}}]},
     422, "Task.output.where(type.coding.code='supplier'): Not a valid choice"),
    ("Prior Auth", {"note": [{"text": "One."}, {"text": "Two."}]}, 422, "add one new note at a time"),
    ("Prior Auth", {"id": "999999"}, 400, "Task.id: the body is Task/999999"),
    ("Prior Auth", {"intent": None}, 400, "Task.intent: Value for the field 'intent' is required"),
])
def test_a_refused_task_update_names_the_element_and_changes_nothing(app, api, queue, change, status, expected):
    item = first_item(app, queue)
    task = {**api.read(f"/fhir/Task/{item.id}"), **change}
    before = work_rows(api)
    assert expected in outcome(api.put(f"/fhir/Task/{item.id}", {k: v for k, v in task.items() if v is not None}),
                               status)
    assert work_rows(api) == before


def test_only_notes_and_work_items_are_written(api):
    assert "cannot be created here" in outcome(api.post("/fhir/Patient", {"resourceType": "Patient"}), 405)
    assert "Task/999999 is not in the EHR" in outcome(api.put("/fhir/Task/999999", {"resourceType": "Task"}), 404)
    assert "The body must be a Task" in outcome(api.client.put("/fhir/Task/1", data="status=done",
                                                               headers=api.headers), 400)
