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

from admindesk.envs.ehr_web import seed_inbasket, seed_queues
from admindesk.envs.payer_portal_a.payer_rules import rule_book
from admindesk.envs.payer_portal_a.seed import RECENT_LETTER_DAYS
from admindesk.envs.payer_portal_b import appeal_rules as keystone_appeals
from admindesk.envs.payer_portal_b import claim_rules as keystone_claims
from admindesk.envs.world.audit import audit_world
from admindesk.envs.world.cases.builder import build_case
from admindesk.envs.world.review_rules import review
from admindesk.envs.world.world import World
from admindesk.harness.task_generation import CaseRow
from admindesk.verifiers.case_model import Case

from . import facts, identity, timeline

MAX_DRAWS = 40


class SamplingError(ValueError):
    """No draw of a row kept the payers' answers; the message names the row."""


def policy_windows(world: World, case: dict[str, Any]) -> set[int]:
    """Every window, in days, that the case's payers or the policies measure against today."""
    book = rule_book()
    payers = {coverage["payer"] for coverage in case["coverages"]}
    windows = {payer.timely_appeal_days for payer in world.payers if payer.id in payers}
    for payer_id in payers & set(book.payers):
        rules = book.payers[payer_id]
        windows |= {rules.appeal_review_days, rules.claim_filing_days, rules.corrected_claim_days,
                    rules.retro_auth_days, rules.peer_to_peer_days}
    if any(payer.portal == "b" for payer in world.payers if payer.id in payers):
        windows |= {keystone_claims.CLAIM_FILING_DAYS, keystone_claims.CORRECTED_CLAIM_DAYS,
                    keystone_appeals.PRE_SERVICE_FILING_DAYS, *keystone_appeals.DECISION_DAYS.values(),
                    *keystone_appeals.NEXT_LEVEL_DAYS.values()}
    # The apps seed a case's queue items and letters by their age on the day, as the world's.
    windows |= {RECENT_LETTER_DAYS, seed_inbasket.WORKED_AFTER_DAYS, seed_inbasket.KEPT_DAYS,
                seed_inbasket.DUE_SOON_DAYS, seed_queues.RESOLVED_AFTER_DAYS, seed_queues.FOLLOW_UP_DAYS}
    common = book.common
    windows |= {common.standard_days, common.external_review_days, common.standard_preservice_appeal_days,
                -(-common.expedited_hours // 24)}
    return {w for w in windows | set(timeline.POLICY_WINDOWS) if w > 0}


def rules_fingerprint(world: World, task_id: str, case: dict[str, Any]) -> tuple:
    """How the payers' rules and the world audit answer a case (CaseError if it does not build)."""
    records = build_case(world, task_id, Case.model_validate(case))
    answers: list[Any] = []
    for name in ("chart", "payer"):
        view = records.view(name)
        facts_by_order: dict[str, dict[str, str]] = {}
        for document in view.documents:
            if document.order_id:
                facts_by_order.setdefault(document.order_id, {}).update(document.facts)
        for order in view.orders:
            for coverage in view.coverages:
                payer = view.payer(coverage.payer_id)
                outcome = review(order.code, payer.portal, view.plan(coverage.plan_id).product,
                                 facts_by_order.get(order.id, {}), coverage.active_on(order.planned_date))
                answers.append((name, order.code, coverage.payer_id, outcome.outcome, outcome.criterion_id))
        for index, claim in enumerate(view.claims):
            answers.append((name, index, view.coverage(claim.coverage_id).active_on(claim.service_date)))
        found = audit_world(view).counts()
        answers.append((name, tuple(sorted((kind, n) for kind, n in found.items() if n))))
    return tuple(answers)


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
