"""The `/fhir` blueprint: metadata, read, search, the PDF of a document, and the writes (a
note, a work item's status, a payer's decision on an order, a coverage's eligibility check).

Every request carries a bearer token (api_access) and is audited as the HTML views audit
theirs: reading ServiceRequest/ORD-1 is a view of record type `order`, reading a Binary a
`download_document`, a search for one patient's resources a view of that chart's tab.
"""
from __future__ import annotations

import base64
import hashlib

from fhir.resources.R4B.binary import Binary
from flask import Blueprint, Response, request, url_for

from admindesk.envs.common.api_access import require_bearer
from admindesk.envs.common.audit import also_viewed, describe
from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.document_files import document_pdf
from admindesk.envs.ehr_web.fhir.capability import capability_statement
from admindesk.envs.ehr_web.fhir.claim_responses import record_claim_response
from admindesk.envs.ehr_web.fhir.codes import reference
from admindesk.envs.ehr_web.fhir.coverage_verification import verify
from admindesk.envs.ehr_web.fhir.map_admin import coverage_resource
from admindesk.envs.ehr_web.fhir.map_clinical import service_request_resource
from admindesk.envs.ehr_web.fhir.map_work import communication_resource, task_resource
from admindesk.envs.ehr_web.fhir.outcomes import (
    FHIR_JSON,
    FhirError,
    fhir_error,
    outcome_response,
    refusal,
    resource_response,
)
from admindesk.envs.ehr_web.fhir.registry import KINDS, ResourceKind
from admindesk.envs.ehr_web.fhir.search import match_arguments, page_arguments, run_search, searchset
from admindesk.envs.ehr_web.fhir.writes import create_note, update_work_item
from admindesk.envs.ehr_web.models import Document, Patient

fhir_api = Blueprint("api_fhir", __name__, url_prefix="/fhir")
fhir_api.before_request(require_bearer(refusal))
# Row attributes the audit row repeats, as the HTML views record them.
AUDIT_DETAIL = ("mrn", "claim_number")
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
WRITES = ("Writes: POST /fhir/Communication (a note), PUT /fhir/Task/<id> (a work item), POST /fhir/ClaimResponse "
          "(a payer's decision on an order), POST /fhir/Coverage/<id>/$verify (an eligibility check).")


@fhir_api.errorhandler(FhirError)
def refused(error: FhirError):
    return outcome_response(error.status, error.issues)


def _kind(resource_type: str) -> ResourceKind:
    if resource_type == "Binary":
        raise fhir_error(405, "not-supported", "A Binary is read by id only: GET /fhir/Binary/<document id> "
                                               "(the url of a DocumentReference's attachment).")
    if resource_type not in KINDS:
        raise fhir_error(404, "not-supported", f"Unknown resource type '{resource_type}'. This server serves "
                                               f"{', '.join(KINDS)} and Binary (see GET /fhir/metadata).")
    return KINDS[resource_type]


def _found(kind: ResourceKind, resource_id: str):
    """(source, row) of the resource, or a 404."""
    for source in kind.sources:
        key = source.parse_id(resource_id)
        row = db().get(source.model, key) if key is not None else None
        if row is not None:
            return source, row
    raise fhir_error(404, "not-found", f"{kind.name}/{resource_id} is not in the EHR.")


def _audit_detail(source, row) -> dict:
    return {name: getattr(row, name) for name in AUDIT_DETAIL
            if name != source.key.key and getattr(row, name, None) is not None}


def _request_body() -> object:
    return request.get_json(force=True, silent=True)


@fhir_api.get("/metadata")
def capabilities():
    """The CapabilityStatement."""
    return resource_response(capability_statement())


@fhir_api.get("/<resource_type>")
def search(resource_type: str):
    """A searchset Bundle of one page of matches."""
    kind = _kind(resource_type)
    count, offset = page_arguments()
    arguments = match_arguments(kind)
    total, rows = run_search(kind, arguments, count, offset)
    results = [str(getattr(row, source.key.key)) for source, row in rows]
    resources = [source.to_resource(row) for source, row in rows]
    for (source, row), resource in zip(rows, resources):
        also_viewed(record_type=source.audit_type, record_id=resource.id, **_audit_detail(source, row))
    patients = arguments.get("patient", [])
    if len(patients) == 1 and "," not in patients[0]:
        describe(action="search", record_type="patient", record_id=patients[0].rstrip("/").rsplit("/", 1)[-1],
                 tab=kind.chart_tab, resource_type=kind.name, results=results)
    else:
        describe(action="search", record_type=kind.sources[0].audit_type, resource_type=kind.name, results=results)
    return resource_response(searchset(kind, total, resources, count, offset))


