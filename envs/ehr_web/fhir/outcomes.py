"""What the FHIR API answers: resources as `application/fhir+json`, and every refusal as an
OperationOutcome whose diagnostics say what was wrong and how to put it right."""
from __future__ import annotations

from dataclasses import dataclass

from fhir.resources.R4B.operationoutcome import OperationOutcome
from fhir.resources.R4B.resource import Resource
from flask import Response
from pydantic import ValidationError

FHIR_JSON = "application/fhir+json"


@dataclass(frozen=True)
class Issue:
    """One problem of a request: its FHIR issue code, the text, and the element it concerns."""

    code: str
    diagnostics: str
    expression: str | None = None


class FhirError(Exception):
    """A request the API refuses: the HTTP status and the issues its OperationOutcome lists."""

    def __init__(self, status: int, *issues: Issue):
        super().__init__("; ".join(issue.diagnostics for issue in issues))
        self.status, self.issues = status, issues


def fhir_error(status: int, code: str, diagnostics: str, expression: str | None = None) -> FhirError:
    """A refusal with a single issue."""
    return FhirError(status, Issue(code, diagnostics, expression))


def invalid_resource(error: ValidationError, resource_type: str) -> FhirError:
    """A body the R4 model refuses: one issue per element, named by its FHIRPath."""
    issues = []
    for problem in error.errors():
        path = resource_type + "".join(f"[{part}]" if isinstance(part, int) else f".{part}"
                                       for part in problem["loc"] if part != "__root__")
        issues.append(Issue("structure", f"{path}: {problem['msg']}", path))
    return FhirError(400, *issues)


def resource_response(resource: Resource, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A resource as the body of an answer."""
    body = resource.model_dump_json(exclude_none=True)
    return Response(body, status=status, mimetype=FHIR_JSON, headers=headers)


def outcome_response(status: int, issues: tuple[Issue, ...]) -> Response:
    """The OperationOutcome of a refusal."""
    outcome = OperationOutcome(issue=[
        {"severity": "error", "code": issue.code, "diagnostics": issue.diagnostics,
         **({"expression": [issue.expression]} if issue.expression else {})} for issue in issues])
    return resource_response(outcome, status)


def refusal(diagnostics: str) -> Response:
    """The answer to a request without a valid bearer token (api_access sets the 401)."""
    return outcome_response(401, (Issue("login", diagnostics),))
