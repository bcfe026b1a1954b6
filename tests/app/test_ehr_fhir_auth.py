"""The EHR's FHIR R4 API recording what payers answered: a ClaimResponse saves the order's
authorization section exactly as the order screen's form does (the same rows, history and
audit), Coverage/$verify records an eligibility check as the Coverage tab does, a Task update
still equals the work-item screen, a refused write names the element and writes nothing, and
a chart held by another user refuses the chart's edits as its screens refuse them."""
from __future__ import annotations

from datetime import date

import pytest
import yaml
from flask import Flask
from sqlalchemy import select

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Coverage, Order
from admindesk.envs.ehr_web.models_work import WorkItem

from .conftest import TEMPLATE_CACHE, TOKEN, FormClient, build_app, query
from .test_ehr_fhir import FhirClient, outcome

TODAY = date(2026, 11, 16)  # the kit's default frozen clock
PAYER = "PYR-NWH"
PAS = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/"
STATUS_EXT = "urn:admindesk:ehr:fhir:authorization-status"
FIELD = "urn:admindesk:ehr:work-item-field"
# Each decision as the order screen's form takes it, and as a ClaimResponse carries it.
SCREEN = {"approve": {"status": "Approved", "payer_id": PAYER, "auth_number": "NWH26-123456",
                      "reference_number": "CS12345678", "approved_units": "12", "start_date": "11/20/2026",
                      "end_date": "02/18/2027"},
          "deny": {"status": "Denied", "payer_id": PAYER, "reference_number": "CS12345678"},
          "pend": {"status": "Pended - Info Requested", "payer_id": PAYER, "reference_number": "CS12345678"},
          "queued": {"status": "Submitted - Pending", "payer_id": PAYER, "reference_number": "CS12345678"},
          "not required": {"status": "No Auth Required", "payer_id": PAYER}}


def item(action: str, units: int | None = None) -> dict:
    """A ClaimResponse item: its PAS review action, and the approved units if any."""
    review = {"url": PAS + "extension-reviewAction", "extension": [{"url": PAS + "extension-reviewActionCode",
              "valueCodeableConcept": {"coding": [{"system": "https://codesystem.x12.org/005010/306", "code": action}]}}]}
    adjudication = [{"category": {"coding": [{"code": "submitted"}]}, "extension": [review]}]
    if units is not None:
        adjudication.append({"category": {"coding": [{"code": "approved-units"}]}, "value": units})
    return {"itemSequence": 1, "adjudication": adjudication}


API = {"approve": {"preAuthRef": "NWH26-123456", "preAuthPeriod": {"start": "2026-11-20", "end": "2027-02-18"},
                   "item": [item("A1", 12)]},
       "deny": {"item": [item("A3")]},
       "pend": {"outcome": "queued", "item": [item("A4")]},
       "queued": {"outcome": "queued"},
       "not required": {"identifier": None, "extension": [{"url": STATUS_EXT, "valueString": "No Auth Required"}]}}


def claim_response(order: Order, **changes) -> dict:
    """The payer's decision on the order (elements changed to None are left out)."""
    body = {"resourceType": "ClaimResponse", "status": "active", "use": "preauthorization",
            "type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/claim-type", "code": "professional"}]},
            "patient": {"reference": f"Patient/{order.mrn}"}, "created": "2026-11-16T09:00:00-05:00",
            "insurer": {"reference": f"Organization/{PAYER}"}, "request": {"reference": f"ServiceRequest/{order.id}"},
            "outcome": "complete", "identifier": [{"value": "CS12345678"}], **changes}
    return {key: value for key, value in body.items() if value is not None}


def parameters(**values) -> dict:
    return {"resourceType": "Parameters", "parameter": [{"name": name, "valueString": value}
                                                        for name, value in values.items()]}


def note(mrn: str, about: str | None = None) -> dict:
    return {"resourceType": "Communication", "status": "completed", "subject": {"reference": f"Patient/{mrn}"},
            "payload": [{"contentString": "Called the payer."}], **({"about": [{"reference": about}]} if about else {})}


