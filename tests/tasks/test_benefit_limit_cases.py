"""The visit-limit denials of template appeals/benefit_limit hold together: the practice's visit log
in the chart lists exactly the visits Keystone applied plus the denied one; where the limit is
reached, every applied visit falls in the benefit period; where it is not (the labelled miscount),
the visits outside the period are what the payer got wrong, and counting the calendar year instead
of the group's benefit period would wrongly say the limit was reached."""
from __future__ import annotations

import re
from datetime import date, datetime

import pytest

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/benefit_limit"


@pytest.fixture(scope="module")
def denials():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _log_dates(task) -> list[date]:
    [log] = [d for d in task.case.documents if d.key == "visit_log"]
    return [datetime.strptime(d, "%m/%d/%Y").date() for d in re.findall(r"\d{2}/\d{2}/\d{4}",
                                                                         log.narrative.split("Visits attended")[1])]


def _in_period(limit) -> set[date]:
    end = limit.period_start.replace(year=limit.period_start.year + 1)
    return {v.service_date for v in limit.counted if limit.period_start <= v.service_date < end}


def test_the_template_holds_one_reached_limit_and_one_miscount(denials):
    assert set(denials) == {"appeal-easy-09", "appeal-hard-15"}
    assert [t.case.claims[0].benefit_limit.payer_error for t in (denials["appeal-easy-09"],
                                                                 denials["appeal-hard-15"])] == [False, True]
    for task in denials.values():
        [claim] = task.case.claims
        assert task.case.coverages[0].payer == "PYR-KMH" and "benefit_limit" in task.skills
        assert {(a.group, a.carc) for line in claim.lines for a in line.adjustments} == {("PR", "119")}
        assert all("GP" in line.modifiers for line in claim.lines)


def test_the_visit_log_is_the_applied_visits_and_the_denied_one(denials):
    for task in denials.values():
        [claim] = task.case.claims
        assert _log_dates(task) == sorted(v.service_date for v in claim.benefit_limit.counted) + [claim.service_date]


def test_only_the_miscount_falls_short_of_the_limit_in_its_benefit_period(denials):
    reached = denials["appeal-easy-09"].case.claims[0].benefit_limit
    assert len(_in_period(reached)) == reached.visits_allowed == len(reached.counted)
    miscount = denials["appeal-hard-15"].case.claims[0].benefit_limit
    assert len(_in_period(miscount)) < miscount.visits_allowed
    # The trap: a calendar-year count of the same visits reaches the limit.
    assert len({v.service_date for v in miscount.counted if v.service_date.year == 2026}) >= miscount.visits_allowed
    assert miscount.period_start != date(miscount.period_start.year, 1, 1)
