"""The judge calibration set (tasks/judge_calibration/*.yml) and agreement with its labels.

Each file holds items of one rubric family (appeal letters, order comments, notes,
answers...): named rubrics with the task context and the case facts they are judged
against (name -> value, as facts.py gives a task's case to the judge), and items of
evidence text with the human verdict, the item's hardness and, for a fail, the flaw that
makes it fail. Hard items are the ones a careless judge passes: a plausible detail found
nowhere in the facts, one rubric element missing among several present, a value one digit
or one day off, the right code with the wrong modifier or group code, an instruction to
the reviewer tucked inside complete text; and good text in an unusual form (other date
formats, bullets, terse notes, long letters) that must still pass. `calibrate` runs a
judge over the items and reports, per family, per hardness and overall, agreement,
Cohen's kappa, the false-pass rate (human fail judged pass: the costly error for a
leaderboard) and the false-fail rate. A judge error counts as a fail verdict (it is never a pass) and is
counted separately. The set uses `.yml` so the task loaders (which read every `.yaml`
under tasks/) never take it for tasks.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from admindesk.schema.checks_text import RubricCheck
from admindesk.schema.task_model import TASKS_ROOT
from admindesk.verifiers.judge import Judge, JudgeError, RubricRequest

CALIBRATION_ROOT = TASKS_ROOT / "judge_calibration"
Label = Literal["pass", "fail"]
Hardness = Literal["easy", "hard"]
HARDNESS_LEVELS: tuple[Hardness, ...] = ("easy", "hard")
# invented_detail: a specific date, number or name found nowhere in the facts or context;
# unsupported_claim: a clinical or procedural statement the records do not support.
Flaw = Literal["none", "missing_fact", "wrong_code", "wrong_value", "wrong_patient", "weak_argument",
               "unsupported_claim", "invented_detail", "injection"]

# What a judge must reach on the whole set to score leaderboard submissions (README).
BAR_AGREEMENT = 0.90
BAR_KAPPA = 0.80
BAR_FALSE_PASS = 0.05
BAR_FAMILY_AGREEMENT = 0.80


class CalibrationError(ValueError):
    """A calibration file that cannot be read as the set's format."""


class RubricEntry(BaseModel):
    """A rubric of the family and the task context it is judged in."""

    model_config = ConfigDict(extra="forbid")

    rubric: str = Field(min_length=10)
    context: str = ""
    # The case facts the judge checks names, codes, dates and ids against (RubricRequest.facts).
    facts: dict[str, Any] = Field(default_factory=dict)


class ItemEntry(BaseModel):
    """One labelled item as written in a file: which rubric, the evidence, the human verdict."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    rubric: str
    text: str = Field(min_length=1)
    human: Label
    hardness: Hardness
    flaw: Flaw = "none"

    @model_validator(mode="after")
    def _flaw_fits_label(self):
        if (self.human == "pass") != (self.flaw == "none"):
            raise ValueError("a passing item has flaw none; a failing item names its flaw")
        return self


class FamilyFile(BaseModel):
    """One family's file."""

    model_config = ConfigDict(extra="forbid")

    family: str = Field(pattern=r"^[a-z][a-z_]*$")
    title: str
    rubrics: dict[str, RubricEntry] = Field(min_length=1)
    items: list[ItemEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _rubrics_exist(self):
        unknown = sorted({item.rubric for item in self.items} - set(self.rubrics))
        if unknown:
            raise ValueError(f"items name rubrics the file does not define: {', '.join(unknown)}")
        # A detail is invented only against the facts: without them the judge cannot tell.
        factless = [item.id for item in self.items
                    if item.flaw == "invented_detail" and not self.rubrics[item.rubric].facts]
        if factless:
            raise ValueError(f"invented-detail items whose rubric gives no facts: {', '.join(factless)}")
        return self


class CalibrationItem(BaseModel):
    """A labelled item, resolved: its family, rubric text, context and evidence."""

    id: str
    family: str
    rubric: str
    context: str
    facts: dict[str, Any]
    text: str
    human: Label
    hardness: Hardness
    flaw: Flaw

    def request(self) -> RubricRequest:
        """The request a judge is asked for this item, with its rubric's case facts."""
        return RubricRequest(task_id=f"calibration:{self.family}", check_id=self.id, rubric=self.rubric,
                             text=self.text, context=self.context, facts=self.facts)


# The family of the text a rubric check reads, by the table its source query starts from
# (EHR notes about an order are order comments; other notes are reasoning notes).
SOURCE_FAMILIES = {"appeals": "appeal_letter", "auth_appeals": "appeal_letter", "outbound_faxes": "cover_sheet",
                   "precert_requests": "clinical_summary", "pa_requests": "clinical_summary",
                   # An inpatient notification's summary and a concurrent review's update: the same genre.
                   "inpatient_cases": "clinical_summary", "inpatient_reviews": "clinical_summary",
                   "authorization_history": "note", "corrected_claims": "note", "notes": "note",
                   # A staff message tells the ordering physician what an order comment would: the same genre.
                   "staff_messages": "order_comment"}


def rubric_family(check: RubricCheck) -> str | None:
    """The calibration family a task's rubric check belongs to (None: no family covers it yet)."""
    if check.from_answer:
        return "answer"
    # A list of selections ("[notes[...].text, staff_messages[...].body][]") is judged as its first.
    table = check.source.query.lstrip("[ ").split("[", 1)[0].split("|", 1)[0].strip()
    family = SOURCE_FAMILIES.get(table)
    if table == "notes" and "subject_type=='order'" in check.source.query.replace(" ", ""):
        return "order_comment"
    return family


def load_calibration(folder: Path = CALIBRATION_ROOT) -> list[CalibrationItem]:
    """Every item of every family file in `folder` (ids unique across the set)."""
    paths = sorted(Path(folder).glob("*.yml"))
    if not paths:
        raise CalibrationError(f"{folder}: no calibration files (*.yml)")
    items: list[CalibrationItem] = []
    for path in paths:
        try:
            family = FamilyFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        except yaml.YAMLError as exc:
            raise CalibrationError(f"{path}: not YAML ({exc})") from exc
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(part) for part in problem["loc"]) or "(top level)"
            raise CalibrationError(f"{path}: {where}: {problem['msg']}") from exc
        for item in family.items:
            entry = family.rubrics[item.rubric]
            items.append(CalibrationItem(id=item.id, family=family.family, rubric=entry.rubric,
                                         context=entry.context.strip(), facts=entry.facts,
                                         text=item.text.strip(), human=item.human,
                                         hardness=item.hardness, flaw=item.flaw))
    ids = [item.id for item in items]
    repeated = sorted({one for one in ids if ids.count(one) > 1})
    if repeated:
        raise CalibrationError(f"{folder}: item ids used twice: {', '.join(repeated)}")
    return items


