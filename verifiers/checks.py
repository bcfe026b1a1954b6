"""How each check kind and guard is decided: one evaluator per declared kind, and
`run_check`, which adds what every kind does alike: a missing snapshot is a failed check
that says which app was missing, not a crash."""
from __future__ import annotations

from collections.abc import Callable

from admindesk.schema import checks_state as state_kinds, checks_text as text_kinds, guards as guard_kinds
from admindesk.schema.check_base import CheckBase
from admindesk.verifiers import checks_state, checks_text, guards
from admindesk.verifiers.episode import EpisodeView, SnapshotMissing
from admindesk.verifiers.evaluation import failed
from admindesk.verifiers.records import CheckResult

EVALUATORS: dict[type[CheckBase], Callable[..., CheckResult]] = {
    state_kinds.QueryCheck: checks_state.evaluate_query,
    state_kinds.CrossAppCheck: checks_state.evaluate_cross_app,
    state_kinds.FileCheck: checks_state.evaluate_file,
    state_kinds.StateDiffCheck: checks_state.evaluate_state_diff,
    text_kinds.AuditCheck: checks_text.evaluate_audit,
    text_kinds.AnswerCheck: checks_text.evaluate_answer,
    text_kinds.RubricCheck: checks_text.evaluate_rubric,
    guard_kinds.RecipientGuard: guards.evaluate_recipient,
    guard_kinds.DuplicateGuard: guards.evaluate_duplicate,
    guard_kinds.NoSubmissionGuard: guards.evaluate_no_submission,
    guard_kinds.CollateralGuard: guards.evaluate_collateral,
    guard_kinds.PhiGuard: guards.evaluate_phi,
    guard_kinds.UnchangedGuard: guards.evaluate_unchanged,
}


def run_check(check: CheckBase, view: EpisodeView) -> CheckResult:
    """The check's (or guard's) result; a snapshot the record lacks fails it with the reason."""
    try:
        return EVALUATORS[type(check)](check, view)
    except SnapshotMissing as exc:
        return failed(f"{check.subject()}: {exc}", missing=str(exc))
