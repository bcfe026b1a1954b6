"""`CoverageEligibilityRequest/$submit`: the eligibility lookup a CoverageEligibilityRequest asks
for, as the portal's lookup form filled in (so the form's own validators judge its values).

The one shape read:
- `patient`: a reference to a contained Patient (`{"reference": "#member"}`) whose identifier is
  the Subscriber ID (Keystone's system, else type v2-0203 MB, else its only identifier) and whose
  `birthDate` is the subscriber's date of birth;
- `servicedDate`: the date of service, today when absent (the form's "leave blank for today");
  a `servicedPeriod` is refused: the lookup takes one date;
- `purpose`: `validation` and/or `benefits` (benefits adds the plan's benefit summary);
- `insurer`: required by FHIR, not read: this API answers for Keystone Mutual only.
Other elements are allowed and not read.
"""
from __future__ import annotations

from dataclasses import dataclass

from fhir.resources.R4B.coverageeligibilityrequest import CoverageEligibilityRequest
from werkzeug.datastructures import MultiDict

from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.forms import EligibilityForm
from admindesk.envs.payer_portal_b.pas.bundle_reading import full_date, member_identifier
from admindesk.envs.payer_portal_b.pas.outcomes import FhirProblem, Issue, validate_resource

ROOT = "CoverageEligibilityRequest"
ANSWERED_PURPOSES = ("validation", "benefits")


@dataclass(frozen=True)
class EligibilityQuestion:
    """The validated lookup form, the purposes asked for, and where the Subscriber ID was given."""

    form: EligibilityForm
    purposes: tuple[str, ...]
    subscriber_expression: str


def read_eligibility_request(body: dict) -> EligibilityQuestion:
    """The lookup of a CoverageEligibilityRequest body; FhirProblem (400 for the body's shape,
    422 for what the form's validators refuse) with nothing written."""
    request = validate_resource(body, CoverageEligibilityRequest)
    issues: list[Issue] = []
    purposes = _purposes(request.purpose or [], issues)
    patient_path, patient = _contained_patient(request, issues)
    member, member_path = member_identifier(patient_path, patient) if patient else (None, f"{ROOT}.patient")
    birth_date = full_date(patient.birthDate) if patient else None
    if patient is not None and member is None:
        issues.append(Issue(member_path, "Give the Patient's Subscriber ID as an identifier.", "required"))
    if patient is not None and birth_date is None:
        issues.append(Issue(f"{patient_path}.birthDate", "Give the Patient's full birthDate (the subscriber is "
                                                         "matched by Subscriber ID and date of birth).", "required"))
    if request.servicedPeriod is not None:
        issues.append(Issue(f"{ROOT}.servicedPeriod", "Give the date of service as servicedDate: the lookup takes "
                                                      "one date."))
    service_date = full_date(request.servicedDate)
    if request.servicedDate is not None and service_date is None:
        issues.append(Issue(f"{ROOT}.servicedDate", "Give a full date of service (YYYY-MM-DD)."))
    if issues:
        raise FhirProblem(issues)
    form = EligibilityForm(formdata=MultiDict({
        "subscriber_id": member, "dob": birth_date.strftime(DATE_FORMAT),
        "service_date": service_date.strftime(DATE_FORMAT) if service_date else ""}), meta={"csrf": False})
    if not form.validate():
        locations = {"subscriber_id": member_path, "dob": f"{patient_path}.birthDate",
                     "service_date": f"{ROOT}.servicedDate"}
        raise FhirProblem([Issue(locations.get(name, ROOT), message)
                           for name, messages in form.errors.items() for message in messages], 422)
    return EligibilityQuestion(form, purposes, member_path)


def _purposes(purposes: list[str], issues: list[Issue]) -> tuple[str, ...]:
    if not purposes:
        issues.append(Issue(f"{ROOT}.purpose", "Give purpose validation and/or benefits.", "required"))
    for index, purpose in enumerate(purposes):
        if purpose not in ANSWERED_PURPOSES:
            hint = " (ask POST /fhir/coverage-requirements)" if purpose == "auth-requirements" else ""
            issues.append(Issue(f"{ROOT}.purpose[{index}]", f"Keystone's eligibility answers validation and "
                                                            f"benefits, not {purpose!r}{hint}.", "not-supported"))
    return tuple(purposes)


def _contained_patient(request, issues: list[Issue]) -> tuple[str, object | None]:
    """(FHIRPath, Patient) that `patient` names among the contained resources; (path, None) and
    an issue otherwise."""
    reference = request.patient.reference or ""
    for index, resource in enumerate(request.contained or []):
        if resource.get_resource_type() == "Patient" and reference == f"#{resource.id}":
            return f"{ROOT}.contained[{index}]", resource
    issues.append(Issue(f"{ROOT}.patient.reference", "Reference a contained Patient (\"#id\") with the Subscriber "
                                                     "ID as identifier and birthDate.", "required"))
    return f"{ROOT}.patient", None
