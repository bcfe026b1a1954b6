"""The CO-197 denials of template appeals/missing_auth_denial: every case's claim line bills an
order the payer approved, and what that approval covers decides. The fix case's claim went out
without the number of an approval that covers its code and date (a newer approval of another
service sits beside it); the write-off case's claim carries the number of an approval whose dates
end the day before the service, which the payer's retro rule no longer reaches. The world audit
keeps a CO-197 off a line the claim's own authorization covers."""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
import yaml

from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_world
from admindesk.envs.world.cases.builder import build_case
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/missing_auth_denial"
FIX, WRITE_OFF = "appeal-easy-11", "appeal-medium-14"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _vars(task) -> dict:
    """The row's template variables (the task file keeps only what they rendered)."""
    rows = yaml.safe_load((TASKS_ROOT / "templates" / "appeals" / "missing_auth_denial.cases.yml").read_text())
    return next(row["vars"] for row in rows["rows"] if row["id"] == task.id)


def _request(task, key):
    return next(r for r in task.case.payer_history.requests if r.key == key)


def _order(task, key):
    return next(o for o in task.case.orders if o.key == key)


def _span(task, request):
    """The approved dates as the case builder gives them (3 days before the planned date, 90 days)."""
    start = request.start or _order(task, request.order).planned_date - timedelta(days=3)
    return start, request.end or start + timedelta(days=90)


def test_every_case_is_a_co197_denial_of_an_approved_order(cases):
    assert set(cases) == {FIX, WRITE_OFF}
    for task in cases.values():
        [claim] = task.case.claims
        [line] = claim.lines
        assert claim.status == "Denied" and [a.carc for a in line.adjustments] == ["197"]
        approval = _request(task, _vars(task)["auth"])
        assert approval.status == "Approved" and approval.order == claim.order
        assert line.code == _order(task, claim.order).code and "missing_auth_denial" in task.skills


def test_the_fix_case_left_a_covering_authorization_off_the_claim(cases):
    task = cases[FIX]
    [claim] = task.case.claims
    start, end = _span(task, _request(task, "approval"))
    assert claim.auth is None and start <= claim.service_date <= end
    other = _request(task, _vars(task)["other"])
    other_start, _ = _span(task, other)
    # The approval beside it is newer (listed first at the payer) and covers neither the code nor the date.
    assert other.status == "Approved" and _order(task, other.order).code != claim.lines[0].code
    assert other_start > claim.service_date and other_start > start
    assert task.feasible and "corrected_claim" in task.skills


def test_the_write_off_case_authorization_ends_the_day_before_and_retro_does_not_reach(cases):
    task = cases[WRITE_OFF]
    [claim] = task.case.claims
    approval = _request(task, claim.auth)
    assert _span(task, approval)[1] == claim.service_date - timedelta(days=1)
    rules = rules_for(task.case.coverages[0].payer)
    routine = _order(task, claim.order).priority == "Routine"
    last_retro_day = claim.service_date + timedelta(days=rules.retro_auth_days)
    assert (rules.retro_emergent_only and routine) or last_retro_day < task.now.date()
    assert "stop_and_document" in task.skills


def test_the_audit_flags_a_co197_the_claims_authorization_covers(cases):
    world, task = build_world(), cases[WRITE_OFF]
    chart = build_case(world, task.id, task.case).view("chart")
    today = task.now.date()
    assert not [f for f in audit_world(chart, today).findings if f.kind == "co197_with_covering_auth"]
    [claim] = chart.claims
    covering = tuple(replace(a, end=claim.service_date) if a.auth_number == claim.auth_number else a
                     for a in chart.authorizations)
    found = [f for f in audit_world(replace(chart, authorizations=covering), today).findings
             if f.kind == "co197_with_covering_auth"]
    assert [f.record for f in found] == [claim.claim_number]
