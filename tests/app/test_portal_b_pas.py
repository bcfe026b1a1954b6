"""Portal B's Da Vinci PAS API: a `Claim/$submit` for a task's order leaves exactly the rows the
precertification form leaves and answers the same decision (approve, pend, deny, duplicate,
a partial approval of two lines).

The helpers here (an order as both channels fill it, the PAS Bundle, the token, R4B parsing)
are shared with test_portal_b_pas_checks.py and test_portal_b_pas_inquire.py.
"""
from __future__ import annotations

import base64
import io
import uuid
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

import pytest
from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.claimresponse import ClaimResponse
from fhir.resources.R4B.operationoutcome import OperationOutcome
from fhir.resources.R4B.parameters import Parameters

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b import create_app
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import load_task_file

from .conftest import TOKEN, FormClient, build_app

TASKS_DIR = Path(__file__).resolve().parents[2] / "tasks" / "prior_auth"
KEYSTONE = "PYR-KMH"
QUESTION = "https://provider.keystonemutual.example/fhir/CodeSystem/precert-question"
DOCUMENT_TYPE = "https://provider.keystonemutual.example/fhir/CodeSystem/document-type"
INFO_CATEGORY = "http://terminology.hl7.org/CodeSystem/claiminformationcategory"
REVIEW_ACTION = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/extension-reviewAction"
# The documents each policy asks for (data/policies.yaml), as the task's chart would supply them; a code no
# policy governs goes with the clinical notes.
DOCUMENTS = {"72148": ("Clinical notes",), "72131": ("Clinical notes",), "72141": ("Clinical notes",),
             "73721": ("Clinical notes", "Imaging report")}
FHIR_MODELS = {"Bundle": Bundle, "OperationOutcome": OperationOutcome, "Parameters": Parameters}


@dataclass(frozen=True)
class Order:
    """One precertification request as a coordinator files it, through either channel."""

    subscriber_id: str
    dob: date
    npi: str
    code: str
    units: int
    diagnoses: tuple[str, ...]
    start: date
    end: date
    weeks: int | None
    prior_imaging: str
    documents: tuple[str, ...]
    red_flags: str = "No"
    extra_lines: tuple[tuple[str, int], ...] = ()
    summary: str = "Radicular pain documented in the chart after weeks of supervised physical therapy."


def task_order(task_id: str, npi: str, **changes) -> Order:
    """The order of a prior-auth task whose payer is Keystone, with the chart's answers."""
    case = case_values(load_task_file(TASKS_DIR / f"{task_id}.yaml"))
    [coverage] = [c for c in case["coverages"] if c["payer"] == KEYSTONE]
    order, facts = case["orders"][0], case["documents"][0]["facts"]
    start = date.fromisoformat(order["planned_date"])
    chart = Order(subscriber_id=case["ids"]["coverages"][coverage["key"]]["payer_member_id"],
                  dob=date.fromisoformat(case["patient"]["dob"]), npi=npi, code=order["code"], units=order["units"],
                  diagnoses=tuple(order["diagnoses"]), start=start, end=start + timedelta(days=14),
                  weeks=facts.get("conservative_therapy_weeks"),
                  prior_imaging="Yes" if facts.get("prior_imaging_date") else "", documents=DOCUMENTS.get(order["code"], ("Clinical notes",)))
    return replace(chart, **changes)


def pdf_of(kind: str) -> bytes:
    return render_pdf(kind, [("Patient", "Synthetic")], f"{kind} for the precertification request.")


def file_name(kind: str) -> str:
    return kind.lower().replace(" ", "-") + ".pdf"


def form_fields(order: Order) -> dict:
    """The long form as a coordinator fills it in for `order`."""
    fields = {"subscriber_id": order.subscriber_id, "subscriber_dob": order.dob.strftime("%d-%b-%Y"),
              "rendering_npi": order.npi, "referring_npi": "", "place_of_service": "22", "urgency": "Standard",
              "admission_type": "Elective", "service_code": order.code, "units": str(order.units),
              "diagnosis_codes": ", ".join(order.diagnoses), "start_date": order.start.strftime("%d-%b-%Y"),
              "end_date": order.end.strftime("%d-%b-%Y"), "clinical_summary": order.summary,
              "conservative_therapy_weeks": "" if order.weeks is None else str(order.weeks),
              "red_flag_symptoms": order.red_flags, "prior_imaging": order.prior_imaging, "ahi": "", "spo2_rest": "",
              "contact_name": "Jordan Ellis", "contact_phone": "717-555-0100"}
    for line, (code, units) in enumerate(order.extra_lines, start=2):
        fields[f"service_code_{line}"], fields[f"units_{line}"] = code, str(units)
    for slot in (1, 2, 3):
        kind = order.documents[slot - 1] if slot <= len(order.documents) else None
        fields[f"document_type_{slot}"] = kind or "Clinical notes"
        if kind:
            fields[f"attachment_{slot}"] = (io.BytesIO(pdf_of(kind)), file_name(kind))
    return fields


def urn(name: str) -> str:
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, name)}"


def coding(system: str, code: str) -> dict:
    return {"coding": [{"system": system, "code": code}]}


