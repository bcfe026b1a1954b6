"""A PAS request Bundle read into Keystone's long precertification form, field by field.

The API then submits that form through the same service path as the page
(precert_service.submit_request_form), so both channels share every validator, check,
determination, number and row. Each field remembers the Bundle element it came from, so a
problem the form finds is answered on that element. Where the form offers a default (one
unit, Standard review, Elective admission, place of service 11), an absent element gets it,
as an untouched form field would.

Mapping (Claim = Bundle.entry[0].resource):
- Claim.patient -> Patient: Subscriber ID (identifier: Keystone's system, else type MB, else
  the only one; Coverage.subscriberId must agree) and birthDate (the subscriber match).
- Claim.insurance[0].coverage -> Coverage in the Bundle.
- Claim.provider -> Rendering Provider NPI; Claim.careTeam with role `referring` -> Referring
  Provider NPI; Claim.enterer (else the provider) -> contact name and phone.
- Claim.priority `stat` -> Urgent review, anything else Standard.
- Claim.diagnosis (ICD-10-CM codings, or Conditions) in sequence order -> diagnosis codes.
- Claim.item[0..2] (sequence 1..3) -> lines 1 to 3: CPT/HCPCS productOrService, quantity
  (units), servicedDate or servicedPeriod (one span per request) and
  locationCodeableConcept (one place of service per request).
- Claim.supportingInfo -> the clinical summary and answers, and attachments 1 to 3 (see
  supporting_info).
"""
from __future__ import annotations

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.pas.bundle_reading import (
    PROVIDER_TYPES,
    PasBundle,
    coding_code,
    full_date,
    member_identifier,
    npi_of,
)
from admindesk.envs.payer_portal_b.pas.codes import (
    ICD10CM_SYSTEM,
    PLACE_OF_SERVICE_SYSTEM,
    PRIORITY_SYSTEM,
    REFERRING_ROLE,
    SERVICE_CODE_SYSTEMS,
    URGENT_PRIORITY,
)
from admindesk.envs.payer_portal_b.pas.form_input import FormInput, blank_form
from admindesk.envs.payer_portal_b.pas.outcomes import FhirProblem, Issue
from admindesk.envs.payer_portal_b.pas.supporting_info import read_supporting_info

LINE_FIELDS = (("service_code", "units"), ("service_code_2", "units_2"), ("service_code_3", "units_3"))


def read_precert_request(bundle) -> FormInput:
    """The form input of a PAS request Bundle; FhirProblem (400) when it cannot be read as one."""
    issues: list[Issue] = []
    entries = PasBundle(bundle, issues)
    if bundle.type != "collection":
        issues.append(Issue("Bundle.type", f"A PAS request Bundle is a 'collection' (not {bundle.type!r})."))
    found = entries.claim()
    if found is None:
        raise FhirProblem(issues)
    claim_path, claim = found
    form = blank_form(claim_path)
    for read in (_read_member, _read_providers, _read_diagnoses, _read_items, read_supporting_info):
        read(entries, claim_path, claim, form)
    priority = coding_code(claim.priority, (PRIORITY_SYSTEM,))
    form.put("urgency", "Urgent" if priority == URGENT_PRIORITY else "Standard", f"{claim_path}.priority")
    if issues:
        raise FhirProblem(issues)
    return form


def _read_member(entries: PasBundle, claim_path: str, claim, form: FormInput) -> None:
    patient = entries.resolve(claim.patient, f"{claim_path}.patient", ("Patient",))
    coverage = entries.resolve(claim.insurance[0].coverage, f"{claim_path}.insurance[0].coverage", ("Coverage",))
    if patient is None:
        return
    path, resource = patient
    member, where = member_identifier(path, resource)
    if coverage is not None and coverage[1].subscriberId:
        on_card = coverage[1].subscriberId.strip()
        if member is None:
            member, where = on_card, f"{coverage[0]}.subscriberId"
        elif on_card.upper() != member.upper():
            entries.issues.append(Issue(f"{coverage[0]}.subscriberId", f"Coverage.subscriberId {on_card} is not the "
                                                                       f"Patient's Subscriber ID {member}."))
    form.put("subscriber_id", member or "", where)
    birth = full_date(resource.birthDate)
    if resource.birthDate is not None and birth is None:
        entries.issues.append(Issue(f"{path}.birthDate", "The subscriber match needs a full date of birth."))
    form.put("subscriber_dob", birth.strftime(DATE_FORMAT) if birth else "", f"{path}.birthDate")


def _read_providers(entries: PasBundle, claim_path: str, claim, form: FormInput) -> None:
    provider = entries.resolve(claim.provider, f"{claim_path}.provider", PROVIDER_TYPES)
    if provider is not None:
        form.put("rendering_npi", *npi_of(*provider))
    referring = [(index, member) for index, member in enumerate(claim.careTeam or [])
                 if member.role is not None and _names_code(member.role, REFERRING_ROLE)]
    if len(referring) > 1:
        entries.issues.append(Issue(f"{claim_path}.careTeam", "Name one referring provider."))
    elif referring:
        index, member = referring[0]
        found = entries.resolve(member.provider, f"{claim_path}.careTeam[{index}].provider", PROVIDER_TYPES)
        if found is not None:
            form.put("referring_npi", *npi_of(*found))
    contact = provider
    if claim.enterer is not None:
        contact = entries.resolve(claim.enterer, f"{claim_path}.enterer", PROVIDER_TYPES)
    if contact is not None:
        _read_contact(*contact, form)


