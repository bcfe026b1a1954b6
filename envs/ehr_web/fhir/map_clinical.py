"""EHR rows -> FHIR R4 resources of the chart: Encounter, Condition (problem list),
ServiceRequest (orders, DME included, with their authorization), MedicationRequest and
DocumentReference (the PDF as an attachment, the text as the narrative)."""
from __future__ import annotations

from html import escape

from fhir.resources.R4B.condition import Condition
from fhir.resources.R4B.documentreference import DocumentReference
from fhir.resources.R4B.encounter import Encounter as FhirEncounter
from fhir.resources.R4B.medicationrequest import MedicationRequest
from fhir.resources.R4B.servicerequest import ServiceRequest
from flask import url_for

from admindesk.envs.common import clock
from admindesk.envs.ehr_web.fhir.codes import (
    ACT_CODE,
    AUTH_NUMBER,
    AUTH_REFERENCE,
    AUTHORIZATION_EXT,
    DOCUMENT,
    DOCUMENT_TYPE,
    IDENTIFIER_TYPE,
    ORDER_CATEGORY,
    ORDER_NUMBER,
    PLACE_OF_SERVICE,
    day,
    diagnosis_concept,
    local_instant,
    procedure_concept,
    reference,
    text_concept,
)
from admindesk.envs.ehr_web.models import Document, Encounter, Medication, Order, OrderAuthorization, Problem

CONDITION_CLINICAL = "http://terminology.hl7.org/CodeSystem/condition-clinical"
CONDITION_VERIFICATION = "http://terminology.hl7.org/CodeSystem/condition-ver-status"
CONDITION_CATEGORY = "http://terminology.hl7.org/CodeSystem/condition-category"
ORDER_STATUSES = {"Ordered": "active", "Scheduled": "active", "Completed": "completed", "Cancelled": "revoked"}
MEDICATION_STATUSES = {"Active": "active", "Completed": "completed", "Discontinued": "stopped", "Pending": "draft"}
PRIORITIES = {"Routine": "routine", "Urgent": "urgent"}
TELEHEALTH = "Telehealth"


def encounter_resource(encounter: Encounter) -> FhirEncounter:
    """A visit: kind, clinician, facility, day, the reason and its ICD-10-CM diagnoses."""
    virtual = encounter.kind == TELEHEALTH
    codes = [code for code in encounter.diagnosis_codes.split(",") if code]
    return FhirEncounter(
        id=encounter.id, status="finished" if encounter.encounter_date <= clock.today() else "planned",
        **{"class": {"system": ACT_CODE, "code": "VR" if virtual else "AMB",
                     "display": "virtual" if virtual else "ambulatory"}},
        type=[text_concept(encounter.kind)], subject=reference("Patient", encounter.mrn),
        participant=[{"individual": reference("Practitioner", encounter.provider_npi,
                                              encounter.provider.display_name)}],
        period={"start": day(encounter.encounter_date), "end": day(encounter.encounter_date)},
        reasonCode=[text_concept(encounter.reason), *(diagnosis_concept(code) for code in codes)],
        serviceProvider=reference("Organization", encounter.facility_id, encounter.facility.name))


def condition_resource(problem: Problem) -> Condition:
    """A problem-list entry."""
    clinical = "resolved" if problem.status == "Resolved" else "active"
    return Condition(
        id=str(problem.id),
        clinicalStatus={"coding": [{"system": CONDITION_CLINICAL, "code": clinical}], "text": problem.status},
        verificationStatus={"coding": [{"system": CONDITION_VERIFICATION, "code": "confirmed"}]},
        category=[{"coding": [{"system": CONDITION_CATEGORY, "code": "problem-list-item",
                               "display": "Problem List Item"}]}],
        code={**diagnosis_concept(problem.icd10_code), "text": problem.description},
        subject=reference("Patient", problem.mrn), onsetDateTime=day(problem.first_noted),
        recordedDate=day(problem.first_noted),
        note=[{"text": f"Last addressed {problem.last_addressed:%m/%d/%Y}."}])


def _authorization(order: Order, auth: OrderAuthorization | None) -> dict:
    """The order's authorization section: whether one is needed, its status and terms."""
    parts = [("required", "valueBoolean", order.needs_auth)]
    if auth is not None:
        period = {"start": day(auth.start_date), "end": day(auth.end_date)} if auth.start_date or auth.end_date else None
        parts += [("status", "valueString", auth.status), ("number", "valueString", auth.auth_number),
                  ("reference", "valueString", auth.reference_number),
                  ("payer", "valueReference", reference("Organization", auth.payer_id)),
                  ("approvedUnits", "valueInteger", auth.approved_units),
                  ("unitsUsed", "valueInteger", auth.units_used if auth.approved_units is not None else None),
                  ("period", "valuePeriod", period),
                  ("updated", "valueDateTime", local_instant(auth.updated_at)),
                  ("updatedBy", "valueString", auth.updated_by)]
    return {"url": AUTHORIZATION_EXT,
            "extension": [{"url": name, kind: value} for name, kind, value in parts if value is not None]}