def signed_in(app: Flask, task: str | None = None) -> FhirClient:
    client = FhirClient(app)
    client.reset(task=task)
    client.sign_in()
    return client


def screens_of(app: Flask) -> FormClient:
    screens = FormClient(app)
    screens.reset()
    screens.login()
    return screens


def written(client, action: str | None, **tables: tuple[str, object]) -> dict:
    """The rows of each table whose column (`tables`: table -> (column, value)) matches, and
    what the audit trail says of each `action` (if one is named), from a snapshot."""
    snapshot = client.snapshot()
    rows = {table: [row for row in snapshot[table] if row[column] == value] for table, (column, value) in tables.items()}
    if action is not None:
        rows["audit"] = [(row["action"], row["record_type"], row["record_id"], row["detail"])
                         for row in snapshot["audit_events"] if row["action"] == action]
    return rows


def authorization(client, order: Order, action: str | None = "update_authorization") -> dict:
    return written(client, action, order_authorizations=("order_id", order.id),
                   authorization_history=("order_id", order.id))


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)



@pytest.mark.parametrize("decisions", [("approve",), ("deny",), ("pend", "approve"), ("queued", "deny"),
                                       ("not required",)])
def test_a_claim_response_records_the_decision_as_the_order_screen_does(app, open_order, decisions):
    screens = screens_of(app)
    for decision in decisions:
        assert screens.post(f"/orders/{open_order.id}/authorization", SCREEN[decision]).status_code == 302
    by_form = authorization(screens, open_order)
    api = signed_in(app)
    for decision in decisions:
        created = api.post("/fhir/ClaimResponse", claim_response(open_order, **API[decision]))
        assert created.status_code == 201, created.get_data(as_text=True)
        assert created.headers["Location"].endswith(f"/fhir/ServiceRequest/{open_order.id}")
    assert authorization(api, open_order) == by_form
    assert by_form["authorization_history"][0]["event"] == "Initial"
    section = {part["url"]: part for part in created.get_json()["extension"][0]["extension"]}
    assert section["status"]["valueString"] == SCREEN[decisions[-1]]["status"]
    assert api.read(f"/fhir/ServiceRequest/{open_order.id}") == created.get_json()


@pytest.mark.parametrize("changes,status,expected", [
    ({"preAuthRef": None}, 422, "ClaimResponse.preAuthRef: Authorization number is required"),
    ({"preAuthRef": "<b>x</b>"}, 422, "ClaimResponse.preAuthRef: Use 6-20 letters"),
    ({"preAuthPeriod": {"start": "2026-11-20", "end": "2026-11-01"}}, 422,
     "ClaimResponse.preAuthPeriod.end: End date must be on or after the start date."),
    ({"item": [item("A3", 12)]}, 422, "Approved units can be entered only with the status Approved"),
    ({"item": [item("A1", 0)]}, 422, "ClaimResponse.item[0].adjudication[1].value: Enter a whole number from 1"),
    ({"item": [item("A1", 12), item("A3")]}, 422, "the review actions A1, A3 disagree"),
    ({"item": [item("C")]}, 422, "the review action C is not a decision this desk records"),
    ({"item": None}, 422, "ClaimResponse: give the decision"),
    ({"extension": [{"url": STATUS_EXT, "valueString": "Cancelled"}]}, 422, "Record a cancelled authorization"),
    ({"extension": [{"url": STATUS_EXT, "valueString": "Maybe"}]}, 422,
     f"ClaimResponse.extension('{STATUS_EXT}'): Not a valid choice. Authorization statuses: Not Started"),
    ({"insurer": {"reference": "Organization/PYR-NOPE"}}, 422, "ClaimResponse.insurer: Not a valid choice."),
    ({"request": None}, 422, "ClaimResponse.request: name the order"),
    ({"request": {"reference": "ServiceRequest/ORD-NOPE"}}, 422, "no ServiceRequest/ORD-NOPE in the EHR"),
    ({"patient": {"reference": "Patient/E9999999"}}, 422, "is an order of Patient/"),
    ({"use": "claim"}, 422, "ClaimResponse.use: the desk records an active preauthorization response"),
    ({"identifier": [{"value": "CS12345678"}, {"value": "CS87654321"}]}, 422, "give one, the payer's reference"),
    ({"insurer": None}, 400, "ClaimResponse.insurer"),
    ({"resourceType": "Claim"}, 400, "resourceType must be 'ClaimResponse'"),
])
def test_a_refused_claim_response_names_the_element_and_writes_nothing(app, open_order, changes, status, expected):
    api = signed_in(app)
    before = authorization(api, open_order, action=None)
    assert expected in outcome(api.post("/fhir/ClaimResponse", claim_response(open_order, **{**API["approve"],
                                                                                             **changes})), status)
    assert authorization(api, open_order, action=None) == before


