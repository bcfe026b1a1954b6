"""What a held-out split's fresh case must keep, as the apps and the world answer it: the
public interface the split sampler (`admindesk tasks generate --split`) reads.

A drawn case keeps its public row's structure; its dates move and its facts are redrawn.
It is kept only when every window the payers and apps measure against today still falls
on the same side of the case's dates, and the payers' rules and the world audit answer it
as they answer the public case.
"""
from __future__ import annotations

from typing import Any

from admindesk.envs.ehr_web.seeding import seed_inbasket, seed_queues
from admindesk.envs.payer_portal_a.rules.payer_rules import rule_book
from admindesk.envs.payer_portal_a.seeding.seed import RECENT_LETTER_DAYS
from admindesk.envs.payer_portal_b.rules import appeal_rules as keystone_appeals, claim_rules as keystone_claims
from admindesk.envs.world.audit import audit_world
from admindesk.envs.world.cases.builder import build_case
from admindesk.envs.world.review_rules import review
from admindesk.envs.world.world import World
from admindesk.schema.case_model import Case


def payer_windows(world: World, case: dict[str, Any]) -> set[int]:
    """Every window, in days, that the case's payers or the apps measure against today."""
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
    return windows


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