def answer(sequence: int, question: str, **value) -> dict:
    return {"sequence": sequence, "category": coding(INFO_CATEGORY, "info"), "code": coding(QUESTION, question),
            **value}


def pas_bundle(order: Order) -> dict:
    """The PAS request Bundle of `order`: Claim, Patient, Coverage, rendering and entering Practitioners."""
    info = [answer(1, "clinical-summary", valueString=order.summary),
            answer(2, "red-flag-symptoms", valueBoolean=order.red_flags == "Yes")]
    if order.weeks is not None:
        info.append(answer(3, "conservative-therapy-weeks", valueQuantity={"value": order.weeks, "unit": "wk"}))
    if order.prior_imaging:
        info.append(answer(4, "prior-imaging", valueBoolean=order.prior_imaging == "Yes"))
    for kind in order.documents:
        info.append({"sequence": len(info) + 1, "category": coding(INFO_CATEGORY, "attachment"),
                     "code": coding(DOCUMENT_TYPE, kind.lower().replace(" ", "-")),
                     "valueAttachment": {"contentType": "application/pdf", "title": file_name(kind),
                                         "data": base64.b64encode(pdf_of(kind)).decode()}})
    claim = {
        "resourceType": "Claim", "status": "active", "use": "preauthorization",
        "type": coding("http://terminology.hl7.org/CodeSystem/claim-type", "professional"),
        "patient": {"reference": urn("patient")}, "created": "2026-11-16T09:00:00+00:00",
        "insurer": {"display": "Keystone Mutual Health"}, "provider": {"reference": urn("rendering")},
        "enterer": {"reference": urn("enterer")},
        "priority": coding("http://terminology.hl7.org/CodeSystem/processpriority", "normal"),
        "insurance": [{"sequence": 1, "focal": True, "coverage": {"reference": urn("coverage")}}],
        "diagnosis": [{"sequence": n, "diagnosisCodeableConcept": coding("http://hl7.org/fhir/sid/icd-10-cm", code)}
                      for n, code in enumerate(order.diagnoses, start=1)],
        "supportingInfo": info,
        "item": [{"sequence": n, "productOrService": coding("http://www.ama-assn.org/go/cpt", code),
                  "quantity": {"value": units},
                  "servicedPeriod": {"start": order.start.isoformat(), "end": order.end.isoformat()},
                  "locationCodeableConcept": coding("https://www.cms.gov/Medicare/Coding/place-of-service-codes/"
                                                    "Place_of_Service_Code_Set", "22")}
                 for n, (code, units) in enumerate([(order.code, order.units), *order.extra_lines], start=1)]}
    member = {"type": coding("http://terminology.hl7.org/CodeSystem/v2-0203", "MB"), "value": order.subscriber_id}
    resources = {
        "claim": claim,
        "patient": {"resourceType": "Patient", "identifier": [member], "name": [{"family": "Synthetic"}],
                    "birthDate": order.dob.isoformat()},
        "coverage": {"resourceType": "Coverage", "status": "active", "subscriberId": order.subscriber_id,
                     "beneficiary": {"reference": urn("patient")}, "payor": [{"display": "Keystone Mutual Health"}]},
        "rendering": {"resourceType": "Practitioner",
                      "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi", "value": order.npi}]},
        "enterer": {"resourceType": "Practitioner", "name": [{"given": ["Jordan"], "family": "Ellis"}],
                    "telecom": [{"system": "phone", "value": "717-555-0100"}]}}
    bundle = {"resourceType": "Bundle", "type": "collection",
              "entry": [{"fullUrl": urn(key), "resource": resource} for key, resource in resources.items()]}
    Bundle.model_validate(bundle)  # what the tests send is valid FHIR R4
    return bundle


def reset_task(client: FormClient, task_id: str | None) -> None:
    """A fresh episode of `task_id` with the clock frozen at the task's `now`."""
    body = {"now": "2026-11-16T09:00:00"}
    if task_id:
        body = {"task": task_id, "now": load_task_file(TASKS_DIR / f"{task_id}.yaml").now.isoformat()}
    assert client.client.post("/_bench/reset", json=body, headers={"X-Bench-Token": TOKEN}).status_code == 200
    client._token = None


def api_token(client: FormClient, username: str = "coordinator") -> dict:
    """Authorization headers with a bearer token for `username` (valid until the next reset)."""
    response = client.client.post("/oauth/token", data={"grant_type": "password", "username": username,
                                                         "password": "admindesk"})
    assert response.status_code == 200, response.get_data(as_text=True)
    return {"Authorization": f"Bearer {response.get_json()['access_token']}"}


def parsed(response):
    """The response body as an R4B resource (every answer of the API is valid FHIR R4)."""
    body = response.get_json()
    return FHIR_MODELS[body["resourceType"]].model_validate(body)


def call(client: FormClient, path: str, body: dict, headers: dict):
    """POST a FHIR body; returns (response, the parsed resource)."""
    response = client.client.post(path, json=body, headers={**headers, "Content-Type": "application/fhir+json"})
    assert response.mimetype == "application/fhir+json"
    return response, parsed(response)


