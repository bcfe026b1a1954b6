"""`POST /fhir/Coverage/<id>/$verify`: record the result of an eligibility check on one
coverage, as the Coverage tab's Verify coverage action records it (coverage_changes:
VerifyCoverageForm, no coverage out of force verified active today, the history row, the
audit action `verify_coverage`).

The body is a Parameters resource: `result` (valueCode or valueString: one of the form's
results, VERIFICATION_RESULTS), and optionally `reference` (the payer's eligibility
reference number) and `note` (valueString each).
"""
from __future__ import annotations

from fhir.resources.R4B.parameters import Parameters
from werkzeug.datastructures import MultiDict

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web.coverage_changes import verification_form, verify_coverage
from admindesk.envs.ehr_web.fhir.outcomes import fhir_error
from admindesk.envs.ehr_web.fhir.writes import NO_CSRF, form_refusal, parse_body, refuse_if_chart_locked
from admindesk.envs.ehr_web.models import Coverage, Patient
from admindesk.envs.ehr_web.vocab import VERIFICATION_RESULTS

# Parameter name -> the value types it takes.
PARAMETERS = {"result": ("valueCode", "valueString"), "reference": ("valueString",), "note": ("valueString",)}
FIELD_PATHS = {"coverage_id": "Coverage.id",
               **{name: f"Parameters.parameter.where(name='{name}')" for name in PARAMETERS}}
HINTS = {"result": f" Results: {', '.join(VERIFICATION_RESULTS)}."}


def _requested_fields(parameters: Parameters) -> dict[str, str]:
    fields: dict[str, str] = {}
    for index, parameter in enumerate(parameters.parameter or []):
        path = f"Parameters.parameter[{index}]"
        if parameter.name not in PARAMETERS:
            raise fhir_error(422, "not-supported", f"{path}: unknown parameter '{parameter.name}'; $verify takes "
                                                   f"{', '.join(PARAMETERS)}.", path)
        if parameter.name in fields:
            raise fhir_error(422, "invalid", f"{path}: give '{parameter.name}' once.", path)
        kinds = PARAMETERS[parameter.name]
        values = [getattr(parameter, kind) for kind in kinds if getattr(parameter, kind) is not None]
        if not values:
            raise fhir_error(422, "invalid", f"{path}: '{parameter.name}' takes {' or '.join(kinds)}.", path)
        fields[parameter.name] = values[0]
    return fields


def verify(coverage: Coverage, body: object) -> Coverage:
    """Record the eligibility result the Parameters give on the coverage."""
    parameters = parse_body(Parameters, body, "Parameters")
    refuse_if_chart_locked(coverage.mrn)
    patient = db().get(Patient, coverage.mrn)
    fields = MultiDict({**_requested_fields(parameters), "coverage_id": coverage.id})
    form = verification_form(patient, formdata=fields, meta=NO_CSRF)
    if verify_coverage(patient, form) is None:
        raise form_refusal(form, FIELD_PATHS, HINTS)
    return coverage
