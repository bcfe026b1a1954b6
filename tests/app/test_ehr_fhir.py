"""The EHR's FHIR R4 API, reading: bearer tokens, every resource type as a valid R4 resource
(fhir.resources R4B models), the case patient found by MRN with its linked resources, the
PDF behind a DocumentReference, searches by identifier, patient and date, paging, errors
as OperationOutcome, and the audit rows API requests leave."""
from __future__ import annotations

import base64
import hashlib
import importlib
from datetime import date

import pytest
import yaml
from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.operationoutcome import OperationOutcome
from sqlalchemy import func, select

from admindesk.envs.common.state.seeding import DEFAULT_TASKS_DIR
from admindesk.envs.ehr_web import create_app
from admindesk.envs.ehr_web.models import Document, Encounter, Order, OrderAuthorization, Problem
from admindesk.envs.ehr_web.models_work import Claim, ClaimAdjustment, Remittance

from .conftest import TOKEN, FormClient, build_app, query

CASE_TASK = "pa-easy-01"
BENCH = {"X-Bench-Token": TOKEN}
# Resource type -> its fhir.resources R4B module.
MODULES = {"Patient": "patient", "Practitioner": "practitioner", "Organization": "organization",
           "Coverage": "coverage", "Encounter": "encounter", "Condition": "condition",
           "ServiceRequest": "servicerequest", "MedicationRequest": "medicationrequest",
           "DocumentReference": "documentreference", "Claim": "claim", "ExplanationOfBenefit": "explanationofbenefit",
           "Task": "task", "Communication": "communication"}


def r4_class(resource_type: str):
    return getattr(importlib.import_module(f"fhir.resources.R4B.{MODULES[resource_type]}"), resource_type)


class FhirClient:
    """A bearer-token client of one EHR reset to the case task."""

    def __init__(self, app):
        self.app, self.client = app, app.test_client()
        self.headers: dict[str, str] = {}

    def reset(self, task: str | None = CASE_TASK) -> None:
        response = self.client.post("/_bench/reset", json={"task": task} if task else {}, headers=BENCH)
        assert response.status_code == 200, response.get_data(as_text=True)

    def token(self, username: str = "coordinator", password: str = "admindesk"):
        return self.client.post("/oauth/token", data={"grant_type": "password", "username": username,
                                                      "password": password})

    def sign_in(self) -> None:
        response = self.token()
        assert response.status_code == 200, response.get_data(as_text=True)
        self.headers = {"Authorization": f"Bearer {response.get_json()['access_token']}"}

    def get(self, path: str, **headers):
        return self.client.get(path, headers={**self.headers, **headers})

    def post(self, path: str, body):
        return self.client.post(path, json=body, headers=self.headers)

    def put(self, path: str, body):
        return self.client.put(path, json=body, headers=self.headers)

    def read(self, path: str) -> dict:
        response = self.get(path)
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.mimetype == "application/fhir+json"
        return response.get_json()

    def bundle(self, path: str) -> dict:
        """A searchset, checked as an R4 Bundle whose entries are valid R4 resources."""
        bundle = self.read(path)
        Bundle.model_validate(bundle)
        assert bundle["type"] == "searchset"
        for entry in bundle.get("entry", []):
            resource = entry["resource"]
            r4_class(resource["resourceType"]).model_validate(resource)
            assert entry["fullUrl"].endswith(f"/fhir/{resource['resourceType']}/{resource['id']}")
        return bundle

    def search(self, path: str) -> list[dict]:
        return [entry["resource"] for entry in self.bundle(path).get("entry", [])]

    def snapshot(self) -> dict:
        return self.client.get("/_bench/snapshot", headers=BENCH).get_json()


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture
def api(app) -> FhirClient:
    """Signed in with a token, on a fresh reset of the case task."""
    client = FhirClient(app)
    client.reset()
    client.sign_in()
    return client


@pytest.fixture(scope="module")
def case_patient() -> dict:
    """The case patient's facts as the task file states them."""
    task = yaml.safe_load((DEFAULT_TASKS_DIR / "prior_auth" / f"{CASE_TASK}.yaml").read_text())
    return task["case"]["patient"]


