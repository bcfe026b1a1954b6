"""The CO-29 denials of template appeals/timely_filing: what decides each case is the payer's
filing limit, counted from the date of service, against the transmissions its front end accepted
in the claim's clearinghouse history (a rejected one proves nothing). The case model and the
world audit keep a history consistent: it ends with the claim the payer received, each
transmission with its own clearinghouse report."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

import pytest
from pydantic import ValidationError

from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_world
from admindesk.envs.world.cases.builder import build_case
from admindesk.schema.case_model import Case
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/timely_filing"


@pytest.fixture(scope="module")
def cases():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _named_documents(task) -> set[str]:
    """The case documents the task's checks name (the clearinghouse report that decides)."""
    text = (TASKS_ROOT / task.workflow / f"{task.id}.yaml").read_text()
    return set(re.findall(r"ids\.documents\.(\w+)", text))


def _limit(task, claim):
    payer = next(c.payer for c in task.case.coverages if c.key == claim.coverage)
    return claim.service_date + timedelta(days=rules_for(payer).claim_filing_days)


def test_every_case_is_a_co29_denial_with_a_clearinghouse_history(cases):
    assert set(cases) == {"appeal-easy-02", "appeal-medium-19"}
    for task in cases.values():
        [claim] = task.case.claims
        assert claim.status == "Denied" and [a.carc for a in claim.lines[0].adjustments] == ["29"]
        assert len(claim.submissions) == 2 and "timely_filing" in task.skills
        assert claim.submitted_on > _limit(task, claim)  # the claim the payer received was late


def test_the_appeal_case_was_first_accepted_within_the_limit(cases):
    task = cases["appeal-easy-02"]
    [claim] = task.case.claims
    first = claim.submissions[0]
    assert first.rejection is None and first.transmitted_on <= _limit(task, claim)
    assert _named_documents(task) == {first.report} and "level1_appeal" in task.skills


def test_the_write_off_case_has_only_a_rejection_within_the_limit(cases):
    task = cases["appeal-medium-19"]
    [claim] = task.case.claims
    rejected, accepted = claim.submissions
    limit = _limit(task, claim)
    assert rejected.rejection and rejected.transmitted_on <= limit < accepted.transmitted_on
    # Counted from the rejected transmission instead of the date of service, the accepted one looks timely.
    assert accepted.transmitted_on - rejected.transmitted_on <= limit - claim.service_date
    assert _named_documents(task) == {rejected.report} and "stop_and_document" in task.skills


def _with_submissions(task, change):
    data = task.case.model_dump(mode="json", exclude_none=True)
    change(data["claims"][0]["submissions"], data["documents"])
    return data


@pytest.mark.parametrize("change, message", [
    (lambda subs, docs: subs[-1].update(rejection="A7:562 NPI invalid"), "the last one is the claim the payer"),
    (lambda subs, docs: subs.reverse(), "oldest first"),
    (lambda subs, docs: subs[0].update(report="report"), "no clearinghouse_report document 'report'"),
    (lambda subs, docs: docs[-1].update(date="2026-08-12"), "the report is dated its transmission day"),
    (lambda subs, docs: subs.pop(0), "is the report of exactly one claim submission"),
])
def test_the_case_model_refuses_an_inconsistent_history(cases, change, message):
    with pytest.raises(ValidationError, match=message):
        Case.model_validate(_with_submissions(cases["appeal-medium-19"], change))


def test_the_audit_flags_a_report_missing_from_the_chart(cases):
    world, task = build_world(), cases["appeal-medium-19"]
    chart = build_case(world, task.id, task.case).view("chart")
    assert not [f for f in audit_world(chart, task.now.date()).findings if f.kind == "clearinghouse_history_mismatch"]
    [claim] = chart.claims
    without_report = replace(chart, documents=tuple(d for d in chart.documents
                                                    if d.id != claim.submissions[0].report_document_id))
    found = [f for f in audit_world(without_report, task.now.date()).findings
             if f.kind == "clearinghouse_history_mismatch"]
    assert [f.record for f in found] == [claim.claim_number]
