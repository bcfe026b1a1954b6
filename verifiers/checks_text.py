"""Deciding the check kinds over what the user did and wrote (declared in
admindesk.schema.checks_text): the audit trail, the final answer, and rubric checks that a
judge reads (letters, notes, comments, the answer).

A rubric judges only what the episode wrote: of the parts its `source` selects (the
elements of a list result, or the one value), those the same query over the initial
snapshot also gives (equal, counted with multiplicity) were there before the work began
and are dropped. Nothing left is a failure that says no text was written in the episode.
The judge also gets the case's facts the rubric is judged against (judge/facts.py).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from admindesk.schema.checks_text import AnswerCheck, AuditCheck, RubricCheck
from admindesk.verifiers.episode import EpisodeView, SnapshotMissing
from admindesk.verifiers.evaluation import failed, passed, run_query, verdict
from admindesk.verifiers.judge import JudgeError, RubricRequest
from admindesk.verifiers.judge.facts import rubric_facts
from admindesk.verifiers.records import CheckResult
from admindesk.verifiers.values import normalise_text, shown, text_contains, values_equal


def evaluate_audit(check: AuditCheck, view: EpisodeView) -> CheckResult:
    want = {name: view.resolve(spec) for name, spec in check.match.items()}
    events = view.new_rows(check.app, "audit_events")
    hits = [event for event in events
            if all(values_equal(event.get(name), value) for name, value in want.items())]
    described = ", ".join(f"{name} {shown(value)}" for name, value in want.items())
    subject = check.description or f"{check.app} audit trail"
    text = (f"{subject}: expected at least {check.min_count} event(s) with {described}, "
            f"found {len(hits)} among {len(events)} new event(s)")
    evidence = {"match": want, "hits": [event.get("path") for event in hits[:10]],
                "new_events": len(events)}
    return passed(text, **evidence) if len(hits) >= check.min_count else failed(text, **evidence)


def evaluate_answer(check: AnswerCheck, view: EpisodeView) -> CheckResult:
    answer = view.record.answer
    expected = view.resolve(check.expected)
    subject = check.description or "the final answer"
    if answer is None or not answer.strip():
        return failed(f"{subject}: expected an answer ({check.op} {shown(expected)}), found none",
                      expected=expected, actual=answer)
    said = normalise_text(answer)
    if check.op == "equals":
        ok = said == normalise_text(expected)
    elif check.op == "contains":
        ok = text_contains(answer, expected)
    elif check.op == "one_of":
        ok = any(said == normalise_text(option) for option in expected)
    else:
        ok = re.search(expected, " ".join(answer.split()), re.IGNORECASE) is not None
    wanted = {"equals": shown(expected), "contains": f"an answer holding {shown(expected)}",
              "one_of": f"one of {shown(expected)}", "regex": f"an answer matching /{expected}/"}
    return verdict(ok, subject, wanted[check.op], answer, expected=expected, normalised=said)


def _parts(selected: Any) -> list[Any]:
    """A query's result as parts to judge: a list's elements, or the one value; blanks left out."""
    parts = selected if isinstance(selected, list) else [selected]
    return [part for part in parts if part is not None and str(part).strip()]


def _identity(part: Any) -> str:
    return part.strip() if isinstance(part, str) else json.dumps(part, sort_keys=True, default=str)


def written_parts(check: RubricCheck, view: EpisodeView) -> tuple[list[Any], int]:
    """The parts of the source's selection the episode added or changed, and how many it left out
    (equal to parts the same query selects in the initial snapshot)."""
    final = _parts(run_query(check.source, view))
    try:
        before = Counter(_identity(part) for part in _parts(run_query(check.source, view, initial=True)))
    except SnapshotMissing:
        before = Counter()
    written = []
    for part in final:
        identity = _identity(part)
        if before[identity]:
            before[identity] -= 1
        else:
            written.append(part)
    return written, len(final) - len(written)


def rubric_text(check: RubricCheck, view: EpisodeView) -> tuple[str, int]:
    """The text a rubric check hands its judge (the answer, or what the episode wrote of its
    source) and how many selected parts were left out as there before the episode."""
    if check.from_answer:
        return (view.record.answer or "").strip(), 0
    written, seeded = written_parts(check, view)
    return "\n\n".join(str(part).strip() for part in written), seeded


def evaluate_rubric(check: RubricCheck, view: EpisodeView) -> CheckResult:
    text, seeded = rubric_text(check, view)
    where = "the final answer" if check.from_answer else check.source.label()
    subject = check.description or f"rubric on {where}"
    if not text:
        before = f" ({seeded} part(s) it selects were there before the episode)" if seeded else ""
        return failed(f"{subject}: no text was written in the episode in {where}{before}",
                      source=where, seeded_parts=seeded)
    if view.judge is None:
        return CheckResult(passed=False, score=0.0, judged=False,
                           explanation=f"{subject}: not judged (no judge configured); "
                                       f"{len(text)} characters of text await the rubric",
                           evidence={"source": where, "text": text[:2000], "rubric": check.rubric})
    request = RubricRequest(task_id=view.record.task_id, check_id=check.id or "", rubric=check.rubric,
                            text=text, facts=rubric_facts(view.case, check.rubric))
    evidence = {"source": where, "text": text[:2000], "rubric": check.rubric}
    try:
        judgement = view.judge.judge(request)
    except JudgeError as exc:
        # No verdict is no evidence either way: `error`, never a pass.
        return CheckResult(passed=False, score=0.0, error=str(exc),
                           explanation=f"{subject}: the judge gave no verdict ({exc})",
                           evidence={**evidence, "judge": view.judge.name})
    outcome = "meets" if judgement.passed else "does not meet"
    return CheckResult(passed=judgement.passed, score=judgement.score,
                       explanation=f"{subject}: the text {outcome} the rubric "
                                   f"(judge {judgement.judge or view.judge.name}: {judgement.rationale})",
                       evidence={**evidence, "judge": judgement.judge or view.judge.name,
                                 "votes": [vote.model_dump() for vote in judgement.votes]})
