"""The cases of template appeals/liability_handoff: a CO-19 denial whose injury document decides
between the hand-off (a work injury: the first report of injury's carrier and claim, which
registration does not hold, beside an earlier claim registration shows closed) and a
reconsideration (the intake says the injury happened at home though registration entered it as
work-related). The world audit reports an injury denial without an accident registration and a first
report of injury whose date registration does not hold; a first report without its carrier's claim
does not load."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_cases
from admindesk.schema.case_model import DocumentSpec
from admindesk.schema.task_model import TASKS_ROOT, load_tasks

TEMPLATE = "appeals/liability_handoff"


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks(TASKS_ROOT) if t.template == TEMPLATE}


def _carcs(task) -> set[str]:
    [claim] = [c for c in task.case.claims if c.key == "denied"]
    return {a.carc for line in claim.lines for a in line.adjustments}


def _expected(task, query_part: str) -> list:
    return [c for c in task.checks() if c.kind == "query" and query_part in c.query]


def test_the_template_holds_a_hand_off_and_a_reconsideration(tasks):
    assert set(tasks) == {"appeal-easy-16", "appeal-medium-16"}
    assert [tasks[t].difficulty for t in sorted(tasks)] == ["easy", "medium"]
    for task in tasks.values():
        assert _carcs(task) == {"19"} and task.feasible
    assert "handoff" in tasks["appeal-easy-16"].skills and "handoff" not in tasks["appeal-medium-16"].skills


def test_the_first_report_gives_a_claim_registration_does_not_hold(tasks):
    case = tasks["appeal-easy-16"].case
    [report] = [d for d in case.documents if d.type == "injury_report"]
    registered = {a.claim_number for a in case.accidents}
    assert report.facts.work_related == "yes" and report.facts.wc_claim_number not in registered
    # This injury's registration waits for its carrier; the claim it does show is an earlier, closed one.
    [this_injury] = [a for a in case.accidents if a.injury_date == report.facts.injury_date]
    assert this_injury.status == "Open" and this_injury.claim_number is None
    [earlier] = [a for a in case.accidents if a is not this_injury]
    assert earlier.status == "Closed" and earlier.claim_number and earlier.carrier != report.facts.wc_carrier
    assert [c.params["claim"].case for c in _expected(tasks["appeal-easy-16"], "assignee==")] == ["ids.claims.denied"]


def test_the_intake_contradicts_registrations_work_injury(tasks):
    case = tasks["appeal-medium-16"].case
    [intake] = [d for d in case.documents if d.key == "intake"]
    [registered] = case.accidents
    assert registered.kind == "Employment" and registered.employer
    assert intake.facts.work_related == "no" and intake.facts.injury_date == registered.injury_date
    assert "at home" in intake.facts.injury_cause
    # The reconsideration encloses the intake and the item stays with the desk.
    [attached] = [c for c in tasks["appeal-medium-16"].checks() if c.kind == "file"]
    assert attached.source.params["doc"].case == "ids.documents.intake"


def test_an_injury_denial_without_a_registration_is_reported(tasks):
    world = build_world()
    task = tasks["appeal-medium-16"]
    unregistered = task.model_copy(update={"case": task.case.model_copy(update={"accidents": []})})
    found = [(f.kind, f.record.split()[0]) for f in audit_cases(world, [unregistered]).findings]
    assert found == [("injury_denial_without_accident", "appeal-medium-16")]


def test_a_first_report_of_another_injury_is_reported(tasks):
    world = build_world()
    task = tasks["appeal-easy-16"]
    accidents = [a for a in task.case.accidents if a.status == "Closed"]
    moved = task.model_copy(update={"case": task.case.model_copy(update={"accidents": accidents})})
    kinds = {f.kind for f in audit_cases(world, [moved]).findings}
    assert kinds == {"injury_report_without_accident"}
    assert audit_cases(world, list(tasks.values())).findings == []


def test_a_first_report_names_its_carriers_claim():
    with pytest.raises(ValidationError, match="first report of injury gives"):
        DocumentSpec.model_validate({"key": "froi", "type": "injury_report", "date": "2026-09-22",
                                     "facts": {"injury_date": "2026-09-08", "injury_cause": "fell",
                                               "employer": "Acme", "wc_carrier": "Mutual"}})