def claim_response(bundle) -> ClaimResponse:
    resource = bundle.entry[0].resource
    assert resource.get_resource_type() == "ClaimResponse"
    return resource


def review_actions(response: ClaimResponse) -> list[str]:
    """The X12 306 review action code of each item ('' for none)."""
    codes = []
    for item in response.item:
        [decision] = [a for a in item.adjudication if a.category.coding[0].code == "submitted"]
        review = [e for e in decision.extension or [] if e.url == REVIEW_ACTION]
        codes.append(review[0].extension[0].valueCodeableConcept.coding[0].code if review else "")
    return codes


def episode_rows(client: FormClient) -> dict:
    """The snapshot without what a channel may change: its audit trail, the page-view counters
    and the reset's generation; a request's channel is its `source` and is set aside."""
    snapshot = client.snapshot()
    for name in ("audit_events", "session_activity", "_meta"):
        snapshot.pop(name)
    for row in snapshot["precert_requests"]:
        if row["source"] in ("Portal", "PAS API"):
            row["source"] = "(channel)"
    return snapshot


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def keystone_npi(client: FormClient) -> str:
    """An individual provider in Keystone's provider file."""
    return min(p["npi"] for p in client.snapshot()["providers"] if p["kind"] == "Individual")


@pytest.fixture(scope="module")
def npi(app) -> str:
    return keystone_npi(FormClient(app))


@pytest.fixture
def client(app) -> FormClient:
    """A client of the module's app, not signed in (each test resets to its task)."""
    return FormClient(app)


def by_form(client: FormClient, task_id: str, order: Order) -> dict:
    reset_task(client, task_id)
    client.login()
    response = client.post("/precertification/new", form_fields(order), content_type="multipart/form-data")
    assert response.status_code == 302, response.get_data(as_text=True)
    return episode_rows(client)


def by_pas(client: FormClient, task_id: str, order: Order) -> tuple[dict, ClaimResponse]:
    reset_task(client, task_id)
    response, answer_bundle = call(client, "/fhir/Claim/$submit", pas_bundle(order), api_token(client))
    assert response.status_code == 200, response.get_data(as_text=True)
    return episode_rows(client), claim_response(answer_bundle)


def test_parity_covers_every_table_a_request_writes(client, npi):
    """The comparison above is not vacuous: a submission changes the rows it compares."""
    reset_task(client, "pa-easy-01")
    before = episode_rows(client)
    after, _ = by_pas(client, "pa-easy-01", task_order("pa-easy-01", npi))
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {"precert_requests", "precert_events", "attachments", "number_sequences"}


# (task, how the order differs from the chart's, status, review action per line, outcome)
SCENARIOS = [
    pytest.param("pa-easy-01", {}, "Approved", ["A1"], "complete", id="approve"),
    pytest.param("pa-easy-04", {"documents": ()}, "Pended", ["A4"], "queued", id="pend-for-documents"),
    pytest.param("pa-hard-11", {}, "Denied", ["A3"], "complete", id="deny-coverage-ended"),
    # Three weeks of conservative therapy and no red flag: short of Keystone's lumbar imaging criteria.
    pytest.param("pa-easy-01", {"weeks": 3}, "Denied", ["A3"], "complete", id="deny-criteria-not-met"),
    pytest.param("pa-easy-18", {}, "Duplicate", [""], "complete", id="duplicate-on-file"),
    # Cervical MRI for a lumbar diagnosis: line 2 is not covered by its policy.
    pytest.param("pa-easy-01", {"extra_lines": (("72141", 1),)}, "Partially Approved", ["A1", "A3"], "complete",
                 id="two-lines-approved-in-part"),
]


@pytest.mark.parametrize("task_id,changes,status,actions,outcome", SCENARIOS)
def test_submit_leaves_the_rows_the_form_leaves(client, npi, task_id, changes, status, actions, outcome):
    order = task_order(task_id, npi, **changes)
    form_rows = by_form(client, task_id, order)
    pas_rows, response = by_pas(client, task_id, order)
    assert pas_rows == form_rows
    [new] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "PAS API"]
    assert new["status"] == status and new["subscriber_id"] == order.subscriber_id
    assert response.id == new["reference_number"] and response.identifier[0].value == new["reference_number"]
    assert response.disposition == new["decision_reason"] and response.outcome == outcome
    assert review_actions(response) == actions
    assert response.preAuthRef == new["authorization_number"]
    assert (response.preAuthRef is not None) == (status in ("Approved", "Partially Approved"))


def test_approval_answers_the_authorization_and_span(client, npi):
    order = task_order("pa-easy-01", npi, units=3, end=date(2027, 6, 30))
    _, response = by_pas(client, "pa-easy-01", order)
    assert response.preAuthRef == "KMH26900001"
    # Fewer units and a shorter span than asked: certified in part.
    assert review_actions(response) == ["A2"]
    assert str(response.preAuthPeriod.start) == order.start.isoformat()
    units = [a.value for a in response.item[0].adjudication if a.category.coding[0].code == "approved-units"]
    assert units == [1]