@pytest.fixture
def mrn(api, case_patient) -> str:
    """The case patient's MRN, found as a client would: by name and date of birth."""
    [patient] = api.search(f"/fhir/Patient?family={case_patient['last_name']}&given={case_patient['first_name']}"
                           f"&birthdate={case_patient['dob']}")
    return patient["id"]


def outcome(response, status: int) -> str:
    """The diagnostics of an OperationOutcome answered with `status`."""
    assert response.status_code == status, response.get_data(as_text=True)
    body = OperationOutcome.model_validate(response.get_json())
    return " ".join(issue.diagnostics for issue in body.issue)


def test_tokens_come_from_staff_passwords_and_end_at_a_reset(app):
    client = FhirClient(app)
    client.reset()
    assert "bearer token is required" in outcome(client.get("/fhir/Patient?_count=1"), 401)
    refused = client.token(password="wrong")
    assert refused.status_code == 400 and refused.get_json()["error"] == "invalid_grant"
    client.headers = {"Authorization": "Bearer not-a-token"}
    assert client.get("/fhir/metadata").status_code == 401
    client.sign_in()
    assert client.get("/fhir/metadata").status_code == 200
    client.reset()
    response = client.get("/fhir/metadata")
    assert response.status_code == 401 and "invalid_token" in response.headers["WWW-Authenticate"]


def test_case_patient_by_mrn_and_its_coverage_order_and_document(api, case_patient, mrn):
    for identifier in (mrn, f"urn:admindesk:ehr:mrn|{mrn}"):
        [patient] = api.search(f"/fhir/Patient?identifier={identifier}")
        assert patient["id"] == mrn and patient["birthDate"] == case_patient["dob"]
        assert patient["name"][0]["family"] == case_patient["last_name"]
    assert api.search("/fhir/Patient?identifier=urn:other:system|" + mrn) == []
    subject = {"reference": f"Patient/{mrn}"}
    [coverage] = api.search(f"/fhir/Coverage?patient=Patient/{mrn}")
    assert coverage["beneficiary"] == subject and coverage["order"] == 1
    assert coverage["payor"][0]["reference"] == "Organization/PYR-KMH"
    [order] = api.search(f"/fhir/ServiceRequest?patient={mrn}")
    assert order["subject"] == subject and order["insurance"] == [{"reference": f"Coverage/{coverage['id']}"}]
    assert order["code"]["coding"][0] == {"system": "http://www.ama-assn.org/go/cpt", "code": "72148",
                                          "display": "MRI of the lower spine without contrast"}
    assert [c["coding"][0]["code"] for c in order["reasonCode"]] == ["M54.16", "M51.26"]
    assert order["reasonCode"][0]["coding"][0]["system"] == "http://hl7.org/fhir/sid/icd-10-cm"
    [document] = api.search(f"/fhir/DocumentReference?patient={mrn}")
    assert document["subject"] == subject and document["context"]["related"] == [
        {"reference": f"ServiceRequest/{order['id']}"}]
    assert "Conservative therapy: 6 weeks" in document["text"]["div"]
    for resource in (coverage, order, document):
        assert api.read(f"/fhir/{resource['resourceType']}/{resource['id']}") == resource


@pytest.mark.parametrize("resource_type", MODULES)
def test_every_resource_type_is_read_and_searched_as_valid_r4(api, resource_type):
    if resource_type == "Communication":
        api.post("/fhir/Communication", {"resourceType": "Communication", "status": "completed",
                                         "subject": {"reference": "Patient/E1000449"},
                                         "payload": [{"contentString": "Checked eligibility."}]})
    resources = api.search(f"/fhir/{resource_type}?_count=3")
    assert resources and all(r["resourceType"] == resource_type for r in resources)
    for resource in resources:
        assert api.read(f"/fhir/{resource_type}/{resource['id']}") == resource
        r4_class(resource_type).model_validate(resource)


