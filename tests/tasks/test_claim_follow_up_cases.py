"""The cases of template appeals/claim_status_follow_up hold together: each claim has had no
answer for 45+ days at the task's date; the claim the payer never received is still inside its
filing limit (the deadline the checks accept is that limit's last day) and the paid one's payment
is another check than the same day's posted visit claim's."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
import yaml

from admindesk.envs.ehr_web.vocab import NO_RESPONSE_DAYS
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/claim_status_follow_up"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _claim(task, key="denied"):
    return next(c for c in task.case.claims if c.key == key)


def test_the_template_holds_one_claim_never_received_and_one_paid_unposted(cases):
    assert set(cases) == {"appeal-easy-01", "appeal-medium-18"}
    for task in cases.values():
        claim = _claim(task)
        assert claim.no_response and "claim_follow_up" in task.skills
        assert claim.submitted_on + timedelta(days=NO_RESPONSE_DAYS) <= task.now.date()
    never = _claim(cases["appeal-easy-01"])
    assert (never.at_payer, never.status, never.remittance) == (False, "Pending", None)
    paid = _claim(cases["appeal-medium-18"])
    assert paid.at_payer and paid.status == "Paid" and paid.remittance is not None


def test_the_claim_never_received_is_inside_its_filing_limit(cases):
    task = cases["appeal-easy-01"]
    claim = _claim(task)
    last_day = claim.service_date + timedelta(days=rules_for(task.case.coverages[0].payer).claim_filing_days)
    assert task.now.date() <= last_day
    rows = yaml.safe_load((TASKS_ROOT / "templates" / f"{TEMPLATE}.cases.yml").read_text())["rows"]
    [row] = [r for r in rows if r["id"] == task.id]
    assert last_day in {date.fromisoformat(day) for day in row["vars"]["deadline"]}


def test_the_same_days_posted_visit_is_paid_by_another_check(cases):
    task = cases["appeal-medium-18"]
    visit, paid = _claim(task, "visit"), _claim(task)
    assert visit.service_date == paid.service_date and not visit.no_response
    checks = case_values(task)["ids"]["checks"]
    assert checks["visit"] != checks["denied"]