def in_force(app) -> Coverage:
    return next(c for c in query(app, select(Coverage).order_by(Coverage.id)) if c.active_on(TODAY))


def verification(client, coverage: Coverage, action: str | None = "verify_coverage") -> dict:
    return written(client, action, coverages=("id", coverage.id), coverage_history=("mrn", coverage.mrn))


def test_a_coverage_verification_is_the_coverage_tabs(app):
    coverage = in_force(app)
    fields = {"result": "Active", "reference": "EL-20261116-01", "note": "Checked eligibility on the portal."}
    screens = screens_of(app)
    assert screens.post(f"/patients/{coverage.mrn}/coverage/verify",
                        {"coverage_id": coverage.id, **fields}).status_code == 302
    by_form = verification(screens, coverage)
    api = signed_in(app)
    verified = api.post(f"/fhir/Coverage/{coverage.id}/$verify", parameters(**fields))
    assert verified.status_code == 200, verified.get_data(as_text=True)
    assert verification(api, coverage) == by_form
    [extension] = verified.get_json()["extension"]
    assert {part["url"]: next(v for k, v in part.items() if k.startswith("value")) for part in extension["extension"]} \
        == {"status": "Verified - Active", "date": "2026-11-16", "by": "coordinator", "reference": "EL-20261116-01"}
    assert api.read(f"/fhir/Coverage/{coverage.id}") == verified.get_json()


@pytest.mark.parametrize("body,status,expected", [
    (parameters(result="Maybe"), 422, "Parameters.parameter.where(name='result'): Not a valid choice. Results: Active"),
    (parameters(reference="EL-20261116-01"), 422, "Choose what the eligibility check returned."),
    (parameters(result="Active", reference="no spaces allowed"), 422, "Use 6-20 letters, digits or dashes"),
    (parameters(result="Active", status="Verified"), 422, "unknown parameter 'status'; $verify takes result"),
    ({"resourceType": "Parameters", "parameter": [{"name": "result", "valueBoolean": True}]}, 422,
     "'result' takes valueCode or valueString"),
    ({"resourceType": "Coverage"}, 400, "resourceType must be 'Parameters'"),
])
def test_a_refused_verification_names_the_element_and_writes_nothing(app, body, status, expected):
    coverage, api = in_force(app), signed_in(app)
    before = verification(api, coverage, action=None)
    assert expected in outcome(api.post(f"/fhir/Coverage/{coverage.id}/$verify", body), status)
    assert verification(api, coverage, action=None) == before


def test_an_ended_coverage_is_not_verified_active_and_an_unknown_one_is_not_found(app):
    ended = next(c for c in query(app, select(Coverage).order_by(Coverage.id))
                 if c.termination_date and c.termination_date < TODAY)
    api = signed_in(app)
    before = verification(api, ended, action=None)
    refused = api.post(f"/fhir/Coverage/{ended.id}/$verify", parameters(result="Active"))
    assert "cannot be verified active today" in outcome(refused, 422)
    assert verification(api, ended, action=None) == before
    assert "Coverage/COV-NOPE is not in the EHR" in outcome(
        api.post("/fhir/Coverage/COV-NOPE/$verify", parameters(result="Active")), 404)


