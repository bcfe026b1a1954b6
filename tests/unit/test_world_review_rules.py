"""The world's on-file decisions agree with portal A's own determination rules.

Portal A's policy and answer mapping are plain modules (no Flask app is created), so the
world's restated criteria are checked against the portal's engine itself.
"""

from __future__ import annotations

import pytest

from admindesk.envs.payer_portal_a.policy import condition_holds, load_policy
from admindesk.envs.payer_portal_a.seeding.seed_answers import answers_from_facts
from admindesk.envs.world import build_world
from admindesk.envs.world.review_rules import service_rule


@pytest.fixture(scope="module")
def world():
    return build_world()


def _portal_a_auths(world):
    for auth in world.authorizations:
        if world.payer(auth.payer_id).portal == "a" and auth.status in ("Approved", "Denied"):
            coverage = next(c for c in world.coverages_for(auth.mrn) if c.member_id == auth.member_id)
            yield auth, world.plan(coverage.plan_id).product, world.order(auth.order_id)


def test_decisions_on_file_are_what_portal_a_would_decide(world):
    policy, checked = load_policy(), 0
    for auth, product, order in _portal_a_auths(world):
        service = policy.service(auth.code)
        if service is None or auth.deliberate_error:
            continue
        assert service.requires_auth(product, order.place_of_service), auth.case_number
        facts = {k: v for d in world.documents if d.order_id == order.id for k, v in d.facts}
        answers = answers_from_facts(service.questionnaire, facts)
        failed = next((c for c in service.criteria if not condition_holds(c.require, answers)), None)
        if auth.status == "Approved":
            assert failed is None, (auth.case_number, failed)
        else:
            assert failed is not None, auth.case_number
            assert (auth.failed_criterion, auth.decision_reason) == (failed.id, failed.deny_reason)
        checked += 1
    assert checked >= 50


def test_every_service_the_world_sends_to_portal_a_review_is_in_its_policy(world):
    policy = load_policy()
    codes = {order.code for order in world.orders if (rule := service_rule(order.code)) and "a" in rule.criteria}
    assert sorted(code for code in codes if policy.service(code) is None) == []


GENETIC_MET = {"genetic_counseling": "pre-test counseling completed 10/29/2026 by a board-certified genetic counselor",
               "personal_cancer_history": "none; screening mammogram negative",
               "family_history": "mother: ovarian cancer diagnosed at 52",
               "management_impact": "breast MRI screening", "prior_genetic_testing": "none; no relative tested"}


@pytest.mark.parametrize("change", [{"genetic_counseling": "referral placed; first appointment 12/16/2026"},
                                    {"family_history": "none"}, {"management_impact": "none"},
                                    {"prior_genetic_testing": "BRCA1/BRCA2 analysis 2019, negative"}],
                         ids=["only-referred", "no-history", "no-change", "tested-before"])
def test_keystone_genetic_testing_restates_km_lab_701(change):
    rule = service_rule("81162")
    assert rule.reviewed("b", "PPO") and not rule.reviewed("a", "PPO")
    assert all(criterion.holds(GENETIC_MET) for criterion in rule.criteria["b"])
    failed = [criterion for criterion in rule.criteria["b"] if not criterion.holds({**GENETIC_MET, **change})]
    assert [criterion.id for criterion in failed] == ["KM-LAB-701"]
