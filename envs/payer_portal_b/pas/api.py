"""The `api_pas` blueprint: Da Vinci PAS `Claim/$submit` and `Claim/$inquire`, the coverage
requirements lookup, the eligibility exchange (`CoverageEligibilityRequest/$submit`) and the
CapabilityStatement (`metadata`), under /fhir with a bearer token (common/api_access).

A `$submit` fills the portal's own precertification form from the Bundle and submits it
through the page's service path (precert_service.submit_request_form): same checks, same
subscriber match, same determination, numbers and rows; only `source` says "PAS API". Every
call is audited like the page it stands for (the form's submit, the status screen, the
requirements lookup), under the token's account. Errors are OperationOutcomes: 400 for a
body that is not the resource asked for, 422 for what the portal's rules refuse, 404 for a
request not on file, 401 without a valid token.

An eligibility `$submit` fills the portal's lookup form from the request and runs the form's
service (eligibility_service.record_inquiry): the same match, the same `eligibility_inquiries`
row (the table has no channel column; the audit row's detail says `channel: api`), the same
audit action.
"""
from __future__ import annotations

from fhir.resources.R4B.bundle import Bundle
from flask import Blueprint
from werkzeug.exceptions import RequestEntityTooLarge

from admindesk.envs.common.api_access import require_bearer
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_b.eligibility_service import NOT_FOUND, record_inquiry
from admindesk.envs.payer_portal_b.fields import format_phone
from admindesk.envs.payer_portal_b.forms import PrecertForm
from admindesk.envs.payer_portal_b.pas.capability import capability_statement
from admindesk.envs.payer_portal_b.pas.claim_response import response_bundle
from admindesk.envs.payer_portal_b.pas.coverage_requirements import read_query, requirements_answer
from admindesk.envs.payer_portal_b.pas.eligibility_request import read_eligibility_request
from admindesk.envs.payer_portal_b.pas.eligibility_response import eligibility_response
from admindesk.envs.payer_portal_b.pas.inquiry import find_precert, read_inquiry
from admindesk.envs.payer_portal_b.pas.outcomes import (
    FhirProblem,
    Issue,
    fhir_response,
    outcome_response,
    read_body,
    validate_resource,
)
from admindesk.envs.payer_portal_b.pas.request_bundle import read_precert_request
from admindesk.envs.payer_portal_b.portal import payer
from admindesk.envs.payer_portal_b.precert_service import submit_request_form

# PrecertRequest.source of a request made through this API (the form's is "Portal").
PAS_SOURCE = "PAS API"
CHANNEL = "api"

pas = Blueprint("api_pas", __name__, url_prefix="/fhir")
pas.before_request(require_bearer(lambda description: outcome_response([Issue(None, description, "login")], 401)))


@pas.errorhandler(FhirProblem)
def refuse(problem: FhirProblem):
    return outcome_response(problem.issues, problem.status)


@pas.errorhandler(RequestEntityTooLarge)
def too_large(_error):
    return outcome_response([Issue(None, "The request is larger than Keystone Mutual accepts (10 MB with its "
                                       "attachments).", "too-costly")], 413)


@pas.get("/metadata")
def metadata():
    """What the API does and how to fill its requests."""
    describe(record_type="capability_statement", channel=CHANNEL)
    return fhir_response(capability_statement())


@pas.post("/Claim/$submit")
def submit():
    """A PAS request Bundle -> a precertification, answered by a PAS response Bundle."""
    describe(action="submit_precert_rejected", record_type="precert", channel=CHANNEL)
    form_input = read_precert_request(validate_resource(read_body(("Bundle",)), Bundle))
    form = PrecertForm(formdata=form_input.formdata(), meta={"csrf": False})
    session = db()
    submission = submit_request_form(session, form, form_input.files, source=PAS_SOURCE)
    created = submission.created
    if created is None:
        session.rollback()
        issues = [Issue(form_input.locations.get(name, "Bundle"), message)
                  for name, messages in form.errors.items() for message in messages]
        if submission.fax_policy is not None:
            issues.append(Issue(form_input.locations["service_code"], "Fax the Precertification Request Fax Form to "
                                f"{format_phone(payer().precert_fax)} (policy "
                                f"{submission.fax_policy.policy_number}).", "business-rule"))
        describe(fax_only=submission.fax_policy is not None)
        return outcome_response(issues, 422)
    session.commit()
    describe(action="submit_precert", record_id=created.reference_number, status=created.status,
             service_code=created.service_code)
    return fhir_response(response_bundle(session, created))


@pas.post("/Claim/$inquire")
def inquire():
    """The current ClaimResponse of a precertification, as the status screen shows it now."""
    describe(action="view", record_type="precert", tab="detail", channel=CHANNEL)
    inquiry = read_inquiry(read_body(("Bundle", "Parameters")))
    item = find_precert(db(), inquiry)
    describe(record_id=item.reference_number, status=item.status)
    return fhir_response(response_bundle(db(), item))


@pas.post("/coverage-requirements")
def coverage_requirements():
    """Is precertification required for these codes, how is it requested, which documents?"""
    describe(action="view", record_type="service_code", tab="requirements", channel=CHANNEL)
    query = read_query(db(), read_body(("Parameters",)))
    codes = [code for code, _ in query.codes]
    describe(record_id=codes[0], codes=codes, subscriber_id=query.subscriber.subscriber_id)
    return fhir_response(requirements_answer(db(), query))


@pas.post("/CoverageEligibilityRequest/$submit")
def check_eligibility():
    """A CoverageEligibilityRequest -> the eligibility form's inquiry, answered as a
    CoverageEligibilityResponse; an unknown member is refused as the form refuses it (422)."""
    describe(channel=CHANNEL)
    try:
        question = read_eligibility_request(read_body(("CoverageEligibilityRequest",)))
    except FhirProblem:
        # Audited as the form's page answering its own validation errors.
        describe(record_type="eligibility", tab="lookup")
        raise
    form = question.form
    inquiry = record_inquiry(db(), form.subscriber_id.data, form.dob.data, form.service_date.data)
    if inquiry is None:
        return outcome_response([Issue(question.subscriber_expression, NOT_FOUND, "not-found")], 422)
    return fhir_response(eligibility_response(db(), inquiry, question.purposes))
