"""Seed the EHR's template database from the synthetic world.

The EHR holds what a hospital chart holds: demographics, coverage, encounters, orders,
documents and the billing history the payers sent back. Problem and medication lists
are derived from encounters and documents (see chart_rules); queue items from orders
and claims (see seed_queues).
"""
from __future__ import annotations

import hashlib
from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.code_sets import seed_code_sets
from admindesk.envs.common.state.seeding import WorldSeed
from admindesk.envs.ehr_web import models as m, models_work as w
from admindesk.envs.ehr_web.chart_rules import COMPLETED_COURSES, allergy_line, medications_for, split_drug
from admindesk.envs.ehr_web.document_files import document_pdf, download_name
from admindesk.envs.ehr_web.seeding.seed_history import seed_history
from admindesk.envs.ehr_web.seeding.seed_inbasket import seed_inbasket
from admindesk.envs.ehr_web.seeding.seed_queues import seed_work_queues
from admindesk.envs.ehr_web.vocab import DOCUMENT_KINDS

# Who signs documents that have no clinician author in the world.
UNSIGNED_AUTHORS = {"imaging_report": "Radiology Department", "clearinghouse_report": "Central PA Claims Exchange",
                    "injury_report": "Patient Access (scanned)", "financial_form": "Patient Access (scanned)",
                    "insurance_card": "Patient Access (scanned)",
                    "medication_history": "Health Information Management (scanned)"}




def _reference_data(session: Session, world) -> None:
    """Payers, plans, sites, clinicians, suppliers and code sets: shared by every case."""
    session.add_all(m.Payer(id=p.id, name=p.name, payer_code=p.payer_code, phone=p.phone, pa_fax=p.pa_fax,
                            appeals_fax=p.appeals_fax, timely_appeal_days=p.timely_appeal_days)
                    for p in world.payers)
    session.add_all(m.Plan(id=p.id, payer_id=p.payer_id, name=p.name, product=p.product) for p in world.plans)
    session.add_all(m.Facility(id=f.id, name=f.name, address=f.address, city=f.city, state=f.state, zip=f.zip,
                               npi=f.npi, tax_id=f.tax_id, phone=f.phone, fax=f.fax,
                               place_of_service=f.place_of_service) for f in world.facilities)
    session.flush()
    session.add_all(m.Provider(npi=p.npi, first_name=p.first_name, last_name=p.last_name,
                               credentials=p.credentials, specialty=p.specialty, facility_id=p.facility_id,
                               phone=p.phone, fax=p.fax) for p in world.providers)
    session.add_all(m.Supplier(id=s.id, name=s.name, npi=s.npi, phone=s.phone, fax=s.fax, address=s.address,
                               city=s.city, state=s.state, zip=s.zip, categories=", ".join(s.categories))
                    for s in world.suppliers)
    seed_code_sets(session, world, m.CODE_SET_MODELS)
    session.flush()


def _primary_care_npi(world, mrn: str) -> str | None:
    """The PCP of record a coverage names, else the clinician of the patient's latest primary-care visit."""
    of_record = [c.pcp_npi for c in world.coverages if c.mrn == mrn and c.pcp_npi]
    if of_record:
        return of_record[0]
    visits = [e for e in world.encounters_for(mrn) if world.provider(e.provider_npi).specialty == "Primary Care"]
    return max(visits, key=lambda e: (e.date, e.id)).provider_npi if visits else None


