"""Expected values: a literal (`Approved`, `3`) or a reference into the task's case
(`{case: coverages.0.member_id}`), so a value the case already states is never retyped in
a check. How values are compared is the verifiers' (admindesk.verifiers.values).
"""
from __future__ import annotations

from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field


class CaseRef(BaseModel):
    """`{case: coverages.0.member_id}`: a dotted path into the task's case (list items by index)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case: str = Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")


Scalar = Union[str, int, float, bool, None]
ValueSpec = Union[CaseRef, Scalar]


class CaseReferenceError(ValueError):
    """A `{case: ...}` path that does not lead to a value of the task's case."""


def resolve_case_path(case: dict[str, Any] | None, path: str) -> Any:
    """The value at dotted `path` of the case (as JSON: dates are ISO text)."""
    if case is None:
        raise CaseReferenceError(f"{{case: {path}}} is used but the task has no case")
    value: Any = case
    walked: list[str] = []
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            where = ".".join(walked) or "the case"
            choices = (", ".join(value) if isinstance(value, dict)
                       else f"indexes 0..{len(value) - 1}" if isinstance(value, list) else "nothing")
            raise CaseReferenceError(f"case path {path}: {where} has no {part!r} (it has {choices})")
        walked.append(part)
    if value is None:
        raise CaseReferenceError(f"case path {path} is not set in this task's case")
    return value


def resolve(spec: Any, case: dict[str, Any] | None) -> Any:
    """A literal as is; a CaseRef (or a list of specs) resolved against the case."""
    if isinstance(spec, CaseRef):
        return resolve_case_path(case, spec.case)
    if isinstance(spec, list):
        return [resolve(item, case) for item in spec]
    return spec
