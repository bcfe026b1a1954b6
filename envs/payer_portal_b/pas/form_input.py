"""The long precertification form's posted fields, as the PAS API fills them from a Bundle."""
from __future__ import annotations

from dataclasses import dataclass, field

from werkzeug.datastructures import FileStorage, MultiDict

from admindesk.envs.payer_portal_b.forms import ATTACHMENT_SLOTS
from admindesk.envs.payer_portal_b.portal import DOCUMENT_TYPES


@dataclass
class FormInput:
    """The request as the form's posted fields, its PDFs as uploads, and each field's Bundle element."""

    fields: dict[str, str] = field(default_factory=dict)
    files: dict[str, FileStorage] = field(default_factory=dict)
    locations: dict[str, str] = field(default_factory=dict)

    def put(self, name: str, value: str, expression: str) -> None:
        self.fields[name], self.locations[name] = value, expression

    def formdata(self) -> MultiDict:
        return MultiDict({**self.fields, **self.files})


def blank_form(claim: str) -> FormInput:
    """What an untouched form posts, each field placed on the Claim element that would fill it."""
    form = FormInput()
    for name, value, element in (
            ("subscriber_id", "", "patient"), ("subscriber_dob", "", "patient"), ("rendering_npi", "", "provider"),
            ("referring_npi", "", "careTeam"), ("place_of_service", "11", "item[0].locationCodeableConcept"),
            ("urgency", "Standard", "priority"), ("admission_type", "Elective", "supportingInfo"),
            ("service_code", "", "item"), ("units", "1", "item[0].quantity"),
            ("service_code_2", "", "item[1]"), ("units_2", "", "item[1].quantity"),
            ("service_code_3", "", "item[2]"), ("units_3", "", "item[2].quantity"),
            ("diagnosis_codes", "", "diagnosis"), ("start_date", "", "item[0].servicedPeriod.start"),
            ("end_date", "", "item[0].servicedPeriod.end"), ("clinical_summary", "", "supportingInfo"),
            ("contact_name", "", "enterer"), ("contact_phone", "", "enterer"),
            ("conservative_therapy_weeks", "", "supportingInfo"), ("red_flag_symptoms", "", "supportingInfo"),
            ("prior_imaging", "", "supportingInfo"), ("ahi", "", "supportingInfo"),
            ("spo2_rest", "", "supportingInfo"), ("hospital_site_reason", "", "supportingInfo"),
            ("genetic_counseling", "", "supportingInfo"), ("hereditary_criterion", "", "supportingInfo"),
            ("changes_management", "", "supportingInfo"), ("prior_germline_testing", "", "supportingInfo")):
        form.put(name, value, f"{claim}.{element}")
    for slot in range(1, ATTACHMENT_SLOTS + 1):
        # A browser posts an untouched select's first option.
        form.put(f"document_type_{slot}", DOCUMENT_TYPES[0], f"{claim}.supportingInfo")
        form.locations[f"attachment_{slot}"] = f"{claim}.supportingInfo"
    return form
