"""New values for a drawn case's measured clinical facts, on the same side of every rule.

A fact the payers' policies measure (weeks of therapy, AHI, SpO2, scores) gets a new value
near the old one. Each fact kind is remapped as a whole by one increasing map, so two
documents that agree still agree and a contradiction keeps its direction; the new value
sits on the same side of every threshold the policies state for that fact (or exactly on
it when the old one was), and facts of one unit keep their order (physical therapy stays
a part of the conservative therapy; SpO2 with exertion stays at or below SpO2 at rest).
The payers' rules are re-run on the whole case afterwards (sampler.py), so a threshold
missing here could only make a draw fail, not pass wrongly.

A fact whose value is written in the case's free text or the task's vars is left alone:
rewriting numbers inside prose is how contradictions get introduced.
"""
from __future__ import annotations

import random
import re
from typing import Any

from admindesk.harness.task_tools.splits.timeline import sign

# The thresholds the payers' medical policies state for each fact (payer_portal_a/policy/
# medical_policy.yaml, payer_portal_b/data/policies.yaml and dme_requirements.yaml,
# envs/world/review_rules.py). Facts not listed keep their values.
THRESHOLDS: dict[str, tuple[float, ...]] = {
    "conservative_therapy_weeks": (4, 6, 12),
    "physical_therapy_weeks": (4, 6, 12),
    "physical_therapy_sessions": (6, 12),
    "prior_therapy_weeks": (12,),
    "symptom_duration_months": (3, 6),
    "ahi": (5, 15, 30),
    "epworth_score": (10,),
    "spo2_rest": (88, 89),
    "spo2_exertion": (88, 89),
    "lowest_spo2": (88, 89),
    "insulin_injections_per_day": (1, 3),
    "hba1c": (7.0, 9.0),
}
BOUNDS: dict[str, tuple[float, float]] = {"spo2_rest": (50, 100), "spo2_exertion": (50, 100), "lowest_spo2": (50, 100),
                                          "epworth_score": (0, 24), "hba1c": (3, 20)}
DECIMAL_FACTS = frozenset({"ahi", "hba1c"})
# Facts of one unit whose values keep their order across the whole case.
UNIT_FAMILIES = ({"conservative_therapy_weeks", "physical_therapy_weeks", "prior_therapy_weeks"},
                 {"lowest_spo2", "spo2_exertion", "spo2_rest"})
# A fact that another one determines is not redrawn on its own.
DERIVED_WITH = {"prior_therapy_weeks": "prior_therapy_start"}
SPREAD = 0.3
MAX_TRIES = 60


def _text_forms(value: float) -> list[str]:
    return [f"{value:g}", f"{value:.1f}"] if isinstance(value, float) else [str(value)]


def _quoted(value: float, texts: list[str]) -> bool:
    pattern = re.compile("|".join(rf"(?<![\d.]){re.escape(form)}(?![\d.])" for form in _text_forms(value)))
    return any(pattern.search(text) for text in texts)


def _candidate(key: str, value: float, rng: random.Random) -> float:
    spread = max(1.0, abs(value) * SPREAD)
    low, high = BOUNDS.get(key, (0, float("inf")))
    if key in DECIMAL_FACTS:
        return round(min(high, max(low, value + rng.uniform(-spread, spread))), 1)
    return int(min(high, max(low, value + rng.randint(-round(spread), round(spread)))))


def _keeps_thresholds(key: str, old: float, new: float) -> bool:
    return all(sign(old - t) == sign(new - t) for t in THRESHOLDS[key])


def _draw_map(key: str, values: list[float], rng: random.Random) -> dict[float, float] | None:
    """An increasing map of the fact's values keeping every threshold's side, or None."""
    for _ in range(MAX_TRIES):
        mapped = {value: _candidate(key, value, rng) for value in values}
        ordered = [mapped[value] for value in sorted(values)]
        if all(a < b for a, b in zip(ordered, ordered[1:])) and \
                all(_keeps_thresholds(key, old, new) for old, new in mapped.items()):
            return mapped
    return None


def _family_order(case: dict[str, Any]) -> list[int]:
    """The order of every pair of same-unit facts in the case (a fingerprint)."""
    signs = []
    for family in UNIT_FAMILIES:
        values = [facts[key] for doc in case.get("documents", []) for facts in [doc.get("facts", {})]
                  for key in sorted(family) if key in facts]
        signs += [sign(a - b) for i, a in enumerate(values) for b in values[i + 1:]]
    return signs


def redraw_facts(case: dict[str, Any], texts: list[str], rng: random.Random) -> dict[str, Any]:
    """A copy of `case` with new values for its measured facts (see the module docstring);
    `texts` is every free text of the case and the task's vars."""
    documents = case.get("documents", [])
    values: dict[str, set[float]] = {}
    for doc in documents:
        for key, value in doc.get("facts", {}).items():
            if key in THRESHOLDS and not (key in DERIVED_WITH and DERIVED_WITH[key] in doc.get("facts", {})):
                values.setdefault(key, set()).add(value)
    for _ in range(MAX_TRIES):
        maps = {}
        for key in sorted(values):
            if any(_quoted(value, texts) for value in values[key]):
                continue
            drawn = _draw_map(key, sorted(values[key]), rng)
            if drawn is not None:
                maps[key] = drawn
        redrawn = {**case, "documents": [
            {**doc, "facts": {key: maps[key][value] if key in maps and value in maps[key] else value
                              for key, value in doc.get("facts", {}).items()}} if "facts" in doc else doc
            for doc in documents]}
        if _family_order(redrawn) == _family_order(case):
            return redrawn
    return case
