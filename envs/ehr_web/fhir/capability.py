"""`GET /fhir/metadata`: the CapabilityStatement, built from the registry, so what it lists
is what the API serves (types, interactions, search parameters) plus how to write: a note,
a work item, a payer's decision (ClaimResponse, create only) and `Coverage/$verify`."""
from __future__ import annotations

from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from flask import url_for

from admindesk.envs.common import clock
from admindesk.envs.ehr_web.fhir.claim_responses import QUEUED_STATUS, STATUS_OF_REVIEW_ACTION
from admindesk.envs.ehr_web.fhir.codes import (
    APPROVED_UNITS,
    AUTH_STATUS_EXT,
    FOLLOW_UP_EXT,
    MRN,
    ORDER_NUMBER,
    PAS_REVIEW_ACTION_EXT,
    PAYER_CODE,
    VERIFICATION_EXT,
    WORK_ITEM_FIELD,
    X12_REVIEW_ACTION,
    local_instant,
)
from admindesk.envs.ehr_web.fhir.map_work import TASK_OUTPUTS
from admindesk.envs.ehr_web.fhir.registry import KINDS
from admindesk.envs.ehr_web.fhir.search import DEFAULT_COUNT, MAX_COUNT
from admindesk.envs.ehr_web.vocab import AUTH_STATUSES, VERIFICATION_RESULTS

SECURITY = ("Every request needs 'Authorization: Bearer <token>'. Get a token with POST /oauth/token "
            "(grant_type=password, username, password of an EHR staff account); it ends at the next reset.")
WRITES = {
    "Communication": ("create", (
        "POST a Communication to add a staff note: subject Patient/<MRN> (required), about [ServiceRequest/<order>, "
        "Claim/<claim number> or Task/<work item>] (optional: an order comment, claim or work-item note), and one "
        "payload with contentString (the note text, up to 4000 characters). Answers 201 with the stored note.")),
    "Task": ("update", (
        "PUT the Task as read, changed, to update its work item as the work-item screen does. Writable: "
        "businessStatus.text (the queue status), the follow-up date (extension " + FOLLOW_UP_EXT + ", valueDate; "
        "absent clears it), the queue's outputs coded in " + WORK_ITEM_FIELD + " ("
        + ", ".join(f"{output.code} ({output.queue})" for output in TASK_OUTPUTS) + "; absent clears them), and "
        "one new note (a Task.note without a time). Task.status follows businessStatus; other elements are ignored.")),
}
CLAIM_RESPONSE = (
    "POST a ClaimResponse (the payer's decision on a prior authorization) to record it on the order's authorization "
    "section as the order screen does; the answer (201) is the ServiceRequest as it is then. It stands for the whole "
    "section (an element left out clears its field): request = ServiceRequest/<order> (or an identifier in "
    f"{ORDER_NUMBER}); patient = Patient/<MRN> of the order; use preauthorization; status active; insurer = "
    f"Organization/<payer id> (or an identifier in {PAYER_CODE}); preAuthRef = the authorization number; identifier "
    f"(one) = the payer's reference number; approved units = the value of an item adjudication with category code "
    f"{APPROVED_UNITS}; preAuthPeriod = the approved dates. Status: the extension {AUTH_STATUS_EXT} (valueString: "
    f"{', '.join(AUTH_STATUSES)}) if given, else the items' PAS review action ({PAS_REVIEW_ACTION_EXT}, codes in "
    f"{X12_REVIEW_ACTION}: " + ", ".join(f"{code} {status}" for code, status in STATUS_OF_REVIEW_ACTION.items())
    + f"), else outcome queued: {QUEUED_STATUS}.")
VERIFY = (
    "POST /fhir/Coverage/<id>/$verify with a Parameters body records an eligibility check as the Coverage tab does: "
    f"result (valueCode or valueString: {', '.join(VERIFICATION_RESULTS)}), optional reference (the payer's "
    "eligibility reference number) and note (valueString). Answers the Coverage, its verification in the extension "
    f"{VERIFICATION_EXT}.")
CHART_LOCK = ("While another user holds a patient's chart, its edits (notes on the patient, its orders and claims, "
              "authorizations, coverage verifications) answer 423 with an OperationOutcome naming the holder.")
RESOURCE_NOTES = {
    "Patient": f"Patients by MRN (identifier system {MRN}), name and birthdate.",
    "ServiceRequest": "Orders (DME included). The authorization is the extension urn:admindesk:ehr:fhir:authorization; "
                      "its number an identifier (system urn:admindesk:ehr:auth-number). A payer's decision is "
                      "recorded on it by POST /fhir/ClaimResponse.",
    "DocumentReference": "Chart documents; the text is the narrative, the PDF at content.attachment.url (Binary).",
    "ExplanationOfBenefit": "Remittances: adjustments with CAS group and CARC reason per line; appeal deadline "
                            "as the extension urn:admindesk:ehr:fhir:appeal-deadline.",
    "Task": "Work-queue items (Prior Auth, Denials, DME); businessStatus is the queue status.",
    "Communication": "Staff notes on patients, orders, claims and work items.",
}


def _resource_entry(kind) -> dict:
    interactions = [{"code": "read"}, {"code": "search-type"}]
    if kind.name in WRITES:
        code, documentation = WRITES[kind.name]
        interactions.append({"code": code, "documentation": documentation})
    params = [{"name": "_id", "type": "token", "documentation": "The resource id."}]
    params += [{"name": name, "type": param.type, **({"documentation": param.documentation}
                                                      if param.documentation else {})}
               for name, param in kind.search_params().items()]
    params += [{"name": "_count", "type": "number",
                "documentation": f"Page size (default {DEFAULT_COUNT}, at most {MAX_COUNT})."},
               {"name": "_offset", "type": "number", "documentation": "Matches to skip (the next link sets it)."}]
    operations = [{"name": "verify", "definition": "urn:admindesk:ehr:fhir:OperationDefinition/Coverage-verify",
                   "documentation": VERIFY}] if kind.name == "Coverage" else None
    return {"type": kind.name, "interaction": interactions, "searchParam": params, "operation": operations,
            **({"documentation": RESOURCE_NOTES[kind.name]} if kind.name in RESOURCE_NOTES else {})}


def capability_statement() -> CapabilityStatement:
    """What this server does: FHIR R4 (4.0.1), JSON, the types with their interactions and searches."""
    binary = {"type": "Binary", "interaction": [{"code": "read", "documentation": (
        "GET /fhir/Binary/<document id>: the PDF bytes (Accept: application/pdf), or a Binary resource with "
        "the bytes base64-encoded (Accept: application/fhir+json).")}]}
    claim_response = {"type": "ClaimResponse", "interaction": [{"code": "create", "documentation": CLAIM_RESPONSE}]}
    return CapabilityStatement(
        status="active", date=local_instant(clock.now()), kind="instance", fhirVersion="4.0.1",
        format=["json"], publisher="Susquehanna Valley Health", software={"name": "SVH Chart FHIR R4 API"},
        implementation={"description": "SVH Chart (EHR) FHIR R4 read and coordinator-write API",
                        "url": url_for("api_fhir.capabilities", _external=True).rsplit("/", 1)[0]},
        rest=[{"mode": "server", "security": {"description": SECURITY}, "documentation": CHART_LOCK,
               "resource": [*(_resource_entry(kind) for kind in KINDS.values()), binary, claim_response]}])