def test_a_document_attachment_is_its_pdf(api, mrn):
    [document] = api.search(f"/fhir/DocumentReference?patient={mrn}")
    attachment = document["content"][0]["attachment"]
    assert attachment["contentType"] == "application/pdf"
    pdf = api.get(attachment["url"].removeprefix("http://localhost"))
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    screens = FormClient(api.app)
    screens.login()
    assert screens.get(f"/documents/{document['id']}/download").data == pdf.data
    binary = api.read(f"/fhir/Binary/{document['id']}?_format=json")
    assert binary["resourceType"] == "Binary" and base64.b64decode(binary["data"]) == pdf.data
    downloads = [row for row in api.snapshot()["audit_events"] if row["action"] == "download_document"]
    assert {(row["endpoint"], row["record_id"], row["detail"]["sha256"]) for row in downloads} == {
        (endpoint, document["id"], hashlib.sha256(pdf.data).hexdigest())
        for endpoint in ("api_fhir.binary", "documents.download_document")}


def test_searches_by_patient_and_date_match_the_chart(app, api):
    mrn = query(app, select(Encounter.mrn).group_by(Encounter.mrn).order_by(func.count().desc()).limit(1))[0]
    days = sorted(query(app, select(Encounter.encounter_date).where(Encounter.mrn == mrn)))
    visits = api.search(f"/fhir/Encounter?patient={mrn}&_count=100")
    assert len(visits) == len(days) and {v["subject"]["reference"] for v in visits} == {f"Patient/{mrn}"}
    first, last = days[0], days[-1]
    within = api.search(f"/fhir/Encounter?patient={mrn}&date=gt{first}&date=lt{last}&_count=100")
    assert len(within) == len([d for d in days if first < d < last])
    assert all(first.isoformat() < v["period"]["start"] < last.isoformat() for v in within)
    month = f"{last:%Y-%m}"
    assert len(api.search(f"/fhir/Encounter?patient={mrn}&date={month}&_count=100")) == len(
        [d for d in days if f"{d:%Y-%m}" == month])
    assert len(api.search(f"/fhir/Encounter?patient={mrn}&date=ne{last}&_count=100")) == len(
        [d for d in days if d != last])
    documents = query(app, select(Document.document_date).where(Document.mrn == mrn))
    assert len(api.search(f"/fhir/DocumentReference?patient={mrn}&date=le{last}&_count=100")) == len(
        [d for d in documents if d <= last])
    orders = query(app, select(Order.planned_date).where(Order.planned_date >= date(2026, 11, 1)))
    assert api.bundle("/fhir/ServiceRequest?date=ge2026-11&_count=1")["total"] == len(orders)
    claims = query(app, select(Claim.service_date).where(Claim.service_date < date(2026, 1, 1)))
    assert api.bundle("/fhir/Claim?date=lt2026&_count=1")["total"] == len(claims)
    assert "'2026-13-01' is not a calendar date" in outcome(api.get("/fhir/Encounter?date=2026-13-01"), 400)
    assert "'date'" in outcome(api.get("/fhir/Encounter?date=yesterday"), 400)


def test_identifier_searches_find_claims_orders_and_authorizations(app, api):
    claim = query(app, select(Claim).order_by(Claim.claim_number).limit(1))[0]
    [found] = api.search(f"/fhir/Claim?identifier=urn:admindesk:ehr:claim|{claim.claim_number}")
    assert found["id"] == claim.claim_number and found["patient"]["reference"] == f"Patient/{claim.mrn}"
    auth = query(app, select(OrderAuthorization).where(OrderAuthorization.auth_number.is_not(None)).limit(1))[0]
    by_number = api.search(f"/fhir/ServiceRequest?identifier={auth.order_id}")
    by_auth = api.search(f"/fhir/ServiceRequest?identifier=urn:admindesk:ehr:auth-number|{auth.auth_number}")
    assert [r["id"] for r in by_number] == [auth.order_id] and auth.order_id in [r["id"] for r in by_auth]
    assert {"system": "urn:admindesk:ehr:auth-number", "value": auth.auth_number, "use": "secondary",
            "type": {"text": "Prior authorization number"}} in by_number[0]["identifier"]
    assert api.search(f"/fhir/ServiceRequest?identifier=urn:admindesk:ehr:claim|{auth.order_id}") == []