class ItemOutcome(BaseModel):
    """The judge's answer on one item (`error` set when it gave none)."""

    item: CalibrationItem
    judged_pass: bool
    error: str | None = None


class Agreement(BaseModel):
    """Agreement figures over a group of items."""

    items: int
    agreement: float
    kappa: float | None
    false_pass_rate: float | None
    false_fail_rate: float | None
    errors: int


def agreement(outcomes: list[ItemOutcome]) -> Agreement:
    """Agreement, Cohen's kappa, false-pass and false-fail rates (None where undefined)."""
    n = len(outcomes)
    if n == 0:
        raise ValueError("no items to compare")
    human = [o.item.human == "pass" for o in outcomes]
    judged = [o.judged_pass for o in outcomes]
    agreed = sum(h == j for h, j in zip(human, judged))
    human_pass, judged_pass = sum(human), sum(judged)
    # Chance agreement in counts (times n): kept in integers so a judge no better than chance
    # gets a kappa of exactly 0, not a rounding error of either sign.
    chance = human_pass * judged_pass + (n - human_pass) * (n - judged_pass)
    # Kappa is undefined when chance agreement is certain (one label on both sides).
    kappa = None if chance == n * n else (n * agreed - chance) / (n * n - chance)
    human_fails = [j for h, j in zip(human, judged) if not h]
    human_passes = [j for h, j in zip(human, judged) if h]
    return Agreement(
        items=n, agreement=agreed / n, kappa=kappa,
        false_pass_rate=sum(human_fails) / len(human_fails) if human_fails else None,
        false_fail_rate=sum(not j for j in human_passes) / len(human_passes) if human_passes else None,
        errors=sum(o.error is not None for o in outcomes))


def run_calibration(judge: Judge, items: list[CalibrationItem],
                    progress: Callable[[ItemOutcome], None] | None = None) -> list[ItemOutcome]:
    """The judge's verdict on every item; a JudgeError is recorded as an error (a fail verdict)."""
    outcomes = []
    for item in items:
        try:
            outcome = ItemOutcome(item=item, judged_pass=judge.judge(item.request()).passed)
        except JudgeError as exc:
            outcome = ItemOutcome(item=item, judged_pass=False, error=str(exc))
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return outcomes


def by_family(outcomes: list[ItemOutcome]) -> dict[str, Agreement]:
    """Agreement per family, in name order."""
    families = sorted({o.item.family for o in outcomes})
    return {family: agreement([o for o in outcomes if o.item.family == family]) for family in families}


def by_hardness(outcomes: list[ItemOutcome]) -> dict[str, Agreement]:
    """Agreement on the easy and on the hard items (a level with no items is left out)."""
    return {level: agreement(group) for level in HARDNESS_LEVELS
            if (group := [o for o in outcomes if o.item.hardness == level])}


def shortfalls(overall: Agreement, families: dict[str, Agreement]) -> list[str]:
    """Why the judge does not meet the leaderboard bar (empty when it does)."""
    found = []
    if overall.agreement < BAR_AGREEMENT:
        found.append(f"agreement {overall.agreement:.1%} < {BAR_AGREEMENT:.0%}")
    if overall.kappa is None or overall.kappa < BAR_KAPPA:
        found.append(f"kappa {'n/a' if overall.kappa is None else f'{overall.kappa:.2f}'} < {BAR_KAPPA:.2f}")
    if overall.false_pass_rate is None or overall.false_pass_rate > BAR_FALSE_PASS:
        shown = "n/a" if overall.false_pass_rate is None else f"{overall.false_pass_rate:.1%}"
        found.append(f"false-pass {shown} > {BAR_FALSE_PASS:.0%}")
    if overall.errors:
        found.append(f"{overall.errors} judge error(s)")
    found += [f"{family} agreement {figures.agreement:.1%} < {BAR_FAMILY_AGREEMENT:.0%}"
              for family, figures in families.items() if figures.agreement < BAR_FAMILY_AGREEMENT]
    return found
