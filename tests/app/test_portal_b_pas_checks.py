"""Portal B's FHIR API at its edges: bearer tokens, refused Bundles (an OperationOutcome naming
the element, nothing written), fax-only services, the coverage requirements lookup, and the
audit trail of API calls."""
from __future__ import annotations

import pytest
from fhir.resources.R4B.capabilitystatement import CapabilityStatement

from admindesk.envs.payer_portal_b import create_app

from .conftest import FormClient, build_app
from .test_portal_b_pas import api_token, call, keystone_npi, pas_bundle, reset_task, task_order

WRITTEN_TABLES = ("precert_requests", "precert_lines", "precert_events", "attachments", "number_sequences")


def written(client: FormClient) -> dict:
    snapshot = client.snapshot()
    return {name: snapshot[name] for name in WRITTEN_TABLES}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


def start(app, task_id: str) -> tuple[FormClient, dict, object]:
    """A fresh episode of `task_id`: (client, headers with a token, the task's order)."""
    client = FormClient(app)
    reset_task(client, task_id)
    return client, api_token(client), task_order(task_id, keystone_npi(client))


@pytest.fixture
def episode(app):
    return start(app, "pa-easy-01")


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic abc"}])
def test_no_valid_token_is_401(episode, headers):
    client, _, order = episode
    response, outcome = call(client, "/fhir/Claim/$submit", pas_bundle(order), headers)
    assert response.status_code == 401 and outcome.issue[0].code == "login"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert not [row for row in client.snapshot()["audit_events"] if row["endpoint"].startswith("api_pas")]


def test_a_token_ends_with_the_episode(episode):
    client, headers, _ = episode
    reset_task(client, "pa-easy-01")
    response, _ = call(client, "/fhir/coverage-requirements", {"resourceType": "Parameters"}, headers)
    assert response.status_code == 401


def without_claim(bundle):
    bundle["entry"].pop(0)


def unknown_subscriber(bundle):
    bundle["entry"][1]["resource"]["identifier"][0]["value"] = "KMH9999999"
    bundle["entry"][2]["resource"]["subscriberId"] = "KMH9999999"


def unknown_code(bundle):
    bundle["entry"][0]["resource"]["item"][0]["productOrService"]["coding"][0]["code"] = "0000T"


def code_system(bundle):
    bundle["entry"][0]["resource"]["item"][0]["productOrService"]["coding"][0]["system"] = "http://snomed.info/sct"


def unknown_diagnosis(bundle):
    bundle["entry"][0]["resource"]["diagnosis"][0]["diagnosisCodeableConcept"]["coding"][0]["code"] = "Q99.99"


def not_a_pdf(bundle):
    bundle["entry"][0]["resource"]["supportingInfo"][-1]["valueAttachment"]["data"] = "aGVsbG8="


def bad_birth_date(bundle):
    bundle["entry"][1]["resource"]["birthDate"] = "1969-02-30"


def wrong_use(bundle):
    bundle["entry"][0]["resource"]["use"] = "claim"


@pytest.mark.parametrize("spoil,status,expression,words", [
    (without_claim, 400, "Bundle.entry[0]", "must be the Claim"),
    (unknown_subscriber, 422, "Bundle.entry[1].resource.identifier[0].value", "No subscriber matches"),
    (unknown_code, 422, "Bundle.entry[0].resource.item[0].productOrService",
     "0000T is not a CPT/HCPCS code Keystone Mutual recognizes"),
    (code_system, 400, "Bundle.entry[0].resource.item[0].productOrService", "CPT"),
    (unknown_diagnosis, 422, "Bundle.entry[0].resource.diagnosis", "Unknown ICD-10-CM code(s): Q99.99"),
    (not_a_pdf, 422, "Bundle.entry[0].resource.supportingInfo[3].valueAttachment.data", "is not a PDF"),
    (bad_birth_date, 400, "Bundle.entry[1].resource.birthDate", "valid date"),
    (wrong_use, 400, "Bundle.entry[0].resource.use", "preauthorization"),
])
def test_refused_bundles_name_the_element_and_write_nothing(episode, spoil, status, expression, words):
    client, headers, order = episode
    before = written(client)
    bundle = pas_bundle(order)
    spoil(bundle)
    response, outcome = call(client, "/fhir/Claim/$submit", bundle, headers)
    assert response.status_code == status
    issues = [((issue.expression or [None])[0], issue.diagnostics) for issue in outcome.issue]
    assert any(where == expression and words in text for where, text in issues), issues
    assert written(client) == before
    audit = [row for row in client.snapshot()["audit_events"] if row["endpoint"] == "api_pas.submit"]
    assert [row["action"] for row in audit] == ["submit_precert_rejected"]


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"resourceType": "Patient"}'])
def test_a_body_that_is_no_bundle_is_400(episode, body):
    client, headers, _ = episode
    response = client.client.post("/fhir/Claim/$submit", data=body, headers={**headers,
                                                                            "Content-Type": "application/fhir+json"})
    assert response.status_code == 400 and response.get_json()["resourceType"] == "OperationOutcome"


def test_fax_only_service_is_refused_with_the_fax_number(episode):
    client, headers, order = episode
    before = written(client)
    bundle = pas_bundle(order)
    bundle["entry"][0]["resource"]["item"][0]["productOrService"]["coding"][0]["code"] = "95810"
    response, outcome = call(client, "/fhir/Claim/$submit", bundle, headers)
    fax = client.snapshot()["payer_profiles"][0]["precert_fax"]
    text = " ".join(issue.diagnostics for issue in outcome.issue)
    assert response.status_code == 422 and "must be requested by fax (policy KM-SLP-301)" in text
    assert f"{fax[:3]}.{fax[3:6]}.{fax[6:]}" in text and written(client) == before


