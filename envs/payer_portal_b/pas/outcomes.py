"""FHIR in and out: reading a JSON body as an R4 resource, answering resources and
OperationOutcomes.

Every problem is an `Issue` naming the element it concerns by a FHIRPath expression
(`Bundle.entry[1].resource.birthDate`), so a client can fix exactly that element.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from flask import Response, request
from pydantic import ValidationError

FHIR_JSON = "application/fhir+json"
# The portal's clock reads local time in Pennsylvania, where Keystone Mutual is.
LOCAL_ZONE = ZoneInfo("America/New_York")


@dataclass(frozen=True)
class Issue:
    """One OperationOutcome issue: where (FHIRPath; None for the request as a whole), what went
    wrong, its FHIR issue type."""

    expression: str | None
    diagnostics: str
    code: str = "invalid"


class FhirProblem(Exception):
    """Problems that end a request before anything is written: one OperationOutcome."""

    def __init__(self, issues: list[Issue], status: int = 400):
        super().__init__("; ".join(f"{issue.expression}: {issue.diagnostics}" for issue in issues))
        self.issues, self.status = issues, status


def operation_outcome(issues: list[Issue]) -> dict:
    return {"resourceType": "OperationOutcome", "issue": [
        {"severity": "error", "code": issue.code, "diagnostics": issue.diagnostics,
         **({"expression": [issue.expression]} if issue.expression else {})} for issue in issues]}


def fhir_response(resource: dict, status: int = 200) -> Response:
    return Response(json.dumps(resource, ensure_ascii=False), status=status, mimetype=FHIR_JSON)


def outcome_response(issues: list[Issue], status: int) -> Response:
    return fhir_response(operation_outcome(issues), status)


def read_body(resource_types: tuple[str, ...]) -> dict:
    """The request's JSON object, which must be one of `resource_types`."""
    body = request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise FhirProblem([Issue(None, "The body must be a FHIR resource in JSON (application/fhir+json).",
                                 "structure")])
    kind = body.get("resourceType")
    if kind not in resource_types:
        raise FhirProblem([Issue("resourceType", f"Expected a {' or '.join(resource_types)} resource, "
                                                 f"not {kind!r}.", "structure")])
    return body


def validate_resource(body: dict, model):
    """`body` as an R4 (R4B models) resource of `model`, or every structural problem as issues."""
    root = body["resourceType"]
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise FhirProblem([Issue(_expression(root, error["loc"]), error["msg"], "structure")
                           for error in exc.errors()]) from exc
    except (KeyError, TypeError, ValueError) as exc:
        # fhir.resources raises KeyError for a resourceType it does not know.
        raise FhirProblem([Issue(root, f"Not a valid FHIR R4 {root}: unknown or malformed content ({exc}).",
                                 "structure")]) from exc


def _expression(root: str, location: tuple) -> str:
    path = root
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def fhir_datetime(moment: datetime) -> str:
    """A stored (naive, local) time with Keystone's offset: FHIR wants one with a time."""
    return moment.replace(tzinfo=LOCAL_ZONE).isoformat()


def fhir_date(day: date | None) -> str | None:
    return day.isoformat() if day else None