def service_request_resource(order: Order) -> ServiceRequest:
    """An order (imaging, drug, DME...): code and units, diagnoses, who ordered it, where and
    when, the coverage billed, and the authorization (an extension; its number an identifier)."""
    auth = order.authorization
    identifiers = [{"use": "official", "system": ORDER_NUMBER, "value": order.id,
                    "type": {"coding": [{"system": IDENTIFIER_TYPE, "code": "PLAC",
                                         "display": "Placer Identifier"}]}}]
    if auth is not None and auth.auth_number:
        identifiers.append({"use": "secondary", "system": AUTH_NUMBER, "value": auth.auth_number,
                            "type": {"text": "Prior authorization number"}})
    if auth is not None and auth.reference_number:
        identifiers.append({"use": "secondary", "system": AUTH_REFERENCE, "value": auth.reference_number,
                            "type": {"text": "Payer reference / case number"}})
    return ServiceRequest(
        id=order.id, identifier=identifiers, status=ORDER_STATUSES.get(order.status, "unknown"), intent="order",
        category=[{"coding": [{"system": ORDER_CATEGORY, "code": order.category}], "text": order.category}],
        priority=PRIORITIES.get(order.priority, "routine"),
        code=procedure_concept(order.code, order.description),
        quantityQuantity={"value": order.units, "unit": "unit"},
        subject=reference("Patient", order.mrn), encounter=reference("Encounter", order.encounter_id),
        occurrenceDateTime=day(order.planned_date), authoredOn=day(order.ordered_on),
        requester=reference("Practitioner", order.ordering_npi, order.provider.display_name),
        performer=[reference("Organization", order.facility_id, order.facility.name)],
        locationCode=[{"coding": [{"system": PLACE_OF_SERVICE, "code": order.place_of_service}]}],
        reasonCode=[diagnosis_concept(code) for code in order.diagnosis_list],
        insurance=[reference("Coverage", order.coverage_id)] if order.coverage_id else None,
        note=[{"text": f"Order status in the EHR: {order.status}."}],
        extension=[_authorization(order, auth)])


def medication_request_resource(medication: Medication) -> MedicationRequest:
    """A medication-list entry: the drug and strength as text, the sig, the indication, and for a
    stopped drug the dates it was taken and why it was stopped."""
    taken = {"start": day(medication.start_date), **({"end": day(medication.end_date)} if medication.end_date else {})}
    return MedicationRequest(
        id=str(medication.id), status=MEDICATION_STATUSES.get(medication.status, "unknown"), intent="order",
        medicationCodeableConcept={"text": medication.name}, subject=reference("Patient", medication.mrn),
        authoredOn=day(medication.start_date), requester=reference("Practitioner", medication.prescriber_npi),
        reasonCode=[diagnosis_concept(medication.indication_code)] if medication.indication_code else None,
        statusReason={"text": medication.stop_reason} if medication.stop_reason else None,
        dosageInstruction=[{"text": medication.sig, "timing": {"repeat": {"boundsPeriod": taken}}}])


def _narrative(document: Document) -> dict:
    """The document's text, so a client reads it without rendering the PDF."""
    return {"status": "additional",
            "div": f'<div xmlns="http://www.w3.org/1999/xhtml"><pre>{escape(document.text)}</pre></div>'}


def document_reference_resource(document: Document) -> DocumentReference:
    """A chart document: type, author, date, encounter and order, and the PDF at /fhir/Binary/<id>."""
    author = (reference("Practitioner", document.author_npi, document.author_name) if document.author_npi
              else {"display": document.author_name})
    related = [reference("ServiceRequest", document.order_id)] if document.order_id else None
    return DocumentReference(
        id=document.id, masterIdentifier={"system": DOCUMENT, "value": document.id}, status="current",
        text=_narrative(document),
        type={"coding": [{"system": DOCUMENT_TYPE, "code": document.kind}], "text": document.kind},
        category=[text_concept(document.source)], subject=reference("Patient", document.mrn),
        date=local_instant(document.uploaded_at), author=[author], description=document.title,
        content=[{"attachment": {
            "contentType": "application/pdf", "title": document.file_name,
            "url": url_for("api_fhir.binary", doc_id=document.id, _external=True),
            **({"size": len(document.content)} if document.content is not None else {})}}],
        context={"encounter": [reference("Encounter", document.encounter_id)] if document.encounter_id else None,
                 "period": {"start": day(document.document_date)}, "related": related})