def _patients(session: Session, world) -> None:
    for p in world.patients:
        notes = sorted((d for d in world.documents_for(p.mrn) if d.kind == "progress_note"),
                       key=lambda d: (d.date, d.id), reverse=True)
        session.add(m.Patient(mrn=p.mrn, first_name=p.first_name, last_name=p.last_name, dob=p.dob, sex=p.sex,
                              address=p.address, city=p.city, state=p.state, zip=p.zip, phone=p.phone,
                              email=p.email, language=p.language,
                              allergies=allergy_line([d.text for d in notes]),
                              pcp_npi=_primary_care_npi(world, p.mrn)))
    session.flush()
    session.add_all(m.Coverage(id=c.id, mrn=c.mrn, payer_id=c.payer_id, plan_id=c.plan_id, rank=c.rank,
                               member_id=c.member_id, group_number=c.group_number,
                               subscriber_name=c.subscriber_name, relationship_to_subscriber=c.relationship,
                               effective_date=c.effective, termination_date=c.termination, pcp_npi=c.pcp_npi)
                    for c in world.coverages)
    session.add_all(m.AccidentRecord(mrn=a.mrn, kind=a.kind, injury_date=a.injury_date, description=a.description,
                                     employer=a.employer, carrier=a.carrier, claim_number=a.claim_number,
                                     status=a.status, closed_on=a.closed_on) for a in world.accidents)
    # Credentialing keeps the clinicians' enrollments; an outside site's networks are the payers' record.
    clinicians = {p.npi for p in world.providers}
    session.add_all(m.ProviderEnrollment(npi=e.npi, payer_id=e.payer_id, submitted_on=e.submitted_on,
                                         received_on=e.received_on, status=e.status, effective=e.effective,
                                         welcome_letter_on=e.welcome_letter_on)
                    for e in world.provider_enrollments if e.npi in clinicians)
    # The outside sites the case's orders send services to, beside the health system's own.
    session.add_all(m.Facility(id=f.id, name=f.name, address=f.address, city=f.city, state=f.state, zip=f.zip,
                               npi=f.npi, tax_id=f.tax_id, phone=f.phone, fax=f.fax,
                               place_of_service=f.place_of_service) for f in world.outside_sites)


def _chart(session: Session, world) -> None:
    session.add_all(m.Encounter(id=e.id, mrn=e.mrn, encounter_date=e.date, provider_npi=e.provider_npi,
                                facility_id=e.facility_id, kind=e.kind, reason=e.reason,
                                diagnosis_codes=",".join(e.diagnosis_codes), admitted_at=e.admitted_at,
                                admission_type=e.admission_type, unit=e.unit, bed=e.bed,
                                discharged_on=e.discharged_on, disposition=e.disposition)
                    for e in world.encounters)
    session.flush()
    session.add_all(m.Order(id=o.id, mrn=o.mrn, encounter_id=o.encounter_id, code=o.code,
                            description=o.description, category=o.category, units=o.units,
                            diagnosis_codes=",".join(o.diagnosis_codes), ordering_npi=o.ordering_npi,
                            facility_id=o.facility_id, place_of_service=o.place_of_service,
                            ordered_on=o.ordered_on, planned_date=o.planned_date, priority=o.priority,
                            status=o.status, coverage_id=o.coverage_id, needs_auth=o.needs_auth)
                    for o in world.orders)
    session.flush()
    for patient in world.patients:
        encounters = sorted(world.encounters_for(patient.mrn), key=lambda e: (e.date, e.id))
        _problems(session, world, patient.mrn, encounters)
        _medications(session, world, patient.mrn, encounters)


def _problems(session: Session, world, mrn: str, encounters) -> None:
    """One problem per diagnosis code, dated by the first and last visit addressing it (or
    the order that names it); a diagnosis an order is for stays active."""
    seen: dict[str, list] = {}
    for enc in encounters:
        for code in enc.diagnosis_codes:
            seen.setdefault(code, []).append(enc.date)
    ordered: set[str] = set()
    for order in world.orders_for(mrn):
        if order.status != "Cancelled":
            ordered.update(order.diagnosis_codes)
            for code in order.diagnosis_codes:
                seen.setdefault(code, []).append(order.ordered_on)
    for code, days in seen.items():
        # Screening and encounter codes (Z00, Z13, Z51) describe visits, not problems.
        if code.startswith(("Z00", "Z13", "Z51")):
            continue
        days.sort()
        # Self-limited conditions (a UTI, an acute injury, a cough) are resolved by their last
        # visit, unless a service is ordered for them: the chart would contradict the order.
        resolved = code.startswith(("N39", "S83", "R05")) and code not in ordered
        session.add(m.Problem(mrn=mrn, icd10_code=code, description=world.codes.icd10[code], first_noted=days[0],
                              last_addressed=days[-1], status="Resolved" if resolved else "Active"))


