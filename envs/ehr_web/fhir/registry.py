"""Which FHIR resource types the EHR serves, from which tables, with which search parameters.

A type has one or more sources (Organization: payers, facilities and DME suppliers); each
source is a table, its id column, the mapper that turns a row into the R4 resource, its
search parameters and order, and the record type the audit trail names it by (the same
names the HTML views use: a ServiceRequest read is a view of the `order`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sqlalchemy import false, or_, select

from admindesk.envs.ehr_web.fhir import map_admin, map_billing, map_clinical, map_work
from admindesk.envs.ehr_web.fhir.codes import (
    AUTH_NUMBER,
    AUTH_REFERENCE,
    CLAIM_NUMBER,
    CPT,
    DOCUMENT_TYPE,
    HCPCS,
    ICD10CM,
    MEMBER_ID,
    MRN,
    NPI,
    ORDER_CATEGORY,
    ORDER_NUMBER,
    PAYER_CODE,
    REMITTANCE,
    TAX_ID,
    WORK_QUEUE,
)
from admindesk.envs.ehr_web.fhir.search import SearchParam, date_param, reference, string, token
from admindesk.envs.ehr_web.models import (
    Coverage,
    Document,
    Encounter,
    Facility,
    Medication,
    Order,
    OrderAuthorization,
    Patient,
    Payer,
    Problem,
    Provider,
    Supplier,
)
from admindesk.envs.ehr_web.models_work import Claim, Note, Remittance, WorkItem
from admindesk.envs.ehr_web.vocab import QUEUE_BY_NAME, QUEUES


def _text_id(value: str) -> str | None:
    return value or None


def _int_id(value: str) -> int | None:
    # Longer numbers are beyond SQLite's integers: no such row (rather than an overflow).
    return int(value) if value.isdigit() and len(value) < 19 else None


@dataclass(frozen=True)
class Source:
    """One table a resource type is read from."""

    model: type
    key: object  # the id column
    to_resource: Callable
    audit_type: str
    order_by: tuple
    params: Mapping[str, SearchParam] = field(default_factory=dict)
    parse_id: Callable[[str], object] = _text_id


@dataclass(frozen=True)
class ResourceKind:
    """A FHIR resource type the API serves."""

    name: str
    sources: tuple[Source, ...]
    # The chart tab a search for one patient's resources stands for, in the audit trail.
    chart_tab: str | None = None

    def search_params(self) -> dict[str, SearchParam]:
        """Every parameter of any of the type's sources (documented by the first that has it)."""
        params: dict[str, SearchParam] = {}
        for source in self.sources:
            for name, param in source.params.items():
                params.setdefault(name, param)
        return params


def _patient(column) -> SearchParam:
    return reference("The patient (Patient/<MRN> or the MRN).", Patient=lambda mrn: column == mrn)


def _equals(column) -> Callable[[str], object]:
    return lambda value: column == value


def _task_status(value: str):
    """Task.status -> the queue statuses it stands for, queue by queue."""
    matches = [(WorkItem.queue == queue.name) & (WorkItem.status == status) for queue in QUEUES.values()
               for status in queue.statuses if map_work.fhir_task_status(queue, status) == value]
    return or_(*matches) if matches else false()


def _queue(value: str):
    queue = QUEUES.get(value) or QUEUE_BY_NAME.get(value)
    return WorkItem.queue == (queue.name if queue else value)


def _authorized_orders(column) -> Callable[[str], object]:
    return lambda value: Order.id.in_(select(OrderAuthorization.order_id).where(column == value))


def _note_about(subject_type: str) -> Callable[[str], object]:
    return lambda value: (Note.subject_type == subject_type) & (Note.subject_id == value)


def _remittances_of_patient(mrn: str):
    return Remittance.claim_number.in_(select(Claim.claim_number).where(Claim.mrn == mrn))