def test_a_task_update_with_queue_fields_is_the_work_item_screens(app):
    work_item = query(app, select(WorkItem).where(WorkItem.queue == "Denials", WorkItem.status == "New")
                      .order_by(WorkItem.id).limit(1))[0]
    screens = screens_of(app)
    assert screens.post(f"/queues/items/{work_item.id}/status", {
        "status": "Appeal Filed", "appeal_reference": "APL-2026-0001", "appeal_submitted_on": "11/16/2026",
        "note": "Appeal faxed."}).status_code == 302
    tables = {"work_items": ("id", work_item.id), "work_item_events": ("work_item_id", work_item.id),
              "notes": ("subject_id", str(work_item.id))}
    by_form = written(screens, "update_work_item", **tables)
    api = signed_in(app)
    task = api.read(f"/fhir/Task/{work_item.id}")
    task.update(businessStatus={"text": "Appeal Filed"}, note=[{"text": "Appeal faxed."}], output=[
        {"type": {"coding": [{"system": FIELD, "code": "appeal-reference"}]}, "valueString": "APL-2026-0001"},
        {"type": {"coding": [{"system": FIELD, "code": "appeal-submitted-on"}]}, "valueDate": "2026-11-16"}])
    assert api.put(f"/fhir/Task/{work_item.id}", task).status_code == 200
    assert written(api, "update_work_item", **tables) == by_form
    assert [event["change"] for event in by_form["work_item_events"]] == [
        "Status: Appeal Filed; Appeal / corrected claim #: APL-2026-0001; Submitted to payer on: 11/16/2026"]


@pytest.fixture(scope="module")
def locking_app(tmp_path_factory) -> Flask:
    """An EHR whose task `lock` turns the chart-lock interruption on."""
    tasks = tmp_path_factory.mktemp("ehr-lock-tasks")
    (tasks / "lock.yaml").write_text(yaml.safe_dump({"id": "lock", "interruptions": {"ehr_web": ["chart_lock"]}}))
    return create_app(AppConfig(data_dir=tmp_path_factory.mktemp("ehr-lock-data"), token=TOKEN, testing=True,
                                cache_dir=TEMPLATE_CACHE, tasks_dir=tasks))


def test_a_locked_chart_refuses_the_apis_chart_edits_as_its_screens_do(locking_app):
    work_item = query(locking_app, select(WorkItem).where(WorkItem.queue == "Prior Auth", WorkItem.status == "New")
                      .order_by(WorkItem.id).limit(1))[0]
    order = query(locking_app, select(Order).where(Order.id == work_item.order_id))[0]
    coverage = query(locking_app, select(Coverage).where(Coverage.mrn == order.mrn).limit(1))[0]
    edits = [("/fhir/Communication", note(order.mrn)), ("/fhir/Communication", note(order.mrn, f"ServiceRequest/"
                                                                                              f"{order.id}")),
             ("/fhir/ClaimResponse", claim_response(order, **API["approve"])),
             (f"/fhir/Coverage/{coverage.id}/$verify", parameters(result="Inactive"))]
    api = signed_in(locking_app, task="lock")
    tables = ("notes", "order_authorizations", "authorization_history", "coverages", "coverage_history")
    before = api.snapshot()
    refusals = [outcome(api.post(path, body), 423) for path, body in edits]
    after = api.snapshot()
    assert all(after[table] == before[table] for table in tables)
    assert [(row["endpoint"], row["record_id"], row["status_code"]) for row in after["audit_events"]
            if row["action"] == "refused_locked_chart"] == [
        ("api_fhir.create", order.mrn, 423)] * 3 + [("api_fhir.verify_coverage", order.mrn, 423)]
    # The work queue is not part of the chart: its notes and statuses stay writable, as on the screens.
    assert api.post("/fhir/Communication", note(order.mrn, f"Task/{work_item.id}")).status_code == 201
    screens = FormClient(locking_app)
    screens.login()
    screens.post(f"/patients/{order.mrn}/chart-lock", {"action": "take_over"})
    [taken_over] = api.snapshot()["chart_lock_events"]
    assert all(f"Patient/{order.mrn} is read-only: {taken_over['locked_by']} has it open" in text for text in refusals)
    assert [api.post(path, body).status_code for path, body in edits] == [201, 201, 201, 200]
