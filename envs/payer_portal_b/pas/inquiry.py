"""Claim/$inquire: which precertification is asked about, and for which subscriber.

The body is either
- a PAS inquiry Bundle: the first entry a Claim (use preauthorization) whose `identifier`
  holds the reference number (KM-P-26-000001) and/or whose `insurance.preAuthRef` holds the
  authorization number; Claim.patient a Patient with the Subscriber ID (and, if given, the
  birthDate, which must then match); or
- Parameters: `subscriberId` (valueString or valueIdentifier), `referenceNumber` and/or
  `authorizationNumber` (valueString), optional `birthDate` (valueDate).
A request is found only for the subscriber it belongs to, as the status screen lists it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.parameters import Parameters
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.models import PrecertRequest, Subscriber
from admindesk.envs.payer_portal_b.pas.bundle_reading import PasBundle, full_date, member_identifier
from admindesk.envs.payer_portal_b.pas.outcomes import FhirProblem, Issue, validate_resource

PARAMETERS = ("subscriberId", "birthDate", "referenceNumber", "authorizationNumber")


@dataclass(frozen=True)
class Inquiry:
    """The subscriber named, the numbers asked about, and where the numbers were given."""

    subscriber_id: str
    birth_date: date | None
    reference_numbers: tuple[str, ...]
    authorization_numbers: tuple[str, ...]
    numbers_expression: str


def read_inquiry(body: dict) -> Inquiry:
    """The Inquiry of a $inquire body (a Bundle or Parameters); FhirProblem when it names none."""
    if body["resourceType"] == "Parameters":
        return _from_parameters(validate_resource(body, Parameters))
    return _from_bundle(validate_resource(body, Bundle))


def _from_parameters(parameters) -> Inquiry:
    issues: list[Issue] = []
    values: dict[str, list] = {name: [] for name in PARAMETERS}
    for index, parameter in enumerate(parameters.parameter or []):
        path = f"Parameters.parameter[{index}]"
        if parameter.name not in values:
            issues.append(Issue(f"{path}.name", f"Unknown parameter {parameter.name!r}; $inquire takes "
                                                f"{', '.join(PARAMETERS)}."))
            continue
        value = parameter.valueDate if parameter.name == "birthDate" else (
            parameter.valueIdentifier.value if parameter.valueIdentifier else parameter.valueString)
        if value is None or (parameter.name == "birthDate" and full_date(value) is None):
            kind = "valueDate (a full date)" if parameter.name == "birthDate" else "valueString"
            issues.append(Issue(f"{path}.value", f"Give {parameter.name} as {kind}."))
            continue
        values[parameter.name].append(value)
    if len(values["subscriberId"]) != 1:
        issues.append(Issue("Parameters.parameter", "Name the subscriber: one subscriberId.", "required"))
    if not values["referenceNumber"] and not values["authorizationNumber"]:
        issues.append(Issue("Parameters.parameter", "Name the request: referenceNumber or authorizationNumber.",
                            "required"))
    if issues:
        raise FhirProblem(issues)
    return Inquiry(values["subscriberId"][0], (values["birthDate"] or [None])[0], tuple(values["referenceNumber"]),
                   tuple(values["authorizationNumber"]), "Parameters.parameter")


def _from_bundle(bundle) -> Inquiry:
    issues: list[Issue] = []
    entries = PasBundle(bundle, issues)
    found = entries.claim()
    if found is None:
        raise FhirProblem(issues)
    claim_path, claim = found
    patient = entries.resolve(claim.patient, f"{claim_path}.patient", ("Patient",))
    member = birth = None
    if patient is not None:
        member, where = member_identifier(*patient)
        birth = full_date(patient[1].birthDate)
        if member is None:
            issues.append(Issue(where, "Give the Patient's Subscriber ID as an identifier.", "required"))
    references = tuple(i.value for i in claim.identifier or [] if i.value)
    authorizations = tuple(ref for insurance in claim.insurance or [] for ref in insurance.preAuthRef or [])
    if not references and not authorizations:
        issues.append(Issue(f"{claim_path}.identifier", "Name the request: its reference number as a Claim "
                                                        "identifier, or its authorization number as "
                                                        "insurance.preAuthRef.", "required"))
    if issues:
        raise FhirProblem(issues)
    return Inquiry(member, birth, references, authorizations, f"{claim_path}.identifier")


def find_precert(session: Session, inquiry: Inquiry) -> PrecertRequest:
    """The subscriber's request with one of the numbers asked about; FhirProblem (404) when none."""
    wanted = [number.strip().upper() for number in inquiry.reference_numbers]
    authorizations = [number.strip().upper() for number in inquiry.authorization_numbers]
    member = inquiry.subscriber_id.strip().upper()
    candidates = [session.get(PrecertRequest, number) for number in wanted]
    if authorizations:
        candidates += session.scalars(select(PrecertRequest)
                                      .where(PrecertRequest.authorization_number.in_(authorizations))
                                      .order_by(PrecertRequest.reference_number))
    subscriber = session.get(Subscriber, member)
    if subscriber is not None and (inquiry.birth_date is None or subscriber.dob == inquiry.birth_date):
        for candidate in candidates:
            if candidate is not None and candidate.subscriber_id == member:
                return candidate
    numbers = ", ".join([*wanted, *authorizations])
    raise FhirProblem([Issue(inquiry.numbers_expression, f"No precertification {numbers} is on file for "
                                                         f"subscriber {member}"
                                                         f"{' with this date of birth' if inquiry.birth_date else ''}.",
                             "not-found")], 404)