KINDS = {kind.name: kind for kind in (
    ResourceKind("Patient", (Source(Patient, Patient.mrn, map_admin.patient_resource, "patient",
                                    (Patient.last_name, Patient.first_name, Patient.mrn), {
        "identifier": token("The MRN (urn:admindesk:ehr:mrn|E1000449 or E1000449).", (MRN, _equals(Patient.mrn))),
        "family": string("Last name, starts with.", Patient.last_name),
        "given": string("First name, starts with.", Patient.first_name),
        "name": string("Last or first name, starts with.", Patient.last_name, Patient.first_name),
        "birthdate": date_param("Date of birth.", Patient.dob)}),)),
    ResourceKind("Practitioner", (Source(Provider, Provider.npi, map_admin.practitioner_resource, "provider",
                                         (Provider.last_name, Provider.npi), {
        "identifier": token("The NPI.", (NPI, _equals(Provider.npi))),
        "family": string("Last name, starts with.", Provider.last_name),
        "name": string("Last or first name, starts with.", Provider.last_name, Provider.first_name)}),)),
    ResourceKind("Organization", (
        Source(Payer, Payer.id, map_admin.payer_resource, "payer", (Payer.name, Payer.id), {
            "identifier": token("Payer code, NPI or tax id.", (PAYER_CODE, _equals(Payer.payer_code))),
            "name": string("Name, starts with.", Payer.name)}),
        Source(Facility, Facility.id, map_admin.facility_resource, "facility", (Facility.name, Facility.id), {
            "identifier": token("", (NPI, _equals(Facility.npi)), (TAX_ID, _equals(Facility.tax_id))),
            "name": string("", Facility.name)}),
        Source(Supplier, Supplier.id, map_admin.supplier_resource, "supplier", (Supplier.name, Supplier.id), {
            "identifier": token("", (NPI, _equals(Supplier.npi))), "name": string("", Supplier.name)}))),
    ResourceKind("Coverage", (Source(Coverage, Coverage.id, map_admin.coverage_resource, "coverage",
                                     (Coverage.mrn, Coverage.rank, Coverage.effective_date.desc(), Coverage.id), {
        "patient": _patient(Coverage.mrn), "beneficiary": _patient(Coverage.mrn),
        "identifier": token("The member id.", (MEMBER_ID, _equals(Coverage.member_id))),
        "payor": reference("The payer (Organization/<id>).", Organization=_equals(Coverage.payer_id))}),),
        chart_tab="coverage"),
    ResourceKind("Encounter", (Source(Encounter, Encounter.id, map_clinical.encounter_resource, "encounter",
                                      (Encounter.encounter_date.desc(), Encounter.id.desc()), {
        "patient": _patient(Encounter.mrn), "date": date_param("The visit date.", Encounter.encounter_date)}),),
        chart_tab="encounters"),
    ResourceKind("Condition", (Source(Problem, Problem.id, map_clinical.condition_resource, "problem",
                                      (Problem.mrn, Problem.status, Problem.id), {
        "patient": _patient(Problem.mrn),
        "code": token("The ICD-10-CM code.", (ICD10CM, _equals(Problem.icd10_code))),
        "clinical-status": token("active or resolved.", (None, lambda value: Problem.status == value.capitalize()))},
        parse_id=_int_id),), chart_tab="problems"),
    ResourceKind("ServiceRequest", (Source(Order, Order.id, map_clinical.service_request_resource, "order",
                                           (Order.planned_date.desc(), Order.id), {
        "patient": _patient(Order.mrn),
        "identifier": token("The order number, or its authorization's number or payer reference.",
                            (ORDER_NUMBER, _equals(Order.id)),
                            (AUTH_NUMBER, _authorized_orders(OrderAuthorization.auth_number)),
                            (AUTH_REFERENCE, _authorized_orders(OrderAuthorization.reference_number))),
        "date": date_param("The planned date of service (occurrence).", Order.planned_date),
        "authored": date_param("The date ordered.", Order.ordered_on),
        "code": token("The CPT or HCPCS code.", (CPT, _equals(Order.code)), (HCPCS, _equals(Order.code))),
        "category": token("imaging, dme, drug, sleep, lab or therapy.", (ORDER_CATEGORY, _equals(Order.category)))}),),
        chart_tab="orders"),
    ResourceKind("MedicationRequest", (Source(Medication, Medication.id, map_clinical.medication_request_resource,
                                              "medication", (Medication.mrn, Medication.status, Medication.id), {
        "patient": _patient(Medication.mrn)}, parse_id=_int_id),), chart_tab="medications"),
    ResourceKind("DocumentReference", (Source(Document, Document.id, map_clinical.document_reference_resource,
                                              "document", (Document.document_date.desc(), Document.id.desc()), {
        "patient": _patient(Document.mrn), "date": date_param("The document date.", Document.document_date),
        "type": token("The document type, e.g. Progress Note.", (DOCUMENT_TYPE, _equals(Document.kind))),
        "related": reference("The order it supports.", ServiceRequest=_equals(Document.order_id))}),),
        chart_tab="documents"),
    ResourceKind("Claim", (Source(Claim, Claim.claim_number, map_billing.claim_resource, "claim",
                                  (Claim.service_date.desc(), Claim.claim_number), {
        "patient": _patient(Claim.mrn),
        "identifier": token("The claim number.", (CLAIM_NUMBER, _equals(Claim.claim_number))),
        "date": date_param("The date of service.", Claim.service_date),
        "created": date_param("The date submitted.", Claim.submitted_on)}),), chart_tab="billing"),
    ResourceKind("ExplanationOfBenefit", (Source(Remittance, Remittance.id,
                                                 map_billing.explanation_of_benefit_resource, "remittance",
                                                 (Remittance.paid_on.desc(), Remittance.id), {
        "patient": reference("The patient (Patient/<MRN> or the MRN).", Patient=_remittances_of_patient),
        "claim": reference("The claim (Claim/<claim number>).", Claim=_equals(Remittance.claim_number)),
        "identifier": token("The remittance id.", (REMITTANCE, _equals(Remittance.id))),
        "created": date_param("The date paid.", Remittance.paid_on)}),), chart_tab="billing"),
    ResourceKind("Task", (Source(WorkItem, WorkItem.id, map_work.task_resource, "work_item",
                                 (WorkItem.due_date, WorkItem.id), {
        "patient": _patient(WorkItem.mrn),
        "status": token("Task.status: requested, in-progress, on-hold or completed.", (None, _task_status)),
        "business-status": token("The queue status, e.g. New or Auth Obtained.", (None, _equals(WorkItem.status))),
        "code": token("The queue: prior-auth, denials or dme.", (WORK_QUEUE, _queue)),
        "focus": reference("The order or claim worked.", ServiceRequest=_equals(WorkItem.order_id),
                           Claim=_equals(WorkItem.claim_number))}, parse_id=_int_id),)),
    ResourceKind("Communication", (Source(Note, Note.id, map_work.communication_resource, "note",
                                          (Note.created_at.desc(), Note.id.desc()), {
        "patient": _patient(Note.mrn),
        "about": reference("The order, claim or work item the note is on.", ServiceRequest=_note_about("order"),
                           Claim=_note_about("claim"), Task=_note_about("work_item"))}, parse_id=_int_id),),
        chart_tab="notes"),
)}
