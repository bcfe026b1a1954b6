"""The cases of template appeals/other_payer hold together: the claim was denied CO-109 by the
payer it was billed to; that payer's letter names the responsible coverage (its payer, plan and
member id) and no other; that coverage is in force on the date of service in the registration and
at its payer, any look-alike coverage of the same payer is not active there on that date, and the
responsible payer's timely filing limit is still open today."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.envs.payer_portal_b.rules.claim_rules import CLAIM_FILING_DAYS as KEYSTONE_FILING_DAYS
from admindesk.envs.world import build_world
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/other_payer"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _in_force(effective: date, termination: date | None, day: date) -> bool:
    return effective <= day and (termination is None or day <= termination)


def _at_payer(coverage):
    """(effective, termination) as the coverage's payer holds them."""
    at = coverage.at_payer
    return ((at.effective if at and at.effective else coverage.effective),
            (at.termination if at and at.termination else coverage.termination))


def test_the_template_holds_the_two_converted_tasks(cases):
    assert {t: c.difficulty for t, c in cases.items()} == {"appeal-easy-08": "easy", "appeal-medium-05": "medium"}
    assert all("other_payer" in task.skills for task in cases.values())


def test_the_claim_was_denied_co_109_by_another_payer_than_the_responsible_one(cases):
    for task in cases.values():
        coverages = {c.key: c for c in task.case.coverages}
        [claim] = [c for c in task.case.claims if c.key == "denied"]
        assert claim.coverage == "billed" and claim.status == "Denied", task.id
        assert {(a.group, a.carc, a.rarc) for line in claim.lines for a in line.adjustments} == {("CO", "109", "N418")}
        assert coverages["billed"].payer != coverages["responsible"].payer, task.id


def test_the_letter_names_the_responsible_coverage_and_no_other(cases):
    world = build_world()
    for task in cases.values():
        ids = case_values(task)["ids"]["coverages"]
        [letter] = task.case.faxes  # the denying payer's letter, the case's only fax
        text = " ".join(" ".join(letter.pages).split())
        responsible = next(c for c in task.case.coverages if c.key == "responsible")
        assert ids["responsible"]["payer_member_id"] in text, task.id
        assert world.payer(responsible.payer).name in text and world.plan(responsible.plan).name in text, task.id
        others = [ids[key]["member_id"] for key in ids if key != "responsible"]
        assert not [m for m in others if m in text], task.id


def test_only_the_responsible_coverage_is_in_force_at_its_payer_on_the_date_of_service(cases):
    for task in cases.values():
        [claim] = [c for c in task.case.claims if c.key == "denied"]
        dos = claim.service_date
        responsible = next(c for c in task.case.coverages if c.key == "responsible")
        assert _in_force(responsible.effective, responsible.termination, dos), task.id
        assert _in_force(*_at_payer(responsible), dos), task.id
        lookalikes = [c for c in task.case.coverages if c.payer == responsible.payer and c.key != "responsible"]
        assert not [c.key for c in lookalikes if _in_force(*_at_payer(c), dos)], task.id
    medium = cases["appeal-medium-05"]
    [lookalike] = [c for c in medium.case.coverages if c.key == "old_keystone"]
    assert lookalike.termination is None  # open in the registration: only Keystone's eligibility tells


def test_the_responsible_payers_filing_limit_is_still_open(cases):
    for task in cases.values():
        [claim] = [c for c in task.case.claims if c.key == "denied"]
        responsible = next(c for c in task.case.coverages if c.key == "responsible")
        days = KEYSTONE_FILING_DAYS if responsible.payer == "PYR-KMH" else rules_for(responsible.payer).claim_filing_days
        assert task.now.date() <= claim.service_date + timedelta(days=days), task.id
