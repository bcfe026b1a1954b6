"""The inpatient stays of template prior_auth/concurrent_review hold together with Keystone Mutual's
inpatient policy (KM-UM-201): a stay admitted yesterday with nothing on file is notified on time
today; a stay on file has its next review today, and only today's progress note (not the older one,
which expected discharge) states the continued-stay findings and the days the review asks for."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from admindesk.envs.payer_portal_b.rules import inpatient_rules
from admindesk.envs.world.cases.documents import FACT_SENTENCES
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "prior_auth/concurrent_review"


@pytest.fixture(scope="module")
def stays():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _now(task) -> datetime:
    return datetime.fromisoformat(str(task.now))


def _update(document) -> str:
    facts = document.facts.model_dump()
    return " ".join(FACT_SENTENCES[key].format(value) for key, value in facts.items() if value is not None
                    and key in FACT_SENTENCES)


def test_the_template_holds_two_inpatient_stays_at_keystone(stays):
    assert set(stays) == {"pa-medium-13", "pa-hard-08"}
    for task in stays.values():
        case = task.case
        [order] = [o for o in case.orders if o.key == "svc"]
        assert order.code == "99223" and order.facility == "FAC-HOS" and case.admission.order == "svc"
        assert case.coverages[0].payer == "PYR-KMH" and "concurrent_review" in task.skills
        assert case.admission.discharge is None


def test_the_new_admission_came_yesterday_and_is_notified_on_time_today(stays):
    task = stays["pa-medium-13"]
    admitted = task.case.admission.admitted_at
    assert admitted.date() == _now(task).date() - timedelta(days=1)
    assert task.case.payer_history.notification is None
    assert not inpatient_rules.is_late(admitted, _now(task))
    assert task.case.admission.type == "Emergent"


def test_the_review_on_file_is_due_today_and_only_todays_note_supports_more_days(stays):
    task = stays["pa-hard-08"]
    case, today = task.case, _now(task).date()
    notice = case.payer_history.notification
    assert notice.recorded and case.admission.admitted_at.date() + timedelta(days=notice.approved_days) == today
    notes = sorted((d for d in case.documents if d.type == "hospital_progress_note"), key=lambda d: d.date)
    latest, older = notes[-1], notes[-2]
    assert latest.date == today and latest.contradicts == older.key
    asked = int(re.search(r"(\d+) more days?", latest.facts.discharge_plan).group(1))
    [days_check] = [c for s in task.subtasks for c in s.checks
                    if getattr(c, "description", "") == "the review asks for the days the attending's plan states"]
    assert days_check.expected == asked
    assert inpatient_rules.decide_review(_update(latest), asked).days == asked
    assert inpatient_rules.decide_review(_update(older), asked).outcome == "Pended"
    assert "discharge" in older.facts.discharge_plan
