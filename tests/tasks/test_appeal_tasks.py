"""The appeals & denials tasks: ids and mix, the stop-and-document rules of the
infeasible ones, the routes each denial takes, and the case ids the checks name (a
claim's remittance) being the ones the world gives the case's records."""
from __future__ import annotations

from collections import Counter

import pytest

from admindesk.envs.world import build_world
from admindesk.envs.world.cases import build_case
from admindesk.harness.task_tools.suite import suite_summary, task_row
from admindesk.schema.case_ids import case_values
from admindesk.schema.task_model import TASKS_ROOT, load_tasks
from tests.tasks.suite_files import gaps_in_numbering, task_file_ids

APPEAL_CHALLENGES = {"none", "deadline_passed", "secondary_payer", "conflicting_documents", "lookalike_patient",
                     "fax_only_payer", "wrong_code_on_order", "duplicate_on_file", "member_cost_share"}
FILING_TABLES = {("payer_portal_a", "appeals"), ("payer_portal_a", "corrected_claims"), ("payer_portal_b", "appeals"),
                 ("payer_portal_b", "corrected_claims"), ("fax", "outbound_faxes")}


@pytest.fixture(scope="module")
def appeals():
    return [task for task in load_tasks(TASKS_ROOT) if task.workflow == "appeals"]


def test_every_appeal_file_is_a_task_numbered_without_gaps_per_level(appeals):
    ids = {task.id for task in appeals}
    assert ids == task_file_ids("appeals")
    assert gaps_in_numbering(ids, "appeal") == {}
    assert {task.difficulty for task in appeals} == {"easy", "medium", "hard"}
    assert all(task.id.split("-")[1] == task.difficulty for task in appeals)


def test_every_challenge_kind_on_some_task_and_enough_infeasible(appeals):
    by_challenge = Counter(task.challenge for task in appeals)
    assert set(by_challenge) == APPEAL_CHALLENGES
    # Every kind of trap is on some task (procedures converted from the older templates took some
    # kinds down to one or two tasks), and a tenth of the appeals cannot be filed.
    assert sum(not task.feasible for task in appeals) >= 0.1 * len(appeals)


def test_checks_are_many_and_about_a_third_judged(appeals):
    summary = suite_summary([task_row(task) for task in appeals])
    assert summary["min_checks"] >= 6
    assert summary["checks"] >= 12 * len(appeals)
    assert 0.25 <= summary["rubric"] / summary["checks"] <= 0.4, summary


def test_infeasible_tasks_forbid_every_filing_and_want_the_deadline_written(appeals):
    for task in (t for t in appeals if not t.feasible):
        forbidden = {(g.app, g.table) for g in task.guards if g.kind == "no_submission"}
        assert FILING_TABLES <= forbidden, task.id
        notes = [c for c in task.checks() if c.kind == "query" and c.app == "ehr_web" and "notes[" in c.query
                 and c.op == "contains"]
        # A later level's window runs from the decision below it: its note dates that decision. A
        # non-covered service is not appealed at all: its note dates the waiver that could not be used.
        if task.template == "appeals/member_waiver":
            deadline = f"documents.{[d.key for d in task.case.documents].index('waiver')}.date"
        elif task.template == "appeals/diagnosis_coverage":  # not appealed: its note dates the visit it read
            deadline = "claims.0.service_date"
        elif task.template == "appeals/level2_appeal":
            deadline = "payer_history.appeals.0.decided_on"
        else:
            deadline = "claims.0.remittance.appeal_deadline"
        assert [c.expected.case for c in notes] == [deadline], task.id


def test_hard_tasks_span_three_apps(appeals):
    for task in (t for t in appeals if t.difficulty == "hard"):
        assert len(task_row(task)["apps"]) >= 3, task.id


@pytest.mark.parametrize("template, table", [("corrected_claim", "corrected_claims"),
                                             ("cob_corrected_claim", "corrected_claims"),
                                             ("portal_appeal", "appeals")])
def test_each_route_files_once_and_only_on_its_claim(appeals, template, table):
    for task in (t for t in appeals if t.template == f"appeals/{template}"):
        kinds = {g.kind for g in task.guards if getattr(g, "table", None) == table}
        assert {"recipient", "duplicate"} <= kinds, task.id


def test_remittance_ids_are_the_ones_the_world_gives_the_case(appeals):
    world = build_world()
    for task in appeals:
        # A remittance the chart never received (no payer response) is the payer's alone.
        in_chart = [c for c in task.case.claims if c.remittance and not c.no_response]
        named = {key: id for key, id in case_values(task)["ids"]["remittances"].items()
                 if key in {c.key for c in in_chart}}
        built = build_case(world, task.id, task.case).chart.remittances
        assert named == {spec.key: remit.id for spec, remit in zip(in_chart, built)}, task.id