def _names_code(concept, code: str) -> bool:
    return (concept.text or "").strip().lower() == code or any(c.code == code for c in concept.coding or [])


def _read_contact(path: str, resource, form: FormInput) -> None:
    """Contact name and phone: a Practitioner's own, an Organization's first contact (else its name and phone)."""
    name, telecoms, name_path, phone_path = "", list(resource.telecom or []), f"{path}.name", f"{path}.telecom"
    if resource.get_resource_type() == "Practitioner":
        name = _human_name(resource.name[0]) if resource.name else ""
    else:
        contact = (resource.contact or [None])[0]
        if contact is not None and contact.name:
            name, name_path = _human_name(contact.name), f"{path}.contact[0].name"
        if contact is not None and contact.telecom:
            telecoms, phone_path = list(contact.telecom), f"{path}.contact[0].telecom"
        name = name or resource.name or ""
    phone = next((t.value for t in telecoms if t.system == "phone" and t.value), "")
    form.put("contact_name", name, name_path)
    form.put("contact_phone", phone, phone_path)


def _human_name(name) -> str:
    return name.text or " ".join([*(name.given or []), name.family or ""]).strip()


def _read_diagnoses(entries: PasBundle, claim_path: str, claim, form: FormInput) -> None:
    codes = []
    for index, diagnosis in enumerate(claim.diagnosis or []):
        path = f"{claim_path}.diagnosis[{index}]"
        concept = diagnosis.diagnosisCodeableConcept
        if concept is None:
            condition = entries.resolve(diagnosis.diagnosisReference, f"{path}.diagnosisReference", ("Condition",))
            if condition is None:
                continue
            concept = condition[1].code
        code = coding_code(concept, (ICD10CM_SYSTEM,))
        if code is None:
            entries.issues.append(Issue(path, f"Give the diagnosis as an ICD-10-CM code ({ICD10CM_SYSTEM})."))
        else:
            codes.append((diagnosis.sequence, code))
    form.put("diagnosis_codes", ", ".join(code for _, code in sorted(codes)), f"{claim_path}.diagnosis")


def _read_items(entries: PasBundle, claim_path: str, claim, form: FormInput) -> None:
    items = claim.item or []
    if len(items) > len(LINE_FIELDS):
        entries.issues.append(Issue(f"{claim_path}.item", f"Keystone Mutual takes at most {len(LINE_FIELDS)} "
                                                          "service lines per precertification request."))
    first_span = first_place = None
    for index, item in enumerate(items[:len(LINE_FIELDS)]):
        path = f"{claim_path}.item[{index}]"
        code_field, units_field = LINE_FIELDS[index]
        if item.sequence != index + 1:
            entries.issues.append(Issue(f"{path}.sequence", "Number the items 1, 2, 3 in order: Keystone answers "
                                                            "each line by this sequence."))
        code = coding_code(item.productOrService, SERVICE_CODE_SYSTEMS)
        if code is None:
            entries.issues.append(Issue(f"{path}.productOrService", "Give the service as a CPT or HCPCS code "
                                        f"(system {' or '.join(SERVICE_CODE_SYSTEMS)})."))
        form.put(code_field, code or "", f"{path}.productOrService")
        if item.quantity is not None and item.quantity.value is not None:
            units = item.quantity.value
            if units != int(units):
                entries.issues.append(Issue(f"{path}.quantity.value", "Units are whole numbers."))
            form.put(units_field, str(int(units)), f"{path}.quantity.value")
        span = _service_span(entries, path, item)
        place = coding_code(item.locationCodeableConcept, (PLACE_OF_SERVICE_SYSTEM,))
        if item.locationCodeableConcept is not None and place is None:
            entries.issues.append(Issue(f"{path}.locationCodeableConcept", "Give the place of service as a CMS "
                                        f"place of service code ({PLACE_OF_SERVICE_SYSTEM})."))
        if index == 0:
            first_span, first_place = span, place
            if place is not None:
                form.put("place_of_service", place, f"{path}.locationCodeableConcept")
            for name, day, element in (("start_date", span[0], span[2]), ("end_date", span[1], span[3])):
                form.put(name, day.strftime(DATE_FORMAT) if day else "", element)
        elif span[:2] != (None, None) and span[:2] != first_span[:2]:
            entries.issues.append(Issue(path, "Keystone Mutual takes one date span per request: give every item "
                                              "the dates of item 1 (or none)."))
        elif place is not None and place != first_place:
            entries.issues.append(Issue(f"{path}.locationCodeableConcept", "Keystone Mutual takes one place of "
                                                                           "service per request."))


def _service_span(entries: PasBundle, path: str, item) -> tuple:
    """(first day, last day, FHIRPath of each) of an item; partial dates are issues."""
    if item.servicedDate is not None:
        day = full_date(item.servicedDate)
        if day is None:
            entries.issues.append(Issue(f"{path}.servicedDate", "Give a full date of service."))
        return day, day, f"{path}.servicedDate", f"{path}.servicedDate"
    period = item.servicedPeriod
    start, end = (full_date(period.start), full_date(period.end)) if period is not None else (None, None)
    for value, day, name in ((period and period.start, start, "start"), (period and period.end, end, "end")):
        if value is not None and day is None:
            entries.issues.append(Issue(f"{path}.servicedPeriod.{name}", "Give full dates of service."))
    return start, end, f"{path}.servicedPeriod.start", f"{path}.servicedPeriod.end"
