"""Portal B's eligibility exchange (`POST /fhir/CoverageEligibilityRequest/$submit`): on separate
resets of one task it leaves the `eligibility_inquiries` row and audit the lookup form leaves (so
a task's eligibility checks score it alike), answers termed coverage as not in force, and refuses
what the form refuses (an unknown member, bad values) as an OperationOutcome, writing nothing.
"""
from __future__ import annotations

import copy
from datetime import date

import pytest
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.coverageeligibilityresponse import CoverageEligibilityResponse
from fhir.resources.R4B.operationoutcome import OperationOutcome

from admindesk.envs.payer_portal_b import create_app
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import load_task_file
from admindesk.verifiers.checks import run_check
from admindesk.verifiers.episode import EpisodeView
from admindesk.verifiers.records import EpisodeRecord

from .conftest import FormClient, build_app, endpoint_audit_rows
from .test_portal_b_pas import KEYSTONE, TASKS_DIR, api_token, episode_rows, reset_task

SUBMIT = "/fhir/CoverageEligibilityRequest/$submit"
MODELS = {"CoverageEligibilityResponse": CoverageEligibilityResponse, "OperationOutcome": OperationOutcome}
MEMBER_ID = "CoverageEligibilityRequest.contained[0].identifier[0].value"
SUBSCRIBER_ID = "https://provider.keystonemutual.example/fhir/sid/subscriber-id"
BENEFIT_LABELS = {"deductible": "Deductible", "out-of-pocket-max": "Out-of-Pocket Maximum",
                  "office-copay": "Office Visits", "imaging": "Advanced Imaging", "dme": "Durable Medical Equipment",
                  "precertification": "Precertification"}


@pytest.fixture(scope="module")
def app(app_data_dir):
    return build_app(create_app, app_data_dir)


@pytest.fixture
def client(app) -> FormClient:
    """A client of the module's app, not signed in (each test resets to its task)."""
    return FormClient(app)


def keystone_member(task_id: str) -> tuple[str, date, date]:
    """(Subscriber ID at Keystone, date of birth, the order's planned date) of a task's case."""
    case = case_values(load_task_file(TASKS_DIR / f"{task_id}.yaml"))
    [coverage] = [c for c in case["coverages"] if c["payer"] == KEYSTONE]
    return (case["ids"]["coverages"][coverage["key"]]["payer_member_id"], date.fromisoformat(case["patient"]["dob"]),
            date.fromisoformat(case["orders"][0]["planned_date"]))


def eligibility_request(member: str, dob: date, service_date: date | None = None,
                        purposes: tuple[str, ...] = ("validation", "benefits")) -> dict:
    """The documented request: a contained Patient with the Subscriber ID and birthDate."""
    body = {"resourceType": "CoverageEligibilityRequest", "status": "active", "purpose": list(purposes),
            "contained": [{"resourceType": "Patient", "id": "member", "birthDate": dob.isoformat(),
                           "identifier": [{"system": SUBSCRIBER_ID, "value": member}]}],
            "patient": {"reference": "#member"}, "created": "2026-11-16T09:00:00-05:00",
            "insurer": {"display": "Keystone Mutual Health"}}
    if service_date is not None:
        body["servicedDate"] = service_date.isoformat()
    return body


def post(client: FormClient, body, headers: dict):
    """POST to the eligibility $submit; (response, the answer parsed with the R4B models)."""
    response = client.client.post(SUBMIT, json=body, headers={**headers, "Content-Type": "application/fhir+json"})
    assert response.mimetype == "application/fhir+json"
    answer = response.get_json()
    return response, MODELS[answer["resourceType"]].model_validate(answer)


def inquiry_audit(client: FormClient, endpoint: str) -> dict:
    """The audit fields of the episode's last request to `endpoint`, its channel set aside (and
    its status: the form answers with a redirect, the API with the answer)."""
    row = endpoint_audit_rows(client, endpoint)[-1]
    detail = dict(row["detail"] or {})
    detail.pop("channel", None)
    return {"action": row["action"], "record_type": row["record_type"], "record_id": row["record_id"],
            "tab": row["tab"], "detail": detail}


def by_form(client: FormClient, task_id: str, member: str, dob: date, service_date: date | None) -> tuple[dict, dict]:
    reset_task(client, task_id)
    client.login()
    response = client.post("/eligibility", {"subscriber_id": member, "dob": dob.strftime("%d-%b-%Y"),
                                            "service_date": service_date.strftime("%d-%b-%Y") if service_date else ""})
    assert response.status_code == 302, response.get_data(as_text=True)
    return episode_rows(client), inquiry_audit(client, "eligibility.lookup")


