"""`GET /fhir/metadata`: what Keystone's API does and how to fill its requests, in one
CapabilityStatement a tool-calling agent can read before its first call."""
from __future__ import annotations

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b.forms import PLACES_OF_SERVICE
from admindesk.envs.payer_portal_b.pas.codes import (
    CPT_SYSTEM,
    DOCUMENT_TYPE_CODES,
    DOCUMENT_TYPE_SYSTEM,
    HCPCS_OID_SYSTEM,
    HCPCS_SYSTEM,
    ICD10CM_SYSTEM,
    INFO_CATEGORY_SYSTEM,
    KEYSTONE_BASE,
    NPI_SYSTEM,
    PLACE_OF_SERVICE_SYSTEM,
    QUESTION_SYSTEM,
    QUESTIONS,
    REVIEW_ACTIONS,
    SUBSCRIBER_ID_SYSTEM,
    X12_306_SYSTEM,
)

VALUE_TYPES = {"string": "valueString", "yes_no": "valueBoolean", "quantity": "valueQuantity"}

SECURITY = ("Every request needs 'Authorization: Bearer <token>'. Get a token with POST /oauth/token "
            "(grant_type=password, username, password of a portal staff account); it ends at the next reset.")

SUBMIT = (
    "A PAS request Bundle (type collection) -> a precertification, decided at once by Keystone's medical policies "
    "exactly as on the portal's request form; answers a Bundle whose first entry is the ClaimResponse. "
    "Bundle.entry[0] is the Claim (use preauthorization). Claim.patient: a Patient in the Bundle with the Subscriber "
    f"ID as identifier (system {SUBSCRIBER_ID_SYSTEM}, or type v2-0203 MB) and birthDate; Claim.insurance[0].coverage: "
    "a Coverage in the Bundle (subscriberId, if given, must agree). Claim.provider: the rendering Practitioner or "
    f"Organization with its NPI ({NPI_SYSTEM}); Claim.careTeam with role 'referring': the referring provider; "
    "Claim.enterer (else the provider): the contact's name and phone (telecom system phone). Claim.priority 'stat' "
    f"asks for an urgent review. Claim.diagnosis: ICD-10-CM codings ({ICD10CM_SYSTEM}). Claim.item, sequence 1 to 3: "
    f"productOrService CPT ({CPT_SYSTEM}) or HCPCS ({HCPCS_SYSTEM} or {HCPCS_OID_SYSTEM}), quantity (units), "
    "servicedDate or "
    f"servicedPeriod (one span for all items), locationCodeableConcept ({PLACE_OF_SERVICE_SYSTEM}: "
    f"{', '.join(choice.value for choice in PLACES_OF_SERVICE)}). Claim.supportingInfo: category "
    f"({INFO_CATEGORY_SYSTEM}) 'info' with a code of {QUESTION_SYSTEM}: "
    + ", ".join(f"{code} ({VALUE_TYPES[kind]})" for code, (_, kind) in QUESTIONS.items())
    + " (clinical-summary is required, 20 to 4000 characters; admission-type Elective or Emergent); category "
    "'attachment' with valueAttachment (contentType application/pdf, title the file name, data the base64 PDF), its "
    f"code from {DOCUMENT_TYPE_SYSTEM}: {', '.join(DOCUMENT_TYPE_CODES)}; at most 3. A problem is answered as an "
    "OperationOutcome naming the element, and nothing is filed.")
INQUIRE = (
    "The current ClaimResponse of a precertification (its decision, or the documents a pended one still needs). "
    "Body: Parameters subscriberId (valueString) and referenceNumber or authorizationNumber (valueString), optional "
    "birthDate (valueDate); or a PAS inquiry Bundle whose Claim names the reference number as identifier or the "
    "authorization number as insurance.preAuthRef.")
COVERAGE_REQUIREMENTS = (
    "POST /fhir/coverage-requirements: is precertification required, how is it requested, which documents? Body: "
    "Parameters subscriberId (valueString), birthDate (valueDate), optional serviceDate (valueDate) and plan "
    "(valueString), code (valueCoding CPT/HCPCS, or valueString) once per service. Answers Parameters: coverage, then "
    "one requirement per code (paNeeded auth-needed/no-auth, documentType, policy, requestChannel, criteria).")
ELIGIBILITY = (
    "POST /fhir/CoverageEligibilityRequest/$submit: is the member covered on the date of service, and the plan's "
    "benefit summary (the portal's eligibility lookup; each call is logged as an inquiry as the lookup logs it). "
    "Body: a CoverageEligibilityRequest whose patient references a contained Patient ('#id') with the Subscriber ID "
    f"as identifier (system {SUBSCRIBER_ID_SYSTEM}, or type v2-0203 MB) and birthDate; servicedDate (default today; "
    "not servicedPeriod); purpose validation and/or benefits; insurer (any reference). Answers a "
    "CoverageEligibilityResponse: identifier the inquiry number, disposition 'Coverage on <date>: Active|Inactive', "
    "insurance[0].inforce, benefitPeriod and the contained Coverage's period (effective to terminated), and with "
    "purpose benefits one item per benefit summary row (benefit.allowedString). An unknown Subscriber ID and date of "
    "birth is a 422 OperationOutcome, nothing logged.")
RESPONSE = (
    "ClaimResponse: identifier = Keystone's reference number; outcome queued while pended, else complete; "
    "disposition = the decision reason; preAuthRef = the authorization number once certified; each item's "
    "adjudication (category submitted) carries the PAS reviewAction extension with the X12 306 code ("
    + ", ".join(f"{code} {words} = {status}" for status, (code, words) in REVIEW_ACTIONS.items())
    + f"; A2 certified in part; a Duplicate has none) in {X12_306_SYSTEM}; extension {KEYSTONE_BASE}/"
    "StructureDefinition/precert-status holds the portal's status word.")


def capability_statement() -> dict:
    """Keystone's CapabilityStatement (FHIR R4, JSON): the two PAS operations, eligibility and the lookup."""
    return {
        "resourceType": "CapabilityStatement", "status": "active", "date": clock.today().isoformat(),
        "kind": "instance", "fhirVersion": "4.0.1", "format": ["json"],
        "publisher": "Keystone Mutual Health (synthetic)",
        "implementation": {"description": "Keystone Mutual Provider Connect: Da Vinci PAS, eligibility and "
                                          "coverage requirements"},
        "rest": [{
            "mode": "server", "documentation": RESPONSE, "security": {"description": SECURITY},
            "resource": [{"type": "Claim", "operation": [
                {"name": "submit", "definition": "http://hl7.org/fhir/us/davinci-pas/OperationDefinition/Claim-submit",
                 "documentation": "POST /fhir/Claim/$submit. " + SUBMIT},
                {"name": "inquire",
                 "definition": "http://hl7.org/fhir/us/davinci-pas/OperationDefinition/Claim-inquiry",
                 "documentation": "POST /fhir/Claim/$inquire. " + INQUIRE}]},
                {"type": "CoverageEligibilityRequest", "operation": [
                    {"name": "submit",
                     "definition": f"{KEYSTONE_BASE}/OperationDefinition/CoverageEligibilityRequest-submit",
                     "documentation": ELIGIBILITY}]}],
            "operation": [{"name": "coverage-requirements",
                           "definition": f"{KEYSTONE_BASE}/OperationDefinition/coverage-requirements",
                           "documentation": COVERAGE_REQUIREMENTS}],
        }],
    }