def _medications(session: Session, world, mrn: str, encounters) -> None:
    listed: set[str] = set()

    def add(name: str, sig: str, indication: str | None, npi: str | None, start, status: str,
            end=None, stop_reason: str | None = None) -> None:
        if name.lower() in listed:
            return
        listed.add(name.lower())
        session.add(m.Medication(mrn=mrn, name=name, sig=sig, indication_code=indication, prescriber_npi=npi,
                                 start_date=start, status=status, end_date=end, stop_reason=stop_reason))

    for enc in encounters:
        for code in enc.diagnosis_codes:
            for name, sig in medications_for(code):
                add(name, sig, code, enc.provider_npi, enc.date, "Active")
            if code in COMPLETED_COURSES:
                add(*COMPLETED_COURSES[code], code, enc.provider_npi, enc.date, "Completed")
    for doc in sorted(world.documents_for(mrn), key=lambda d: (d.date, d.id)):
        facts = dict(doc.facts)
        if "nsaid_trial" in facts:
            add(*split_drug(facts["nsaid_trial"]), None, doc.author_npi, doc.date, "Active")
        if facts.get("prior_therapy") not in (None, "none") and "prior_therapy_start" in facts:
            start = datetime.strptime(facts["prior_therapy_start"], "%m/%d/%Y").date()
            stop = (datetime.strptime(facts["prior_therapy_stop"], "%m/%d/%Y").date()
                    if "prior_therapy_stop" in facts else None)
            name, sig = split_drug(facts["prior_therapy"])
            add(name, sig, None, doc.author_npi, start, "Discontinued", stop,
                facts.get("prior_therapy_outcome", "See history"))
    for order in world.orders_for(mrn):
        if order.category == "drug" and order.status != "Cancelled":
            name, sig = split_drug(order.description)
            status = "Active" if order.status == "Completed" else "Pending"
            add(name, sig, order.diagnosis_codes[0], order.ordering_npi, order.ordered_on, status)


def _documents(session: Session, world) -> None:
    mrns = {p.mrn for p in world.patients}
    patients = {p.mrn: p for p in session.scalars(select(m.Patient).where(m.Patient.mrn.in_(mrns)))}
    for d in world.documents:
        author = world.provider(d.author_npi).display_name if d.author_npi else \
            UNSIGNED_AUTHORS.get(d.kind, "Clinic Staff")
        document = m.Document(id=d.id, mrn=d.mrn, encounter_id=d.encounter_id, order_id=d.order_id,
                              kind=DOCUMENT_KINDS.get(d.kind, d.kind.replace("_", " ").title()),
                              title=d.title, author_npi=d.author_npi, author_name=author, document_date=d.date,
                              source="Clinical", text=d.text, file_name="")
        document.file_name = download_name(document)
        document.sha256 = hashlib.sha256(document_pdf(document, patients[d.mrn])).hexdigest()
        session.add(document)


