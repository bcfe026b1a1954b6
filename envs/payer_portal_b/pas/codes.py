"""The code systems, identifier systems and extensions Keystone's FHIR API speaks.

Public ones are the real canonical URLs (HL7 terminology, CMS, AMA, X12, Da Vinci PAS and
CRD). Keystone's own (subscriber ids, reference numbers, the precertification questions,
document types) live under KEYSTONE_BASE, a reserved `.example` domain: the payer is
synthetic.
"""
from __future__ import annotations

from admindesk.envs.payer_portal_b.portal import DOCUMENT_TYPES

KEYSTONE_BASE = "https://provider.keystonemutual.example/fhir"

# Identifier systems.
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
SUBSCRIBER_ID_SYSTEM = f"{KEYSTONE_BASE}/sid/subscriber-id"
PRECERT_REFERENCE_SYSTEM = f"{KEYSTONE_BASE}/sid/precert-reference"
AUTHORIZATION_NUMBER_SYSTEM = f"{KEYSTONE_BASE}/sid/authorization-number"
PAYER_ID_SYSTEM = f"{KEYSTONE_BASE}/sid/payer-id"
ELIGIBILITY_INQUIRY_SYSTEM = f"{KEYSTONE_BASE}/sid/eligibility-inquiry"
IDENTIFIER_TYPE_SYSTEM = "http://terminology.hl7.org/CodeSystem/v2-0203"
MEMBER_NUMBER_TYPE = "MB"

# Code systems of the request.
ICD10CM_SYSTEM = "http://hl7.org/fhir/sid/icd-10-cm"
CPT_SYSTEM = "http://www.ama-assn.org/go/cpt"
HCPCS_SYSTEM = "https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets"
# HCPCS Level II is also named by its OID (the EHR's API writes it so): both are read.
HCPCS_OID_SYSTEM = "urn:oid:2.16.840.1.113883.6.285"
SERVICE_CODE_SYSTEMS = (CPT_SYSTEM, HCPCS_SYSTEM, HCPCS_OID_SYSTEM)
PLACE_OF_SERVICE_SYSTEM = "https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set"
CLAIM_TYPE_SYSTEM = "http://terminology.hl7.org/CodeSystem/claim-type"
INFO_CATEGORY_SYSTEM = "http://terminology.hl7.org/CodeSystem/claiminformationcategory"
ADJUDICATION_SYSTEM = "http://terminology.hl7.org/CodeSystem/adjudication"
QUESTION_SYSTEM = f"{KEYSTONE_BASE}/CodeSystem/precert-question"
DOCUMENT_TYPE_SYSTEM = f"{KEYSTONE_BASE}/CodeSystem/document-type"
KEYSTONE_ADJUDICATION_SYSTEM = f"{KEYSTONE_BASE}/CodeSystem/adjudication"
# Claim.careTeam.role of the referring provider (R4's claimcareteamrole has no such code).
REFERRING_ROLE = "referring"

# Claim.priority (processpriority) -> the form's Review Type: only "stat" is urgent.
PRIORITY_SYSTEM = "http://terminology.hl7.org/CodeSystem/processpriority"
URGENT_PRIORITY = "stat"

# Keystone's precertification questions: supportingInfo code -> (form field, value kind).
# Kinds: "string", "yes_no" (valueBoolean, or valueString Yes/No), "quantity" (valueQuantity).
QUESTIONS = {
    "clinical-summary": ("clinical_summary", "string"),
    "conservative-therapy-weeks": ("conservative_therapy_weeks", "quantity"),
    "red-flag-symptoms": ("red_flag_symptoms", "yes_no"),
    "prior-imaging": ("prior_imaging", "yes_no"),
    "ahi": ("ahi", "quantity"),
    "spo2-rest": ("spo2_rest", "quantity"),
    "admission-type": ("admission_type", "string"),
    "hospital-site-reason": ("hospital_site_reason", "string"),
    "genetic-counseling": ("genetic_counseling", "string"),
    "hereditary-criterion": ("hereditary_criterion", "string"),
    "changes-management": ("changes_management", "string"),
    "prior-germline-testing": ("prior_germline_testing", "string"),
}

# Document types: code in DOCUMENT_TYPE_SYSTEM -> the portal's type ("clinical-notes" -> "Clinical notes").
DOCUMENT_TYPE_CODES = {name.lower().replace(" ", "-"): name for name in DOCUMENT_TYPES}

# Da Vinci PAS: the review action of each item (X12 278 HCR01, code list 306).
PAS_BASE = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition"
REVIEW_ACTION_URL = f"{PAS_BASE}/extension-reviewAction"
REVIEW_ACTION_CODE_URL = f"{PAS_BASE}/extension-reviewActionCode"
ITEM_PREAUTH_PERIOD_URL = f"{PAS_BASE}/extension-itemPreAuthPeriod"
X12_306_SYSTEM = "https://codesystem.x12.org/005010/306"
CERTIFIED_IN_TOTAL = ("A1", "Certified in total")
CERTIFIED_PARTIAL = ("A2", "Certified - partial")
# A line's portal status -> its review action (an approval short of what was asked is
# CERTIFIED_PARTIAL); "Duplicate" has none (no review was made: the request on file decides,
# and the disposition names it).
REVIEW_ACTIONS = {
    "Approved": CERTIFIED_IN_TOTAL,
    "Denied": ("A3", "Not certified"),
    "Pended": ("A4", "Pended"),
    "Not Required": ("NA", "No action required"),
    "Withdrawn": ("C", "Cancelled"),
    "Cancelled": ("C", "Cancelled"),
}
# The portal's own status word, on every ClaimResponse (as the status screen shows it).
PRECERT_STATUS_URL = f"{KEYSTONE_BASE}/StructureDefinition/precert-status"

# Da Vinci CRD coverage-information codes (covered, pa-needed, doc-needed).
CRD_CODES_SYSTEM = "http://hl7.org/fhir/us/davinci-crd/CodeSystem/coverage-information-codes"

# The eligibility exchange (CoverageEligibilityRequest/$submit).
SUBSCRIBER_RELATIONSHIP_SYSTEM = "http://terminology.hl7.org/CodeSystem/subscriber-relationship"
COVERAGE_CLASS_SYSTEM = "http://terminology.hl7.org/CodeSystem/coverage-class"
BENEFIT_TYPE_SYSTEM = "http://terminology.hl7.org/CodeSystem/benefit-type"
# The rows of the eligibility page's Benefit Summary, as item categories.
BENEFIT_SUMMARY_SYSTEM = f"{KEYSTONE_BASE}/CodeSystem/benefit-summary"
