"""EHR rows -> FHIR R4 resources of people and organizations: Patient, Practitioner,
Organization (payers, facilities, DME suppliers) and Coverage."""
from __future__ import annotations

from fhir.resources.R4B.coverage import Coverage as FhirCoverage
from fhir.resources.R4B.organization import Organization
from fhir.resources.R4B.patient import Patient as FhirPatient
from fhir.resources.R4B.practitioner import Practitioner

from admindesk.envs.ehr_web.fhir.codes import (
    IDENTIFIER_TYPE,
    LANGUAGE,
    LANGUAGE_TAGS,
    MEMBER_ID,
    MRN,
    NPI,
    PAYER_CODE,
    TAX_ID,
    VERIFICATION_EXT,
    day,
    reference,
    text_concept,
)
from admindesk.envs.ehr_web.models import Coverage, Facility, Patient, Payer, Provider, Supplier

GENDERS = {"M": "male", "F": "female"}
SUBSCRIBER_RELATIONSHIP = "http://terminology.hl7.org/CodeSystem/subscriber-relationship"
RELATIONSHIPS = {"Self": "self", "Spouse": "spouse", "Child": "child"}
COVERAGE_CLASS = "http://terminology.hl7.org/CodeSystem/coverage-class"
ORGANIZATION_TYPE = "http://terminology.hl7.org/CodeSystem/organization-type"


def _identifier_type(code: str, display: str) -> dict:
    return {"coding": [{"system": IDENTIFIER_TYPE, "code": code, "display": display}]}


def _address(line: str, city: str, state: str, postal_code: str) -> dict:
    return {"line": [line], "city": city, "state": state, "postalCode": postal_code, "country": "US"}


def _telecom(phone: str | None = None, fax: str | None = None, email: str | None = None) -> list[dict]:
    points = [("phone", phone), ("fax", fax), ("email", email)]
    return [{"system": system, "value": value, "use": "work"} for system, value in points if value]


def _npi(npi: str) -> dict:
    return {"system": NPI, "value": npi}


def patient_resource(patient: Patient) -> FhirPatient:
    """Demographics, the MRN as the medical-record identifier, and the primary care provider."""
    language = {"text": patient.language}
    if patient.language in LANGUAGE_TAGS:
        language["coding"] = [{"system": LANGUAGE, "code": LANGUAGE_TAGS[patient.language]}]
    return FhirPatient(
        id=patient.mrn,
        identifier=[{"use": "usual", "type": _identifier_type("MR", "Medical record number"), "system": MRN,
                     "value": patient.mrn}],
        name=[{"use": "official", "family": patient.last_name, "given": [patient.first_name]}],
        gender=GENDERS.get(patient.sex, "unknown"), birthDate=patient.dob,
        address=[_address(patient.address, patient.city, patient.state, patient.zip)],
        telecom=[{"system": "phone", "value": patient.phone, "use": "home"},
                 {"system": "email", "value": patient.email, "use": "home"}],
        communication=[{"language": language, "preferred": True}],
        generalPractitioner=[reference("Practitioner", patient.pcp_npi)] if patient.pcp_npi else None)


def practitioner_resource(provider: Provider) -> Practitioner:
    """A clinician by NPI; the specialty is named with the credentials."""
    return Practitioner(
        id=provider.npi, identifier=[_npi(provider.npi)],
        name=[{"use": "official", "family": provider.last_name, "given": [provider.first_name],
               "suffix": [provider.credentials], "text": provider.display_name}],
        telecom=_telecom(phone=provider.phone, fax=provider.fax),
        qualification=[{"code": {"text": f"{provider.credentials} ({provider.specialty})"}}])


def payer_resource(payer: Payer) -> Organization:
    """An insurer: its payer code, and the fax numbers of its prior-authorization and appeals desks."""
    desks = (("Prior authorization", payer.pa_fax), ("Appeals", payer.appeals_fax))
    return Organization(
        id=payer.id, identifier=[{"system": PAYER_CODE, "value": payer.payer_code}], active=True,
        type=[{"coding": [{"system": ORGANIZATION_TYPE, "code": "pay", "display": "Payer"}]}],
        name=payer.name, telecom=_telecom(phone=payer.phone),
        contact=[{"purpose": {"text": purpose}, "telecom": _telecom(fax=fax)} for purpose, fax in desks if fax])


def facility_resource(facility: Facility) -> Organization:
    """A site of care, by NPI and tax id."""
    return Organization(
        id=facility.id, active=True,
        identifier=[_npi(facility.npi), {"system": TAX_ID, "value": facility.tax_id}],
        type=[{"coding": [{"system": ORGANIZATION_TYPE, "code": "prov", "display": "Healthcare Provider"}],
               "text": f"Facility (place of service {facility.place_of_service})"}],
        name=facility.name, telecom=_telecom(phone=facility.phone, fax=facility.fax),
        address=[_address(facility.address, facility.city, facility.state, facility.zip)])


def supplier_resource(supplier: Supplier) -> Organization:
    """A DME supplier, with the equipment categories it serves."""
    return Organization(
        id=supplier.id, active=True, identifier=[_npi(supplier.npi)],
        type=[{"coding": [{"system": ORGANIZATION_TYPE, "code": "prov", "display": "Healthcare Provider"}],
               "text": f"DME supplier ({supplier.categories})"}],
        name=supplier.name, telecom=_telecom(phone=supplier.phone, fax=supplier.fax),
        address=[_address(supplier.address, supplier.city, supplier.state, supplier.zip)])


def _verification(coverage: Coverage) -> dict:
    """The last eligibility check the desk recorded on the coverage."""
    parts = [("status", "valueString", coverage.verification_status), ("date", "valueDate", day(coverage.verified_on)),
             ("by", "valueString", coverage.verified_by), ("reference", "valueString", coverage.verification_reference)]
    return {"url": VERIFICATION_EXT,
            "extension": [{"url": name, kind: value} for name, kind, value in parts if value]}


def coverage_resource(coverage: Coverage) -> FhirCoverage:
    """A patient's insurance: payer, plan and group, member id, dates, order of benefits (1 = primary)."""
    relationship = RELATIONSHIPS.get(coverage.relationship_to_subscriber, "other")
    return FhirCoverage(
        id=coverage.id, status="active",
        identifier=[{"type": _identifier_type("MB", "Member Number"), "system": MEMBER_ID,
                     "value": coverage.member_id, "assigner": reference("Organization", coverage.payer_id)}],
        type=text_concept(coverage.plan.product),
        subscriber={"display": coverage.subscriber_name}, subscriberId=coverage.member_id,
        beneficiary=reference("Patient", coverage.mrn),
        relationship={"coding": [{"system": SUBSCRIBER_RELATIONSHIP, "code": relationship}],
                      "text": coverage.relationship_to_subscriber},
        period={"start": day(coverage.effective_date), "end": day(coverage.termination_date)},
        payor=[reference("Organization", coverage.payer_id, coverage.payer.name)],
        **{"class": [
            {"type": {"coding": [{"system": COVERAGE_CLASS, "code": "group"}]}, "value": coverage.group_number},
            {"type": {"coding": [{"system": COVERAGE_CLASS, "code": "plan"}]}, "value": coverage.plan_id,
             "name": coverage.plan.name}]},
        order=coverage.rank, extension=[_verification(coverage)])