def lookup(client: FormClient, headers: dict, *codes, **values):
    parameters = [{"name": name, "valueDate" if name.endswith("Date") else "valueString": value}
                  for name, value in values.items()]
    parameters += [{"name": "code", "valueCoding": {"system": "http://www.ama-assn.org/go/cpt", "code": code}}
                   for code in codes]
    return call(client, "/fhir/coverage-requirements", {"resourceType": "Parameters", "parameter": parameters},
                headers)


def requirement(answer, code: str) -> dict:
    """The parts of the answer's requirement for `code`, by name (repeated names as lists)."""
    for parameter in answer.parameter:
        parts = parameter.part or []
        if parameter.name == "requirement" and parts[0].valueCoding.code == code:
            named: dict = {}
            for part in parts:
                value = part.valueCoding.code if part.valueCoding else (
                    part.valueBoolean if part.valueBoolean is not None else part.valueString)
                named.setdefault(part.name, []).append(value)
            return {name: values if len(values) > 1 else values[0] for name, values in named.items()}
    raise AssertionError(code)


def test_coverage_requirements_from_the_medical_policies(episode):
    client, headers, order = episode
    member = {"subscriberId": order.subscriber_id, "birthDate": order.dob.isoformat(), "serviceDate": "2026-11-27"}
    response, answer = lookup(client, headers, "73721", "99213", "95810", "0000T", **member)
    assert response.status_code == 200
    knee = requirement(answer, "73721")
    assert knee["paNeeded"] == "auth-needed" and knee["policy"] == "KM-RAD-104" and knee["covered"] == "covered"
    assert knee["documentType"] == ["Clinical notes", "Imaging report"] and knee["docNeeded"] == "clinical"
    assert "Claim/$submit" in knee["requestChannel"]
    office_visit = requirement(answer, "99213")
    assert office_visit["paNeeded"] == "no-auth" and "policy" not in office_visit
    assert "Fax" in requirement(answer, "95810")["requestChannel"]
    unknown = requirement(answer, "0000T")
    assert unknown["known"] is False and "does not recognize 0000T" in unknown["message"]


def test_coverage_requirements_for_an_ended_coverage_and_a_stranger(app):
    client, headers, order = start(app, "pa-hard-11")
    member = {"subscriberId": order.subscriber_id, "birthDate": order.dob.isoformat(),
              "serviceDate": order.start.isoformat()}
    _, answer = lookup(client, headers, "72148", **member)
    lumbar = requirement(answer, "72148")
    assert lumbar["covered"] == "not-covered" and lumbar["paNeeded"] == "auth-needed"
    assert "Coverage is not active" in lumbar["message"]
    response, outcome = lookup(client, headers, "72148", **{**member, "birthDate": "1990-01-01"})
    assert response.status_code == 422 and "No subscriber matches" in outcome.issue[0].diagnostics
    response, outcome = lookup(client, headers, **member)
    assert response.status_code == 400 and "service codes" in outcome.issue[0].diagnostics


def test_api_calls_are_audited_under_the_account(episode):
    client, headers, order = episode
    _, answer = call(client, "/fhir/Claim/$submit", pas_bundle(order), headers)
    reference = answer.entry[0].resource.id
    lookup(client, headers, "72148", subscriberId=order.subscriber_id, birthDate=order.dob.isoformat())
    audit = [(row["endpoint"], row["username"], row["action"], row["record_type"], row["record_id"])
             for row in client.snapshot()["audit_events"] if row["endpoint"].startswith("api_")]
    assert audit == [("api_oauth.issue_token", "coordinator", "api_login", None, None),
                     ("api_pas.submit", "coordinator", "submit_precert", "precert", reference),
                     ("api_pas.coverage_requirements", "coordinator", "view", "service_code", "72148")]


def test_a_code_needing_no_precertification_is_recorded_as_not_required(episode):
    client, headers, order = episode
    bundle = pas_bundle(order)
    bundle["entry"][0]["resource"]["item"][0]["productOrService"]["coding"][0]["code"] = "99213"
    response, answer = call(client, "/fhir/Claim/$submit", bundle, headers)
    [decision] = answer.entry[0].resource.item[0].adjudication
    assert response.status_code == 200 and answer.entry[0].resource.preAuthRef is None
    assert decision.extension[0].extension[0].valueCodeableConcept.coding[0].code == "NA"
    [row] = [r for r in client.snapshot()["precert_requests"] if r["source"] == "PAS API"]
    assert row["status"] == "Not Required" and row["service_code"] == "99213"


def test_an_oversized_request_is_413(episode):
    client, headers, _ = episode
    body = b'{"resourceType": "Bundle", "type": "collection", "entry": [], "x": "' + b"A" * (11 * 1024 * 1024) + b'"}'
    response = client.client.post("/fhir/Claim/$submit", data=body,
                                  headers={**headers, "Content-Type": "application/fhir+json"})
    assert response.status_code == 413 and response.get_json()["issue"][0]["code"] == "too-costly"


def test_metadata_tells_how_to_fill_the_requests(episode):
    client, headers, _ = episode
    assert client.client.get("/fhir/metadata").status_code == 401
    statement = CapabilityStatement.model_validate(client.client.get("/fhir/metadata", headers=headers).get_json())
    [claim] = [r for r in statement.rest[0].resource if r.type == "Claim"]
    submit, inquire_operation = claim.operation
    assert (submit.name, inquire_operation.name) == ("submit", "inquire")
    assert "clinical-summary" in submit.documentation and "clinical-notes" in submit.documentation
    assert statement.rest[0].operation[0].name == "coverage-requirements"
    assert "A1 Certified in total = Approved" in statement.rest[0].documentation