def _billing(session: Session, world) -> None:
    for c in world.claims:
        session.add(w.Claim(claim_number=c.claim_number, mrn=c.mrn, payer_id=c.payer_id, coverage_id=c.coverage_id,
                            member_id=c.member_id, service_date=c.service_date, billing_npi=c.billing_npi,
                            rendering_npi=c.rendering_npi, facility_id=c.facility_id, submitted_on=c.submitted_on,
                            total_charge=c.total_charge, paid_amount=c.paid_amount, status=c.status,
                            order_id=c.order_id, auth_number=c.auth_number))
    session.flush()
    for c in world.claims:
        for line in c.lines:
            session.add(w.ClaimLine(claim_number=c.claim_number, line_no=line.line_no, code=line.code,
                                    modifiers=",".join(line.modifiers), units=line.units, charge=line.charge,
                                    diagnosis_codes=",".join(line.diagnosis_codes), paid=line.paid))
            session.add_all(w.ClaimAdjustment(claim_number=c.claim_number, line_no=line.line_no, group_code=a.group,
                                              carc_code=a.carc, rarc_code=a.rarc, amount=a.amount)
                            for a in line.adjustments)
        session.add_all(w.ClaimSubmission(claim_number=c.claim_number, transmitted_on=s.transmitted_on,
                                          batch_id=s.batch_id, clearinghouse_status="Accepted",
                                          payer_status=s.payer_status, payer_control_number=s.payer_control_number,
                                          status_detail=s.rejection, note=s.note,
                                          report_document_id=s.report_document_id)
                        for s in c.submissions)
    session.add_all(w.Remittance(id=r.id, claim_number=r.claim_number, payer_id=r.payer_id, paid_on=r.paid_on,
                                 check_number=r.check_number, paid_amount=r.paid_amount,
                                 patient_responsibility=r.patient_responsibility, appeal_deadline=r.appeal_deadline)
                    for r in world.remittances)


def _authorizations(session: Session, world) -> None:
    """Every order gets an authorization section.

    Completed orders show the approval the payer gave, and so do open orders whose approval
    the desk recorded when it came (the day after the request); other open orders whose request
    is already at the payer show "Submitted - Pending" with the payer's case number (the
    coordinator must check its status rather than submit again).
    """
    on_file = {a.order_id: a for a in world.authorizations if a.order_id}
    notices = {n.order_id: n for n in world.inpatient_notices if n.recorded}
    for order in world.orders:
        payer_id = world.coverage(order.coverage_id).payer_id if order.coverage_id else None
        auth = on_file.get(order.id)
        row = m.OrderAuthorization(order_id=order.id, payer_id=payer_id,
                                   status="Not Started" if order.needs_auth else "No Auth Required")
        if auth and auth.status == "Approved" and (order.status == "Completed" or auth.recorded):
            row.status, row.auth_number, row.reference_number = "Approved", auth.auth_number, auth.case_number
            row.approved_units, row.start_date, row.end_date = auth.units, auth.start, auth.end
            recorded_at = (datetime.combine(auth.start, time(10, 0)) if order.status == "Completed"
                           else datetime.combine(order.ordered_on + timedelta(days=1), time(16, 0)))
            row.updated_at, row.updated_by = recorded_at, "mreyes"
        elif auth and order.status in ("Ordered", "Scheduled") and auth.status != "Cancelled":
            row.status, row.reference_number = "Submitted - Pending", auth.case_number
            row.updated_at, row.updated_by = datetime.combine(order.ordered_on, time(14, 30)), "coordinator"
        notice = notices.get(order.id)
        if notice is not None:  # an inpatient stay's approval: case number, days, admit and next review dates
            row.status, row.auth_number, row.reference_number = "Approved", notice.case_number, notice.case_number
            row.approved_units, row.start_date = notice.approved_days, notice.admitted_at.date()
            row.end_date = notice.next_review
            row.updated_at, row.updated_by = notice.notified_at + timedelta(hours=2), "mreyes"
        session.add(row)


def seed_records(session: Session, world) -> None:
    """Copy a world's patients and everything about them (the background world's, or a
    task's case on top of it) into the EHR's tables."""
    # Relationships are view-only, so flush section by section to insert parents first.
    for section in (_patients, _chart, _documents, _billing, _authorizations, seed_history, seed_work_queues,
                    seed_inbasket):
        section(session, world)
        session.flush()


# The chart holds every patient of a case, as the health system registered them.
seed = WorldSeed(reference=_reference_data, records=seed_records, view="chart",
                 touches=lambda world: bool(world.patients))