def test_paging_walks_every_match_once(app, api):
    mrn = query(app, select(Problem.mrn).group_by(Problem.mrn).order_by(func.count().desc()).limit(1))[0]
    expected = {str(i) for i in query(app, select(Problem.id).where(Problem.mrn == mrn))}
    assert len(expected) > 3
    seen, path = [], f"/fhir/Condition?patient={mrn}&_count=3"
    while path:
        bundle = api.bundle(path)
        assert bundle["total"] == len(expected) and len(bundle.get("entry", [])) <= 3
        seen += [entry["resource"]["id"] for entry in bundle["entry"]]
        following = [link["url"] for link in bundle["link"] if link["relation"] == "next"]
        path = following[0].removeprefix("http://localhost") if following else None
    assert sorted(seen) == sorted(expected)
    assert len(api.bundle("/fhir/Condition?_count=1000")["entry"]) == 100
    assert "'_count'" in outcome(api.get("/fhir/Condition?_count=0"), 400)


def test_refusals_are_operation_outcomes(api, mrn):
    assert "Patient/E9999999 is not in the EHR" in outcome(api.get("/fhir/Patient/E9999999"), 404)
    assert "Task/abc is not in the EHR" in outcome(api.get("/fhir/Task/abc"), 404)
    assert "Unknown resource type 'Observation'" in outcome(api.get("/fhir/Observation?patient=" + mrn), 404)
    assert "read by id only" in outcome(api.get("/fhir/Binary?patient=" + mrn), 405)
    assert "Unknown search parameter 'gender'" in outcome(api.get("/fhir/Patient?gender=female"), 400)
    assert "'identifier:exact'" in outcome(api.get("/fhir/Patient?identifier:exact=" + mrn), 400)
    assert "takes Patient/<id>" in outcome(api.get("/fhir/Encounter?patient=Group/1"), 400)
    assert "PUT /fhir/Task/<id>" in outcome(api.put(f"/fhir/Patient/{mrn}", {"resourceType": "Patient"}), 405)
    assert "not supported" in outcome(api.client.delete(f"/fhir/Patient/{mrn}", headers=api.headers), 405)
    assert "JSON only" in outcome(api.get("/fhir/Patient?_format=xml"), 406)


def test_reads_and_searches_are_audited_like_page_views(app, api, mrn):
    [order] = api.search(f"/fhir/ServiceRequest?patient={mrn}")
    api.read(f"/fhir/ServiceRequest/{order['id']}")
    remittance = query(app, select(Remittance).limit(1))[0]
    api.read(f"/fhir/ExplanationOfBenefit/{remittance.id}")
    rows = [row for row in api.snapshot()["audit_events"] if row["endpoint"] and row["endpoint"].startswith("api_")]
    assert all(row["username"] == "coordinator" for row in rows)
    searched = next(row for row in rows if row["path"] == f"/fhir/ServiceRequest?patient={mrn}")
    assert (searched["action"], searched["record_type"], searched["record_id"], searched["tab"]) == (
        "search", "patient", mrn, "orders")
    assert searched["detail"]["results"] == [order["id"]]
    assert any((row["action"], row["record_type"], row["record_id"]) == ("view", "order", order["id"]) for row in rows)
    assert any((row["action"], row["record_type"], row["record_id"], (row["detail"] or {}).get("claim_number")) == (
        "view", "remittance", remittance.id, remittance.claim_number) for row in rows)


def test_a_search_records_each_resource_it_returns_as_viewed(app, api, mrn):
    """A search answers whole resources (a DocumentReference carries its text), so what it
    returned counts as seen: an agent that reads the order through a search alone has opened it."""
    documents = api.search(f"/fhir/DocumentReference?patient={mrn}&_count=2")
    [order] = api.search(f"/fhir/ServiceRequest?patient={mrn}")
    views = [(row["record_type"], row["record_id"], row["path"]) for row in api.snapshot()["audit_events"]
             if row["action"] == "view" and row["record_type"] in ("document", "order")]
    assert views == [*(("document", document["id"], f"/fhir/DocumentReference?patient={mrn}&_count=2")
                       for document in documents),
                     ("order", order["id"], f"/fhir/ServiceRequest?patient={mrn}")]
    assert documents


