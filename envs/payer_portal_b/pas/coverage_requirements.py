"""Coverage requirements (a CRD-style lookup): does a service need precertification at Keystone
Mutual, how is it requested, and which documents does the medical policy ask for?

Read from the same rows as the portal's "Is Precertification Required?" page and its policy
documents (MedicalPolicy, PolicyCode, DmeRequirement, loaded from data/policies.yaml).

Request (Parameters): `subscriberId` (valueString or valueIdentifier) and `birthDate`
(valueDate), matched as everywhere in the portal; optional `serviceDate` (valueDate, default
today) and `plan` (valueString, which must be the member's plan); `code` once per service
(valueCoding with a CPT or HCPCS system, or valueCode / valueString), at most 10.

Answer (Parameters): `coverage` (plan, whether it is active on the date, coordination of
benefits), then one `requirement` per code: `code`, `known` (a code Keystone does not know
is answered as such, with a message), CRD coverage-information codings `covered`
(covered | not-covered), `paNeeded` (auth-needed | no-auth) and `docNeeded` (clinical, when
the policy asks for documents), `policy` and `policyTitle`, `submission` (Online or Fax
only), `requestChannel`, `documentType` (each type to attach), `documentation`, `criteria`,
`dmeRequirement` (DME codes) and a `message` in words.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from fhir.resources.R4B.parameters import Parameters
from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT, format_phone
from admindesk.envs.payer_portal_b.models import DmeRequirement, PayerProfile, Plan, ProcedureCode, Subscriber
from admindesk.envs.payer_portal_b.pas.bundle_reading import full_date
from admindesk.envs.payer_portal_b.pas.codes import CPT_SYSTEM, CRD_CODES_SYSTEM, HCPCS_SYSTEM, SERVICE_CODE_SYSTEMS
from admindesk.envs.payer_portal_b.pas.outcomes import FhirProblem, Issue, validate_resource
from admindesk.envs.payer_portal_b.precert_service import SUBSCRIBER_NOT_FOUND
from admindesk.envs.payer_portal_b.rules.dme_rules import requirement_text
from admindesk.envs.payer_portal_b.rules.precert_determination import policy_for_code

MAX_CODES = 10
SINGLE = ("subscriberId", "birthDate", "serviceDate", "plan")


@dataclass(frozen=True)
class RequirementsQuery:
    """Who, when, and which service codes (with where each code was given)."""

    subscriber: Subscriber
    service_date: date
    codes: tuple[tuple[str, str], ...]


def read_query(session: Session, body: dict) -> RequirementsQuery:
    """The lookup a Parameters body asks for; FhirProblem (400, or 422 for an unknown member)."""
    parameters = validate_resource(body, Parameters)
    issues: list[Issue] = []
    values: dict[str, tuple[str, object]] = {}
    codes: list[tuple[str, str]] = []
    for index, parameter in enumerate(parameters.parameter or []):
        path = f"Parameters.parameter[{index}]"
        if parameter.name == "code":
            code = (parameter.valueCoding.code if parameter.valueCoding else None) or parameter.valueCode \
                or parameter.valueString
            if parameter.valueCoding and parameter.valueCoding.system not in (None, *SERVICE_CODE_SYSTEMS):
                issues.append(Issue(f"{path}.valueCoding.system", "Give a CPT or HCPCS code."))
            elif not code:
                issues.append(Issue(f"{path}.value", "Give the code as valueCoding, valueCode or valueString."))
            else:
                codes.append((code.strip().upper(), f"{path}.value"))
        elif parameter.name in SINGLE and parameter.name not in values:
            is_date = parameter.name in ("birthDate", "serviceDate")
            value = full_date(parameter.valueDate) if is_date else (
                parameter.valueIdentifier.value if parameter.valueIdentifier else parameter.valueString)
            if value is None:
                issues.append(Issue(f"{path}.value", f"Give {parameter.name} as "
                                                     f"{'a full valueDate' if is_date else 'valueString'}."))
            values[parameter.name] = (f"{path}.value", value)
        else:
            issues.append(Issue(f"{path}.name", f"Unknown or repeated parameter {parameter.name!r}; the lookup takes "
                                                f"{', '.join(SINGLE)} once and code up to {MAX_CODES} times."))
    for name in ("subscriberId", "birthDate"):
        if name not in values:
            issues.append(Issue("Parameters.parameter", f"{name} is required (the member is matched by both).",
                                "required"))
    if not codes or len(codes) > MAX_CODES:
        issues.append(Issue("Parameters.parameter", f"Give 1 to {MAX_CODES} service codes (parameter code).",
                            "required"))
    if issues:
        raise FhirProblem(issues)
    subscriber = session.get(Subscriber, str(values["subscriberId"][1]).strip().upper())
    if subscriber is None or subscriber.dob != values["birthDate"][1]:
        raise FhirProblem([Issue(values["subscriberId"][0], SUBSCRIBER_NOT_FOUND, "not-found")], 422)
    if "plan" in values and str(values["plan"][1]).strip().upper() != subscriber.plan_id.upper():
        raise FhirProblem([Issue(values["plan"][0], f"Subscriber {subscriber.subscriber_id} is not on plan "
                                                    f"{values['plan'][1]}.", "business-rule")], 422)
    service_date = values.get("serviceDate", (None, clock.today()))[1]
    return RequirementsQuery(subscriber, service_date, tuple(codes))


def requirements_answer(session: Session, query: RequirementsQuery) -> dict:
    """The Parameters answer of the module docstring."""
    subscriber, day = query.subscriber, query.service_date
    plan = session.get(Plan, subscriber.plan_id)
    active = subscriber.active_on(day)
    coverage = [_text("subscriberId", subscriber.subscriber_id), _text("plan", plan.plan_id),
                _text("planName", plan.name), {"name": "serviceDate", "valueDate": day.isoformat()},
                {"name": "active", "valueBoolean": active}]
    if subscriber.coverage_rank != 1:
        coverage.append(_text("note", f"Keystone Mutual is secondary; primary coverage: {subscriber.other_coverage}."))
    payer = session.scalars(select(PayerProfile)).one()
    return {"resourceType": "Parameters", "parameter": [
        {"name": "coverage", "part": coverage},
        *({"name": "requirement", "part": _requirement(session, code, active, day, payer)} for code, _ in query.codes)]}


def _requirement(session: Session, code: str, active: bool, day: date, payer: PayerProfile) -> list[dict]:
    known = session.get(ProcedureCode, code)
    if known is None:
        return [_code(code, None), {"name": "known", "valueBoolean": False},
                _text("message", f"Keystone Mutual does not recognize {code} as a CPT/HCPCS code.")]
    policy = policy_for_code(session, code)
    covered = "covered" if active else "not-covered"
    parts = [_code(code, known), {"name": "known", "valueBoolean": True}, _crd("covered", covered),
             _crd("paNeeded", "auth-needed" if policy else "no-auth")]
    coverage_words = "" if active else f" Coverage is not active on {day.strftime(DATE_FORMAT)}."
    if policy is None:
        return [*parts, _text("message", f"Precertification is not required for {code} under Keystone Mutual "
                                         f"medical policy.{coverage_words}")]
    if policy.required_document_types:
        parts.append(_crd("docNeeded", "clinical"))
    if policy.fax_only:
        channel = f"Fax the Precertification Request Fax Form to {format_phone(payer.precert_fax)}"
    elif known.category == "dme":
        channel = "DME request (the portal's New DME Request; not Claim/$submit)"
    else:
        channel = "Claim/$submit (or the portal's precertification request form)"
    parts += [_text("policy", policy.policy_number), _text("policyTitle", policy.title),
              _text("submission", policy.submission_method), _text("requestChannel", channel),
              *(_text("documentType", kind) for kind in policy.required_document_types),
              _text("documentation", policy.required_documentation), _text("criteria", policy.criteria_text.strip())]
    dme = session.get(DmeRequirement, code)
    if dme is not None:
        parts.append(_text("dmeRequirement", f"Face-to-face within {dme.face_to_face_days} days; detailed written "
                                             f"order; {requirement_text(dme)}"))
    documents = ", ".join(policy.required_document_types) or "none"
    return [*parts, _text("message", f"Precertification is required for {code} (medical policy "
                                     f"{policy.policy_number}, {policy.submission_method.lower()}). Attach: "
                                     f"{documents}.{coverage_words}")]


def _code(code: str, known: ProcedureCode | None) -> dict:
    coding = {"code": code}
    if known is not None:
        coding = {"system": CPT_SYSTEM if known.system == "CPT" else HCPCS_SYSTEM, "code": code,
                  "display": known.description}
    return {"name": "code", "valueCoding": coding}


def _crd(name: str, code: str) -> dict:
    return {"name": name, "valueCoding": {"system": CRD_CODES_SYSTEM, "code": code}}


def _text(name: str, value: str) -> dict:
    return {"name": name, "valueString": value}