def by_api(client: FormClient, task_id: str, member: str, dob: date, service_date: date | None):
    reset_task(client, task_id)
    before = client.snapshot()
    response, answer = post(client, eligibility_request(member, dob, service_date), api_token(client))
    assert response.status_code == 200, response.get_data(as_text=True)
    return before, episode_rows(client), inquiry_audit(client, "api_pas.check_eligibility"), answer


# (task, date of service: the order's planned date or none (today), the answer)
PARITY = [
    pytest.param("pa-easy-01", "planned", "Active", id="active-on-the-planned-date"),
    pytest.param("pa-easy-01", None, "Active", id="no-date-is-today"),
    pytest.param("pa-hard-11", "planned", "Inactive", id="termed-coverage"),
]


@pytest.mark.parametrize("task_id,when,result", PARITY)
def test_api_leaves_the_row_and_audit_the_form_leaves(client, task_id, when, result):
    member, dob, planned = keystone_member(task_id)
    service_date = planned if when else None
    form_rows, form_audit = by_form(client, task_id, member, dob, service_date)
    before, api_rows, api_audit, answer = by_api(client, task_id, member, dob, service_date)
    assert member in {row["subscriber_id"] for row in before["subscribers"]}
    assert api_rows == form_rows and api_audit == form_audit
    assert endpoint_audit_rows(client, "api_pas.check_eligibility")[-1]["detail"]["channel"] == "api"
    [row] = api_rows["eligibility_inquiries"]
    assert row["result"] == result and row["service_date"] == (service_date or date(2026, 11, 16)).isoformat()
    assert form_audit["action"] == "check_eligibility" and form_audit["record_id"] == member
    [insurance] = answer.insurance
    assert insurance.inforce is (result == "Active") and answer.outcome == "complete"
    assert answer.identifier[0].value == answer.id == row["inquiry_id"]
    assert answer.disposition == f"Coverage on {date.fromisoformat(row['service_date']):%d-%b-%Y}: {result}"


def test_the_answer_carries_the_coverage_period_and_benefit_summary(client):
    member, dob, planned = keystone_member("pa-hard-11")
    _, rows, _, answer = by_api(client, "pa-hard-11", member, dob, planned)
    subscriber = next(s for s in rows["subscribers"] if s["subscriber_id"] == member)
    plan = next(p for p in rows["plans"] if p["plan_id"] == subscriber["plan_id"])
    contained = {resource.id: resource for resource in answer.contained}
    coverage, patient = contained["coverage"], contained["member"]
    assert answer.insurance[0].coverage.reference == "#coverage" and coverage.subscriberId == member
    assert str(coverage.period.start) == subscriber["effective"] and str(coverage.period.end) == "2026-08-31"
    assert answer.insurance[0].benefitPeriod == coverage.period
    assert {c.type.coding[0].code: c.value for c in coverage.class_fhir} == {
        "group": subscriber["group_number"], "plan": plan["plan_id"]}
    assert str(patient.birthDate) == dob.isoformat() and patient.name[0].family == subscriber["last_name"]
    items = {item.category.coding[0].code: item for item in answer.insurance[0].item}
    assert {code: item.name for code, item in items.items()} == BENEFIT_LABELS
    assert {code: item.benefit[0].allowedString for code, item in items.items()} == {
        code: plan["benefits"][code.replace("-", "_")] for code in BENEFIT_LABELS}


def test_validation_alone_answers_without_benefit_items(client):
    member, dob, _ = keystone_member("pa-easy-01")
    reset_task(client, "pa-easy-01")
    response, answer = post(client, eligibility_request(member.lower(), dob, purposes=("validation",)),
                            api_token(client))
    assert response.status_code == 200 and answer.purpose == ["validation"]
    assert answer.insurance[0].inforce is True and answer.insurance[0].item is None
    assert client.snapshot()["eligibility_inquiries"][0]["subscriber_id"] == member


def test_the_api_inquiry_passes_the_tasks_eligibility_checks(client):
    task = load_task_file(TASKS_DIR / "pa-easy-01.yaml")
    member, dob, planned = keystone_member("pa-easy-01")
    before, _, _, _ = by_api(client, "pa-easy-01", member, dob, planned)
    record = EpisodeRecord(task_id=task.id, initial_snapshots={"payer_portal_b": copy.deepcopy(before)},
                           final_snapshots={"payer_portal_b": client.snapshot()})
    view = EpisodeView(record=record, case=case_values(task))
    [subtask] = [s for s in task.subtasks if s.id == "verify_eligibility"]
    assert all(run_check(check, view).passed for check in subtask.checks)


