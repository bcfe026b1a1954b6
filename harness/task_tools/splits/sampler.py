"""Draw a fresh case of a public row's template: the seeded sampler behind held-out splits.

A public row is one point of its template's case space: its structure (which documents,
claims, faxes and coverages, and the trap they set) is the template's, the rest is drawn
anew: the patient and look-alikes (identity.py), the timeline (timeline.py), the measured
clinical facts (facts.py) and the id slot. A draw is kept only when the world accepts the
case (it builds) and the payers' rules answer it exactly as they answer the public case:
each order's review under each coverage (outcome and failed criterion), and the world
audit's findings per kind in the chart's and the payer's views. A draw that fails that
is redrawn; a row none of whose draws pass is an error naming it.
"""
from __future__ import annotations

import copy
import random
from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any

from admindesk.envs.split_rules import payer_windows, rules_fingerprint
from admindesk.envs.world import World
from admindesk.harness.task_tools.generation import CaseRow
from admindesk.harness.task_tools.splits import facts, identity, timeline

MAX_DRAWS = 40


class SamplingError(ValueError):
    """No draw of a row kept the payers' answers; the message names the row."""


def policy_windows(world: World, case: dict[str, Any]) -> set[int]:
    """Every window, in days, that the case's payers, the apps or the policies measure against today."""
    return {w for w in payer_windows(world, case) | set(timeline.POLICY_WINDOWS) if w > 0}


def _texts(node: Any, key: Any = None) -> list[str]:
    """Every free text of a case part (see timeline.TEXT_FIELDS)."""
    if isinstance(node, dict):
        return [t for k, v in node.items() for t in _texts(v, k)]
    if isinstance(node, list):
        return [t for item in node for t in _texts(item, key)]
    return [node] if isinstance(node, str) and key in timeline.TEXT_FIELDS else []


def _rewrite_text(node: Any, rewrite, key: Any = None, every_string: bool = False) -> Any:
    if isinstance(node, dict):
        return {k: _rewrite_text(v, rewrite, k, every_string) for k, v in node.items()}
    if isinstance(node, list):
        return [_rewrite_text(item, rewrite, key, every_string) for item in node]
    if isinstance(node, str) and (every_string or key in timeline.TEXT_FIELDS):
        return rewrite(node)
    return node


def _dobs(case: dict[str, Any]) -> set[date]:
    people = [case["patient"], *case.get("lookalikes", [])]
    return {date.fromisoformat(person["dob"]) for person in people if person.get("dob")}


def draw_once(row: CaseRow, now: datetime, rng: random.Random, windows: set[int],
              avoid_names: set[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """One candidate (case, vars) for `row`, not yet checked against the rules."""
    case = copy.deepcopy(row.case)
    today = now.date()
    old_dobs = _dobs(case)
    moving, fixed = timeline.case_dates(case, old_dobs)
    shift = timeline.choose_shift(moving, fixed, today, windows, rng)
    unmoved = old_dobs | set(fixed)  # dates the text may quote that stay (birthdays, plan periods)
    case = timeline.apply_shift(case, shift, unmoved)
    names = identity.new_identity(case, today, rng, avoid_names)

    def rewrite(text: str) -> str:
        return names.apply(timeline.shift_text(text, timedelta(days=shift), unmoved))

    case = _rewrite_text(case, names.apply)
    variables = _rewrite_text(row.vars, rewrite, every_string=True)
    texts = _texts(case) + [value for value in row.vars.values() if isinstance(value, str)]
    case = facts.redraw_facts(case, texts, rng)
    return case, variables


def draw_row(row: CaseRow, world: World, *, seed: int, task_id: str, slot: int, avoid_names: set[str]) -> CaseRow:
    """A new row of `row`'s template, with id `task_id` and a case drawn from `seed`."""
    now = datetime.fromisoformat(row.now)
    windows = policy_windows(world, row.case)
    expected = rules_fingerprint(world, row.id, row.case)
    rng = random.Random(f"admindesk split seed {seed} row {task_id}")
    failures: Counter = Counter()
    for _ in range(MAX_DRAWS):
        case, variables = draw_once(row, now, rng, windows, avoid_names)
        case = {"slot": slot, **case}
        try:
            if rules_fingerprint(world, task_id, case) == expected:
                # The public row's note explains its own case; the file names the row instead.
                return row.model_copy(update={"id": task_id, "case": case, "vars": variables, "note": None})
            failures["the payers' rules answer it differently"] += 1
        except ValueError as exc:  # CaseError, or a case the model refuses
            failures[f"it does not build ({exc})"] += 1
    reasons = "; ".join(f"{n} draws: {reason}" for reason, n in failures.most_common(3))
    raise SamplingError(f"row {row.id}: no draw out of {MAX_DRAWS} kept the public case's answers ({reasons})")
