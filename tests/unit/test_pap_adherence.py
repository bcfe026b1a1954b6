"""PAP adherence reports and CPAP rentals under way: a case's supplier report is written from
its nightly minutes (every night a row a coordinator can count), a recorded trial approval
reads Approved on the open order, and the continued-coverage tasks' expected adherence
periods are exactly the ones Keystone Mutual's rule accepts from the report."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from pydantic import ValidationError

from admindesk.envs.payer_portal_b.rules.dme_clinical import (
    ADHERENCE_HOURS,
    ADHERENCE_NIGHTS,
    ADHERENCE_PERIOD_DAYS,
    TRIAL_WINDOW,
)
from admindesk.envs.world import build_world
from admindesk.envs.world.cases import build_case
from admindesk.schema.case_model import DocumentSpec, RequestOnFileSpec
from admindesk.schema.task_model import TASKS_ROOT, load_task_file

MEDIUM, HARD = (load_task_file(TASKS_ROOT / "dme" / f"{task_id}.yaml") for task_id in ("dme-medium-02", "dme-hard-04"))


@pytest.fixture(scope="module")
def world():
    return build_world()


def report_of(task):
    return next(d for d in task.case.documents if d.type == "adherence_report")


def periods(task, *, unreported_nights_used: bool) -> dict[str, int]:
    """Keystone's 30-night periods within days 31-91 that have ended by the task's day, as
    "start nights" -> nights with 4 hours or more; nights after the report count as used
    or are left out (`unreported_nights_used`)."""
    facts = report_of(task).facts
    minutes, setup, today = facts.nightly_minutes, facts.device_setup_date, task.now.date()
    found = {}
    for first_day in range(TRIAL_WINDOW[0], TRIAL_WINDOW[1] - ADHERENCE_PERIOD_DAYS + 2):
        nights = range(first_day - 1, first_day - 1 + ADHERENCE_PERIOD_DAYS)
        if not unreported_nights_used and nights[-1] >= len(minutes):
            continue
        counted = sum(1 for n in nights if n >= len(minutes) or minutes[n] >= ADHERENCE_HOURS * 60)
        found[f"{setup + timedelta(days=first_day - 1)} {counted}"] = counted
    assert today <= setup + timedelta(days=TRIAL_WINDOW[1] - 1), f"{task.id}: the trial's day 91 has passed"
    return found


def test_the_medium_task_accepts_every_period_the_report_supports_and_no_other():
    meeting = sorted(key for key, counted in periods(MEDIUM, unreported_nights_used=False).items()
                     if counted >= ADHERENCE_NIGHTS)
    check = next(c for s in MEDIUM.subtasks for c in s.checks
                 if getattr(c, "op", None) == "one_of" and "adherence_start" in c.query)
    assert sorted(check.expected) == meeting and len(meeting) >= 3
    first_inside = min(periods(MEDIUM, unreported_nights_used=False))
    assert periods(MEDIUM, unreported_nights_used=False)[first_inside] < ADHERENCE_NIGHTS  # the careless reading


def test_the_hard_task_cannot_meet_the_rule_even_if_every_night_left_were_used():
    assert max(periods(HARD, unreported_nights_used=True).values()) < ADHERENCE_NIGHTS
    first_thirty = report_of(HARD).facts.nightly_minutes[:ADHERENCE_PERIOD_DAYS]
    assert sum(m >= ADHERENCE_HOURS * 60 for m in first_thirty) >= ADHERENCE_NIGHTS  # the supplier's "met"


def test_the_report_prints_every_night_and_the_suppliers_summary(world):
    records = build_case(world, MEDIUM.id, MEDIUM.case).chart
    report = next(d for d in records.documents if d.kind == "adherence_report")
    minutes = report_of(MEDIUM).facts.nightly_minutes
    setup = report_of(MEDIUM).facts.device_setup_date
    assert "PAP device set up on 08/24/2026." in report.text and "SleepWell DME Services" in report.text
    assert "First 30 nights from set-up (08/24/2026 to 09/22/2026): used 4 hours or more on 13 of 30 nights " \
           "(43%); compliance not met" in report.text
    for night, used in enumerate(minutes, start=1):
        day = setup + timedelta(days=night - 1)
        mark = "  *" if used >= 240 else ""
        assert f"Night {night:>3}  {day:%a} {day:%m/%d/%Y}  {used // 60}:{used % 60:02d}{mark}\n" in report.text + "\n"
    assert f"Night {len(minutes) + 1:>3}" not in report.text
    assert dict(report.facts) == {"device_setup_date": "08/24/2026"}


def test_a_recorded_trial_approval_is_on_the_open_order(world):
    records = build_case(world, HARD.id, HARD.case)
    [trial] = records.payer.authorizations
    assert trial.recorded and trial.status == "Approved" and trial.start == date(2026, 8, 20)
    [order] = records.chart.orders
    assert order.status == "Ordered"


@pytest.mark.parametrize("spec, message", [
    ({"key": "r", "type": "adherence_report", "date": "2026-11-13"}, r"an adherence report \(and only one\)"),
    ({"key": "r", "type": "progress_note", "date": "2026-11-13",
      "facts": {"device_setup_date": "2026-08-24", "nightly_minutes": [300]}}, r"an adherence report \(and only one\)"),
    ({"key": "r", "type": "adherence_report", "date": "2026-11-13", "facts": {"nightly_minutes": [300]}},
     "gives both device_setup_date and nightly_minutes"),
    ({"key": "r", "type": "adherence_report", "date": "2026-11-13",
      "facts": {"device_setup_date": "2026-08-24", "nightly_minutes": [300, 1500]}}, "0 to 1440"),
])
def test_an_adherence_report_states_its_set_up_and_whole_nights(spec, message):
    with pytest.raises(ValidationError, match=message):
        DocumentSpec.model_validate(spec)


def test_only_an_approval_is_recorded_on_the_order():
    with pytest.raises(ValidationError, match="only an Approved request"):
        RequestOnFileSpec.model_validate({"key": "t", "order": "svc", "status": "Denied", "recorded": True})