@fhir_api.get("/<resource_type>/<resource_id>")
def read(resource_type: str, resource_id: str):
    """One resource by id."""
    source, row = _found(_kind(resource_type), resource_id)
    resource = source.to_resource(row)
    describe(record_type=source.audit_type, record_id=resource.id, **_audit_detail(source, row))
    return resource_response(resource)


@fhir_api.get("/Binary/<doc_id>")
def binary(doc_id: str):
    """A document's PDF: the bytes, or a Binary resource when FHIR JSON is asked for."""
    document = db().get(Document, doc_id)
    if document is None:
        raise fhir_error(404, "not-found", f"Binary/{doc_id}: no document {doc_id} in the EHR.")
    content = document_pdf(document, db().get(Patient, document.mrn))
    # As the chart's Download button records it: file checks compare faxed or uploaded copies by this hash.
    describe(action="download_document", record_type="document", record_id=document.id, mrn=document.mrn,
             file_name=document.file_name, sha256=hashlib.sha256(content).hexdigest())
    wanted = request.accept_mimetypes.best_match(["application/pdf", FHIR_JSON, "application/json"])
    if request.args.get("_format") in ("json", FHIR_JSON) or wanted in (FHIR_JSON, "application/json"):
        return resource_response(Binary(id=document.id, contentType="application/pdf",
                                        securityContext=reference("DocumentReference", document.id),
                                        data=base64.b64encode(content)))
    response = Response(content, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'attachment; filename="{document.file_name}"'
    return response


@fhir_api.post("/<resource_type>")
def create(resource_type: str):
    """Create: a Communication (a staff note), or a ClaimResponse (a payer's decision, recorded
    on its order's authorization section: the answer is that ServiceRequest as it is now)."""
    if resource_type == "ClaimResponse":
        resource = service_request_resource(record_claim_response(_request_body()))
    elif _kind(resource_type).name == "Communication":
        resource = communication_resource(create_note(_request_body()))
    else:
        raise fhir_error(405, "not-supported", f"{resource_type} cannot be created here. {WRITES}")
    location = url_for("api_fhir.read", resource_type=resource.get_resource_type(), resource_id=resource.id,
                       _external=True)
    return resource_response(resource, 201, {"Location": location})


@fhir_api.post("/Coverage/<coverage_id>/$verify")
def verify_coverage(coverage_id: str):
    """The Coverage tab's Verify coverage action: an eligibility result recorded on the coverage."""
    _, coverage = _found(KINDS["Coverage"], coverage_id)
    return resource_response(coverage_resource(verify(coverage, _request_body())))


@fhir_api.put("/<resource_type>/<resource_id>")
def update(resource_type: str, resource_id: str):
    """Update: a Task (a work item's status and queue fields) only."""
    kind = _kind(resource_type)
    if kind.name != "Task":
        raise fhir_error(405, "not-supported", f"{resource_type} cannot be updated here. {WRITES}")
    _, item = _found(kind, resource_id)
    update_work_item(item, _request_body())
    return resource_response(task_resource(item))


@fhir_api.route("", defaults={"rest": ""}, methods=ALL_METHODS)
@fhir_api.route("/<path:rest>", methods=ALL_METHODS)
def unsupported(rest: str):
    """Any other path or method: an OperationOutcome rather than the screens' login page."""
    if request.method == "GET":
        raise fhir_error(404, "not-supported", f"GET /fhir/{rest} is not an interaction of this server. It serves "
                                               "read (/fhir/<type>/<id>), search (/fhir/<type>?...) and "
                                               "/fhir/metadata.")
    raise fhir_error(405, "not-supported", f"{request.method} /fhir/{rest} is not supported. {WRITES}")
