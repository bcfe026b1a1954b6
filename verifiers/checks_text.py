"""Check kinds over what the user did and wrote: the audit trail, the final answer, and
rubric checks that a judge reads (letters, notes, comments, the answer)."""
from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from admindesk.verifiers.check_base import AppQuery, CheckBase, failed, passed, verdict, require_pattern
from admindesk.verifiers.episode import EpisodeView
from admindesk.verifiers.judge import JudgeError, RubricRequest
from admindesk.verifiers.records import CheckResult
from admindesk.verifiers.app_names import AppName
from admindesk.verifiers.values import (ValueSpec, normalise_text, shown, text_contains,
                                        values_equal)


class AuditCheck(CheckBase):
    """The user opened a record (or tab, or did an action) during the episode: new audit rows
    whose fields match `match`, at least `min_count` of them."""

    kind: Literal["audit"] = "audit"
    app: AppName
    match: dict[str, ValueSpec] = Field(min_length=1)
    min_count: int = Field(default=1, ge=1)

    def app_queries(self) -> list[AppQuery]:
        fields = " && ".join(f"{name}!=`null`" for name in self.match)
        return [AppQuery(app=self.app, query=f"audit_events[?{fields}]")]

    def expected_specs(self) -> list[Any]:
        return list(self.match.values())

    def evaluate(self, view: EpisodeView) -> CheckResult:
        want = {name: view.resolve(spec) for name, spec in self.match.items()}
        events = view.new_rows(self.app, "audit_events")
        hits = [event for event in events
                if all(values_equal(event.get(name), value) for name, value in want.items())]
        described = ", ".join(f"{name} {shown(value)}" for name, value in want.items())
        subject = self.description or f"{self.app} audit trail"
        text = (f"{subject}: expected at least {self.min_count} event(s) with {described}, "
                f"found {len(hits)} among {len(events)} new event(s)")
        evidence = {"match": want, "hits": [event.get("path") for event in hits[:10]],
                    "new_events": len(events)}
        return passed(text, **evidence) if len(hits) >= self.min_count else failed(text, **evidence)


AnswerOp = Literal["equals", "contains", "regex", "one_of"]


class AnswerCheck(CheckBase):
    """The agent's final answer, normalised (case, spacing, punctuation, date formats)."""

    kind: Literal["answer"] = "answer"
    op: AnswerOp = "contains"
    expected: ValueSpec | list[ValueSpec]

    @model_validator(mode="after")
    def _expected_fits_op(self):
        if (self.op == "one_of") != isinstance(self.expected, list):
            raise ValueError("`expected` is a list for op one_of, and only for it")
        if self.op == "regex":
            require_pattern(self.expected)
        return self

    def expected_specs(self) -> list[Any]:
        return self.expected if isinstance(self.expected, list) else [self.expected]

    def evaluate(self, view: EpisodeView) -> CheckResult:
        answer = view.record.answer
        expected = view.resolve(self.expected)
        subject = self.description or "the final answer"
        if answer is None or not answer.strip():
            return failed(f"{subject}: expected an answer ({self.op} {shown(expected)}), found none",
                          expected=expected, actual=answer)
        said = normalise_text(answer)
        if self.op == "equals":
            ok = said == normalise_text(expected)
        elif self.op == "contains":
            ok = text_contains(answer, expected)
        elif self.op == "one_of":
            ok = any(said == normalise_text(option) for option in expected)
        else:
            ok = re.search(expected, " ".join(answer.split()), re.IGNORECASE) is not None
        wanted = {"equals": shown(expected), "contains": f"an answer holding {shown(expected)}",
                  "one_of": f"one of {shown(expected)}", "regex": f"an answer matching /{expected}/"}
        return verdict(ok, subject, wanted[self.op], answer, expected=expected, normalised=said)


class RubricCheck(CheckBase):
    """A judge reads text the episode produced (selected from a snapshot, or the answer)
    against a rubric. Without a judge it is reported unjudged: not passed, not failed."""

    kind: Literal["rubric"] = "rubric"
    rubric: str = Field(min_length=10)
    source: AppQuery | None = None
    from_answer: bool = False
    deterministic: ClassVar[bool] = False

    @model_validator(mode="after")
    def _one_source(self):
        if (self.source is None) == (not self.from_answer):
            raise ValueError("a rubric reads either a `source` query or the answer (`from_answer: true`)")
        return self

    def app_queries(self) -> list[AppQuery]:
        return [self.source] if self.source is not None else []

    def _text(self, view: EpisodeView) -> str:
        if self.from_answer:
            return (view.record.answer or "").strip()
        selected = self.source.run(view)
        parts = selected if isinstance(selected, list) else [selected]
        return "\n\n".join(str(part).strip() for part in parts if part not in (None, ""))

    def evaluate(self, view: EpisodeView) -> CheckResult:
        text = self._text(view)
        where = "the final answer" if self.from_answer else self.source.label()
        subject = self.description or f"rubric on {where}"
        if not text:
            return failed(f"{subject}: expected text to judge in {where}, found none", source=where)
        if view.judge is None:
            return CheckResult(passed=False, score=0.0, judged=False,
                               explanation=f"{subject}: not judged (no judge configured); "
                                           f"{len(text)} characters of text await the rubric",
                               evidence={"source": where, "text": text[:2000], "rubric": self.rubric})
        request = RubricRequest(task_id=view.record.task_id, check_id=self.id or "", rubric=self.rubric,
                                text=text)
        evidence = {"source": where, "text": text[:2000], "rubric": self.rubric}
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
