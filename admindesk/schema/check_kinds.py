"""The closed, registered set of check kinds, and `Check`: their discriminated union.

A task file names a check by `kind`; an unknown kind, or a field a kind does not have,
is an error when the task is loaded. Adding a kind means a model in checks_state or
checks_text, a line here, and its evaluator in admindesk.verifiers.checks, so every kind
is listed in one place on each side.
"""
from __future__ import annotations

from typing import Annotated, Union

from pydantic import Field

from admindesk.schema.check_base import CheckBase
from admindesk.schema.checks_state import CrossAppCheck, FileCheck, QueryCheck, StateDiffCheck
from admindesk.schema.checks_text import AnswerCheck, AuditCheck, RubricCheck

Check = Annotated[Union[QueryCheck, CrossAppCheck, FileCheck, AuditCheck, StateDiffCheck, AnswerCheck,
                        RubricCheck], Field(discriminator="kind")]
CHECK_KINDS: dict[str, type[CheckBase]] = {
    cls.model_fields["kind"].default: cls
    for cls in (QueryCheck, CrossAppCheck, FileCheck, AuditCheck, StateDiffCheck, AnswerCheck, RubricCheck)}
