"""Domain coherence of the world's chart, payer decisions, claims and faxes.

Each test states a rule a billing expert would check, directly on the records (the world
audit checks the same rules through the payers' criteria; see test_world_audit.py).
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.claims import DENIED_ALTHOUGH_MET
from admindesk.envs.world.review_rules import MET, review, service_rule

E_AND_M = {"99212", "99213", "99214", "99215"}
MEDICARE = {"Medicare", "Medicare Advantage"}


@pytest.fixture(scope="module")
def world():
    return build_world()


def _facts(world, order_id):
    facts = {}
    for document in world.documents:
        if document.order_id == order_id:
            facts.update(document.facts)
    return facts


def _carcs(claim):
    return {a.carc for line in claim.lines for a in line.adjustments}


def test_knee_notes_state_mechanical_symptoms_only_when_the_case_has_them(world):
    notes = [d for d in world.documents if d.kind == "progress_note" and d.fact("mcmurray_test")]
    with_symptoms = [d for d in notes if d.fact("mechanical_symptoms") != "none"]
    without = [d for d in notes if d.fact("mechanical_symptoms") == "none"]
    assert with_symptoms and without
    assert all("intermittent locking" in d.text for d in with_symptoms)
    assert not any("intermittent locking" in d.text for d in without)
    # Some knee cases meet neither criterion, so a payer can rightly deny them.
    assert any(int(d.fact("conservative_therapy_weeks")) < 4 and d.fact("mcmurray_test") == "negative"
               for d in without)


def test_co97_bundles_an_em_without_modifier_25_into_a_procedure(world):
    bundled = [(c, line) for c in world.claims for line in c.lines if any(a.carc == "97" for a in line.adjustments)]
    assert bundled
    for claim, line in bundled:
        assert line.code in E_AND_M and "25" not in line.modifiers, claim.claim_number
        assert any(o.code not in E_AND_M and o.paid > 0 for o in claim.lines if o is not line), claim.claim_number
    # The fix: the same visit billed with modifier 25 is paid, never bundled.
    visits_with_25 = [line for c in world.claims for line in c.lines if "25" in line.modifiers]
    assert visits_with_25 and not any(a.carc == "97" for line in visits_with_25 for a in line.adjustments)


def test_every_co18_duplicate_has_its_paid_original(world):
    duplicates = [c for c in world.claims if "18" in _carcs(c)]
    assert duplicates
    for dup in duplicates:
        original = world.claim(dup.original_claim_number)
        assert original.paid_amount > 0 and original.submitted_on < dup.submitted_on
        assert (original.mrn, original.payer_id, original.service_date) == (dup.mrn, dup.payer_id, dup.service_date)
        assert [line.code for line in original.lines] == [line.code for line in dup.lines]


def test_ncd_and_lcd_remarks_only_on_medicare_plans(world):
    for claim in world.claims:
        product = world.plan(world.coverage(claim.coverage_id).plan_id).product
        rarcs = {a.rarc for line in claim.lines for a in line.adjustments}
        if rarcs & {"N386", "N115"}:
            assert product in MEDICARE, claim.claim_number
    co50 = [c for c in world.claims if "50" in _carcs(c)]
    assert co50


def test_no_claim_is_paid_for_a_date_outside_coverage(world):
    outside = [c for c in world.claims if not world.coverage(c.coverage_id).active_on(c.service_date)]
    assert outside, "the world should hold claims for dates outside coverage"
    for claim in outside:
        assert claim.paid_amount == 0, claim.claim_number
        assert claim.status == "Pending" or _carcs(claim) & {"26", "27"}, claim.claim_number


def test_dme_is_billed_by_a_supplier_of_that_equipment(world):
    suppliers = {s.npi for s in world.suppliers}
    dme = [c for c in world.claims if c.order_id and world.order(c.order_id).category == "dme"]
    assert dme and all(c.billing_npi in suppliers for c in dme)
    others = [c for c in world.claims if not (c.order_id and world.order(c.order_id).category == "dme")]
    assert not any(c.billing_npi in suppliers for c in others)


def _review_of(world, auth):
    order = world.order(auth.order_id)
    coverage = next(c for c in world.coverages_for(auth.mrn) if c.member_id == auth.member_id)
    product = world.plan(coverage.plan_id).product
    return review(auth.code, world.payer(auth.payer_id).portal, product, _facts(world, order.id),
                  coverage.active_on(auth.start))


def test_auth_decisions_follow_the_payer_rules_and_wrong_denials_are_labelled(world):
    decided = [a for a in world.authorizations if a.status in ("Approved", "Denied")]
    labelled = []
    for auth in decided:
        outcome = _review_of(world, auth)
        if auth.status == "Approved":
            assert outcome.outcome == MET, auth.case_number
        elif outcome.outcome == MET:
            assert auth.deliberate_error == DENIED_ALTHOUGH_MET, auth.case_number
            labelled.append(auth)
        else:
            assert auth.deliberate_error is None
            assert (auth.failed_criterion, auth.decision_reason) == (outcome.criterion_id, outcome.reason)
    assert labelled, "the world should hold at least one deliberately wrong denial"
    assert any(a.status == "Denied" and a.deliberate_error is None for a in decided)


def test_denial_letters_quote_the_failed_criterion_and_rfis_ask_for_what_the_service_needs(world):
    by_case = {a.case_number: a for a in world.authorizations}
    # Letters arrive behind the payer's cover sheet: the letter is the last two pages.
    letters = [(f, by_case[f.pages_text[-2].split("Case number: ")[1].split()[0]]) for f in world.faxes
               if f.kind in ("determination_letter", "request_for_information")]
    denials = [(f, a) for f, a in letters if a.status == "Denied"]
    pended = [(f, a) for f, a in letters if a.status == "Pended"]
    assert denials and pended
    for fax, auth in denials:
        assert auth.decision_reason and auth.decision_reason in fax.pages_text[-1]
        payer = world.payer(auth.payer_id)
        assert f"appeal within {payer.timely_appeal_days} days by fax to {payer.appeals_fax}" in fax.pages_text[-1]
    needs = {service_rule(a.code).records_needed for _, a in pended}
    assert len(needs) >= 2  # not one generic sentence for every service
    for fax, auth in pended:
        assert service_rule(auth.code).records_needed in fax.pages_text[-1]


def test_appeal_deadlines_follow_each_payers_window(world):
    windows = {p.timely_appeal_days for p in world.payers}
    assert {60, 90, 120, 180} <= windows
    for remit in world.remittances:
        days = world.payer(remit.payer_id).timely_appeal_days
        assert remit.appeal_deadline == remit.paid_on + timedelta(days=days)
