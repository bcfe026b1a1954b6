"""The code systems and identifier systems the EHR's FHIR resources use, and the small
builders every mapper shares (codings with their display, references, local instants).

Public code sets keep their official systems. What only this EHR issues (MRNs, order,
claim and document numbers, staff user names) is named under `urn:admindesk:ehr:`.
"""
from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from flask import g
from sqlalchemy import select

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.models import AdjustmentCode, DiagnosisCode, ProcedureCode

# Public code and identifier systems.
ICD10CM = "http://hl7.org/fhir/sid/icd-10-cm"
CPT = "http://www.ama-assn.org/go/cpt"
HCPCS = "urn:oid:2.16.840.1.113883.6.285"
NPI = "http://hl7.org/fhir/sid/us-npi"
TAX_ID = "urn:oid:2.16.840.1.113883.4.4"
CARC = "https://x12.org/codes/claim-adjustment-reason-codes"
CAS_GROUP = "https://x12.org/codes/claim-adjustment-group-codes"
PLACE_OF_SERVICE = "https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set"
IDENTIFIER_TYPE = "http://terminology.hl7.org/CodeSystem/v2-0203"
ACT_CODE = "http://terminology.hl7.org/CodeSystem/v3-ActCode"
ADJUDICATION = "http://terminology.hl7.org/CodeSystem/adjudication"
CLAIM_TYPE = "http://terminology.hl7.org/CodeSystem/claim-type"
LANGUAGE = "urn:ietf:bcp:47"

# What the EHR itself issues.
MRN = "urn:admindesk:ehr:mrn"
ORDER_NUMBER = "urn:admindesk:ehr:order"
AUTH_NUMBER = "urn:admindesk:ehr:auth-number"
AUTH_REFERENCE = "urn:admindesk:ehr:auth-reference"
CLAIM_NUMBER = "urn:admindesk:ehr:claim"
REMITTANCE = "urn:admindesk:ehr:remittance"
DOCUMENT = "urn:admindesk:ehr:document"
WORK_ITEM = "urn:admindesk:ehr:work-item"
MEMBER_ID = "urn:admindesk:ehr:member-id"
PAYER_CODE = "urn:admindesk:ehr:payer-code"
STAFF = "urn:admindesk:ehr:staff"
ORDER_CATEGORY = "urn:admindesk:ehr:order-category"
DOCUMENT_TYPE = "urn:admindesk:ehr:document-type"
WORK_QUEUE = "urn:admindesk:ehr:work-queue"
WORK_ITEM_FIELD = "urn:admindesk:ehr:work-item-field"
# Extensions for what R4 has no element for (documented in docs/apis.md).
EXTENSION = "urn:admindesk:ehr:fhir:"
AUTHORIZATION_EXT = EXTENSION + "authorization"
VERIFICATION_EXT = EXTENSION + "coverage-verification"
CLAIM_STATUS_EXT = EXTENSION + "claim-status"
APPEAL_DEADLINE_EXT = EXTENSION + "appeal-deadline"
FOLLOW_UP_EXT = EXTENSION + "follow-up-date"
AUTH_STATUS_EXT = EXTENSION + "authorization-status"
# Da Vinci PAS: the review action of a ClaimResponse item (X12 278 HCR01, code list 306).
PAS_REVIEW_ACTION_EXT = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/extension-reviewAction"
X12_REVIEW_ACTION = "https://codesystem.x12.org/005010/306"
# The adjudication category of the units a payer approved (in any system: payers name their own).
APPROVED_UNITS = "approved-units"

# The EHR keeps naive local times; FHIR date-times with a time need an offset.
LOCAL_ZONE = ZoneInfo("America/New_York")
LANGUAGE_TAGS = {"English": "en", "Spanish": "es", "Nepali": "ne", "Vietnamese": "vi", "Chinese": "zh",
                 "Russian": "ru", "Arabic": "ar"}


def local_instant(moment: datetime | None) -> datetime | None:
    """A stored (naive, local) time with the EHR's offset."""
    return None if moment is None else moment.replace(tzinfo=LOCAL_ZONE)


def day(value: date | None) -> str | None:
    """A date as FHIR writes it."""
    return None if value is None else value.isoformat()


def reference(resource_type: str, resource_id: object | None, display: str | None = None) -> dict | None:
    """A literal reference (`Patient/E1000449`), or None when there is no target."""
    if resource_id is None or resource_id == "":
        return None
    return {"reference": f"{resource_type}/{resource_id}", **({"display": display} if display else {})}


def staff_reference(username: str | None, display_name: str | None) -> dict | None:
    """A staff member (no FHIR resource of their own): a logical reference by user name."""
    if not username:
        return None
    return {"identifier": {"system": STAFF, "value": username}, "display": display_name or username}


def money(amount: float) -> dict:
    return {"value": round(amount, 2), "currency": "USD"}


def text_concept(text: str | None) -> dict | None:
    return {"text": text} if text else None


def _lookup(name: str, load) -> dict:
    """A code table read once per request (a page of resources shares it)."""
    tables = g.setdefault("fhir_code_tables", {})
    if name not in tables:
        tables[name] = load()
    return tables[name]


def _diagnoses() -> dict[str, str]:
    return _lookup("icd10", lambda: {row.code: row.description for row in db().scalars(select(DiagnosisCode))})


def _procedures() -> dict[str, ProcedureCode]:
    return _lookup("procedures", lambda: {row.code: row for row in db().scalars(select(ProcedureCode))})


def _adjustments() -> dict[tuple[str, str], str]:
    return _lookup("adjustments", lambda: {(row.code_set, row.code): row.description
                                           for row in db().scalars(select(AdjustmentCode))})


def diagnosis_concept(code: str) -> dict:
    """An ICD-10-CM diagnosis with its description."""
    display = _diagnoses().get(code)
    return {"coding": [{"system": ICD10CM, "code": code, **({"display": display} if display else {})}]}


def procedure_system(code: str) -> str:
    """CPT or HCPCS Level II, as the code table says (HCPCS Level II codes start with a letter)."""
    known = _procedures().get(code)
    if known is not None:
        return HCPCS if known.system == "HCPCS" else CPT
    return HCPCS if code[:1].isalpha() else CPT


def procedure_concept(code: str, text: str | None = None) -> dict:
    """A CPT or HCPCS service code with its description."""
    known = _procedures().get(code)
    coding = {"system": procedure_system(code), "code": code, **({"display": known.description} if known else {})}
    return {"coding": [coding], **({"text": text} if text else {})}


def modifier_concept(modifier: str) -> dict:
    """A procedure modifier: two digits are CPT's (26, 25), letters HCPCS Level II's (LT, RT)."""
    return {"coding": [{"system": CPT if modifier.isdigit() else HCPCS, "code": modifier}]}


def adjustment_description(code_set: str, code: str) -> str | None:
    """The description of a CARC or RARC ("CARC" / "RARC" as `adjustment_codes.code_set` names them)."""
    return _adjustments().get((code_set, code))


def carc_concept(code: str) -> dict:
    """A claim adjustment reason code with its description."""
    display = adjustment_description("CARC", code)
    return {"coding": [{"system": CARC, "code": code, **({"display": display} if display else {})}]}