def test_remittances_carry_carc_adjustments(app, api):
    adjustment = query(app, select(ClaimAdjustment).where(ClaimAdjustment.carc_code == "197").limit(1))[0]
    [eob] = api.search(f"/fhir/ExplanationOfBenefit?claim=Claim/{adjustment.claim_number}")
    [line] = [item for item in eob["item"] if item["sequence"] == adjustment.line_no]
    reasons = [entry["reason"]["coding"][0] for entry in line["adjudication"] if "reason" in entry]
    assert {"system": "https://x12.org/codes/claim-adjustment-reason-codes", "code": "197"} in [
        {"system": r["system"], "code": r["code"]} for r in reasons]
    assert eob["claim"] == {"reference": f"Claim/{adjustment.claim_number}"}
    patient = query(app, select(Claim.mrn).where(Claim.claim_number == adjustment.claim_number))[0]
    assert eob["id"] in [e["id"] for e in api.search(f"/fhir/ExplanationOfBenefit?patient={patient}&_count=100")]


def test_metadata_lists_every_type_search_and_write(api):
    statement = api.read("/fhir/metadata")
    CapabilityStatement.model_validate(statement)
    resources = {entry["type"]: entry for entry in statement["rest"][0]["resource"]}
    assert set(resources) == {*MODULES, "Binary", "ClaimResponse"}
    assert [i["code"] for i in resources["ClaimResponse"]["interaction"]] == ["create"]
    assert [o["name"] for o in resources["Coverage"]["operation"]] == ["verify"]
    assert {"patient", "date", "identifier"} <= {p["name"] for p in resources["ServiceRequest"]["searchParam"]}
    assert "update" in [i["code"] for i in resources["Task"]["interaction"]]
    assert "create" in [i["code"] for i in resources["Communication"]["interaction"]]
    assert statement["fhirVersion"] == "4.0.1" and statement["format"] == ["json"]


def test_a_stopped_medication_gives_its_dates_and_why_it_was_stopped(api):
    """A step-therapy review reads each drug's dates and stop reason through the API as on the chart."""
    api.reset("pa-hard-13")
    api.sign_in()  # tokens end at a reset
    [patient] = api.search("/fhir/Patient?family=Halvorsen-Achebe&birthdate=1971-05-14")
    drugs = {m["medicationCodeableConcept"]["text"]: m
             for m in api.search(f"/fhir/MedicationRequest?patient={patient['id']}")}
    etanercept = drugs["etanercept 50 mg"]
    assert etanercept["status"] != "active" and etanercept["statusReason"]["text"].startswith("cost")
    assert etanercept["dosageInstruction"][0]["timing"]["repeat"]["boundsPeriod"] == {
        "start": "2025-12-08", "end": "2025-12-29"}
    assert "statusReason" not in drugs["Golimumab 2 mg/kg"]


@pytest.mark.parametrize("mode", ["navigate", "cors", "no-cors", "same-origin"])
def test_a_request_a_browser_makes_finds_no_api(api, mode):
    """The screens' agent has no way onto the API: every request Chromium sends carries
    Sec-Fetch-Mode, and neither the resources nor the token endpoint answer one."""
    assert api.get("/fhir/Patient", **{"Sec-Fetch-Mode": mode}).status_code == 404
    token = api.client.post("/oauth/token", headers={"Sec-Fetch-Mode": mode},
                            data={"grant_type": "password", "username": "coordinator", "password": "admindesk"})
    assert token.status_code == 404
    assert api.get("/fhir/Patient").status_code == 200  # the same request from an API client
    assert api.client.get("/login", headers={"Sec-Fetch-Mode": mode}).status_code == 200  # pages are for browsers
