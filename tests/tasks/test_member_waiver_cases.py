"""The cases of template appeals/member_waiver: each a Keystone claim for a service its plan does not
cover (CARC 50, 96 or 204), not one of the spine or knee MRI codes; the route follows the payer's
rule, whatever the group code: a waiver signed on or before the date of service that names the
claim's code and an estimated cost lets the member be billed, else the balance is written off (and
the task files nothing: it is infeasible). The two cases differ in group code and deciding fact."""
from __future__ import annotations

import re

import pytest

from admindesk.schema.task_model import TASKS_ROOT, load_tasks

MRI_CODES = {"72148", "72141", "73721", "73723"}


@pytest.fixture(scope="module")
def tasks():
    return [t for t in load_tasks(TASKS_ROOT) if t.template == "appeals/member_waiver"]


def _denied(task):
    return next(c for c in task.case.claims if c.key == "denied")


def _waiver_is_valid(task) -> bool:
    claim = _denied(task)
    waiver = next(d for d in task.case.documents if d.key == "waiver")
    code = claim.lines[0].code
    return (waiver.date <= claim.service_date and f"CPT {code}" in waiver.narrative
            and re.search(r"Estimated cost: \$\d", waiver.narrative) is not None)


def test_the_converted_ids(tasks):
    assert {t.id: (t.difficulty, t.feasible) for t in tasks} == {"appeal-easy-18": ("easy", False),
                                                                 "appeal-easy-20": ("easy", True)}


def test_every_case_is_a_non_covered_service_at_keystone(tasks):
    for task in tasks:
        claim = _denied(task)
        assert task.case.coverages[0].payer == "PYR-KMH", task.id
        assert {a.carc for line in claim.lines for a in line.adjustments} <= {"50", "96", "204"}, task.id
        assert not {line.code for line in claim.lines} & MRI_CODES, task.id


def _item_status(task) -> str:
    [status] = [c.expected for c in task.checks() if c.kind == "query" and c.query.endswith("].status")]
    return status


def test_the_route_follows_the_waiver_whatever_the_group_code(tasks):
    for task in tasks:
        valid = _waiver_is_valid(task)
        assert _item_status(task) == ("Patient Responsibility" if valid else "Write-off Requested"), task.id
        assert task.feasible == valid, task.id
    groups = {task.id: {a.group for line in _denied(task).lines for a in line.adjustments} for task in tasks}
    # A PR group does not make a late waiver billable, nor a CO group a valid waiver unbillable.
    assert groups == {"appeal-easy-18": {"PR"}, "appeal-easy-20": {"CO"}}
