"""What every evaluator shares: running a check's query over the episode, and result wording."""
from __future__ import annotations

from typing import Any

from admindesk.schema.check_base import AppQuery
from admindesk.verifiers.episode import EpisodeView
from admindesk.verifiers.records import CheckResult
from admindesk.verifiers.values import shown


def run_query(query: AppQuery, view: EpisodeView, *, initial: bool = False) -> Any:
    """The query's result over the final (or initial) snapshot."""
    return view.query(query.app, query.query, query.params, initial=initial)


def passed(explanation: str, **evidence: Any) -> CheckResult:
    """A passing result (score 1)."""
    return CheckResult(passed=True, score=1.0, explanation=explanation, evidence=evidence)


def failed(explanation: str, **evidence: Any) -> CheckResult:
    """A failing result (score 0)."""
    return CheckResult(passed=False, score=0.0, explanation=explanation, evidence=evidence)


def verdict(ok: bool, subject: str, wanted: str, actual: Any, **evidence: Any) -> CheckResult:
    """`subject: expected <wanted>, found <actual>` as a passing or failing result."""
    text = f"{subject}: expected {wanted}, found {shown(actual)}"
    evidence.setdefault("actual", actual)
    return passed(text, **evidence) if ok else failed(text, **evidence)