def test_unknown_member_is_refused_as_the_form_refuses_it(client):
    member, _, _ = keystone_member("pa-easy-01")
    reset_task(client, "pa-easy-01")
    client.login()
    assert client.post("/eligibility", {"subscriber_id": member, "dob": "01-Jan-1901"}).status_code == 422
    form_audit = inquiry_audit(client, "eligibility.lookup")
    reset_task(client, "pa-easy-01")
    response, outcome = post(client, eligibility_request(member, date(1901, 1, 1)), api_token(client))
    assert response.status_code == 422 and isinstance(outcome, OperationOutcome)
    [issue] = outcome.issue
    assert issue.code == "not-found" and issue.expression == [MEMBER_ID] and "No subscriber matches" in \
        issue.diagnostics
    assert client.snapshot()["eligibility_inquiries"] == []
    assert inquiry_audit(client, "api_pas.check_eligibility") == form_audit
    assert form_audit["action"] == "eligibility_not_found"


def _without(name: str):
    return lambda body: body.pop(name)


def _set(path: tuple, value):
    def change(body):
        target = body
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


# (how the body is spoiled, status, the element the OperationOutcome names)
BAD_BODIES = [
    pytest.param(_set(("resourceType",), "Patient"), 400, "resourceType", id="not-an-eligibility-request"),
    pytest.param(_set(("servicedDate",), "next week"), 400, "CoverageEligibilityRequest.servicedDate",
                 id="not-valid-r4"),
    pytest.param(_without("purpose"), 400, "CoverageEligibilityRequest.purpose", id="no-purpose"),
    pytest.param(_set(("purpose",), ["auth-requirements"]), 400, "CoverageEligibilityRequest.purpose[0]",
                 id="purpose-not-answered"),
    pytest.param(_set(("patient",), {"reference": "Patient/1"}), 400, "CoverageEligibilityRequest.patient.reference",
                 id="patient-not-contained"),
    pytest.param(lambda body: body["contained"][0].pop("birthDate"), 400,
                 "CoverageEligibilityRequest.contained[0].birthDate", id="no-birth-date"),
    pytest.param(lambda body: body["contained"][0].pop("identifier"), 400,
                 "CoverageEligibilityRequest.contained[0].identifier", id="no-subscriber-id"),
    pytest.param(lambda body: body.update(servicedPeriod={"start": body.pop("servicedDate")}), 400,
                 "CoverageEligibilityRequest.servicedPeriod", id="a-period-not-a-date"),
    pytest.param(_set(("contained", 0, "identifier", 0, "value"), "KMH1"), 422, MEMBER_ID,
                 id="subscriber-id-the-form-refuses"),
]


@pytest.mark.parametrize("spoil,status,expression", BAD_BODIES)
def test_bad_bodies_name_the_element_and_write_nothing(client, spoil, status, expression):
    member, dob, planned = keystone_member("pa-easy-01")
    body = eligibility_request(member, dob, planned)
    spoil(body)
    reset_task(client, "pa-easy-01")
    response, outcome = post(client, body, api_token(client))
    assert response.status_code == status and isinstance(outcome, OperationOutcome)
    assert any(expression in (issue.expression or []) for issue in outcome.issue), outcome.issue
    assert client.snapshot()["eligibility_inquiries"] == []
    audit = inquiry_audit(client, "api_pas.check_eligibility")
    assert (audit["action"], audit["record_type"], audit["tab"]) == ("submit", "eligibility", "lookup")


def test_a_body_that_is_not_json_is_refused(client):
    reset_task(client, "pa-easy-01")
    response = client.client.post(SUBMIT, data="subscriber=KMH0525600", headers=api_token(client))
    assert response.status_code == 400
    assert OperationOutcome.model_validate(response.get_json()).issue[0].code == "structure"


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-token"}], ids=["none", "forged"])
def test_without_a_valid_token_nothing_is_answered_or_written(client, headers):
    member, dob, planned = keystone_member("pa-easy-01")
    reset_task(client, "pa-easy-01")
    response, outcome = post(client, eligibility_request(member, dob, planned), headers)
    assert response.status_code == 401 and isinstance(outcome, OperationOutcome)
    assert "Bearer" in response.headers["WWW-Authenticate"]
    assert client.snapshot()["eligibility_inquiries"] == []


def test_capability_statement_lists_the_eligibility_exchange(client):
    reset_task(client, "pa-easy-01")
    response = client.client.get("/fhir/metadata", headers=api_token(client))
    capability = CapabilityStatement.model_validate(response.get_json())
    [resource] = [r for r in capability.rest[0].resource if r.type == "CoverageEligibilityRequest"]
    assert resource.operation[0].name == "submit" and "servicedDate" in resource.operation[0].documentation
