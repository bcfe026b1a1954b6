"""The world audit over the tasks' cases: every case is built on the world as a reset builds
it and audited; an inconsistency planted in a case is reported with its task."""

from __future__ import annotations

import copy

import pytest
import yaml

from admindesk.envs.world import build_world
from admindesk.envs.world.audit import audit_cases, main
from admindesk.envs.world.cases import build_case
from admindesk.envs.world.review_rules import service_rule
from admindesk.schema.task_model import Task, load_tasks, read_task_yaml
from tests.cases.examples import TASKS_DIR

AUTH_ON_FILE = TASKS_DIR / "denial-auth-on-file.yaml"


@pytest.fixture(scope="module")
def world():
    return build_world()


def _task(edit=None) -> dict:
    """The example case of a CO-197 denial with an approved auth on file, edited by `edit(case)`."""
    data = copy.deepcopy(read_task_yaml(AUTH_ON_FILE))
    if edit is not None:
        edit(data["case"])
    return data


def _denied_on_an_active_date(case: dict) -> None:
    case["claims"][0]["lines"][0]["adjustments"] = [{"group": "CO", "carc": "27"}]


def test_the_example_cases_are_consistent(world):
    report = audit_cases(world, load_tasks(TASKS_DIR))
    assert report.findings == []
    assert report.family_counts["lumbar_mri"]["auth approved"] >= 1


def test_a_planted_inconsistency_is_reported_with_its_task(world):
    task = Task.model_validate(_task(_denied_on_an_active_date))
    report = audit_cases(world, [task])
    claim = build_case(world, task.id, task.case).chart.claims[0].claim_number
    assert [(f.kind, f.record) for f in report.findings] == [
        ("coverage_denial_on_active_date", f"case-denial-auth-on-file {claim}")]


def test_a_case_is_audited_as_of_its_tasks_now(world):
    data = _task()
    data["now"] = "2026-09-20T09:00:00"  # before the remittance of 2026-10-02
    report = audit_cases(world, [Task.model_validate(data)])
    assert [f.kind for f in report.findings] == ["dated_after_today"]
    assert "after 2026-09-20" in report.findings[0].detail


def _duplicate_of_a_paid_claim(case: dict) -> None:
    original = case["claims"][0]
    original.update(status="Paid", auth="approval")
    original["lines"][0].update(paid=1200.0, adjustments=[{"group": "CO", "carc": "45"}])
    duplicate = copy.deepcopy(original)
    duplicate.update(key="again", status="Denied", submitted_on="2026-10-20", remittance={"paid_on": "2026-11-02"})
    duplicate["lines"][0].update(paid=0.0, adjustments=[{"group": "CO", "carc": "18"}])
    case["claims"].append(duplicate)


def test_a_duplicate_denial_is_linked_to_the_paid_claim_it_repeats(world):
    task = Task.model_validate(_task(_duplicate_of_a_paid_claim))
    claims = build_case(world, task.id, task.case).chart.claims
    assert claims[1].original_claim_number == claims[0].claim_number
    assert audit_cases(world, [task]).findings == []

    def without_the_original(case: dict) -> None:
        _duplicate_of_a_paid_claim(case)
        del case["claims"][0]
    alone = Task.model_validate(_task(without_the_original))
    assert [f.kind for f in audit_cases(world, [alone]).findings] == ["co18_without_original"]


def test_a_pended_request_asks_for_what_the_service_needs(world):
    def pended(case: dict) -> None:
        case["payer_history"]["requests"][0]["status"] = "Pended"
        case["claims"] = []
    task = Task.model_validate(_task(pended))
    auth = build_case(world, task.id, task.case).payer.authorizations[0]
    assert auth.requested_items == (service_rule("72148").records_needed,)
    assert audit_cases(world, [task]).findings == []


def test_a_request_for_a_code_the_rules_do_not_restate_is_counted_not_judged(world):
    def shoulder_surgery(case: dict) -> None:
        case["orders"][0]["code"] = "29827"
        case["claims"][0]["lines"][0]["code"] = "29827"
    report = audit_cases(world, [Task.model_validate(_task(shoulder_surgery))])
    assert report.findings == [] and report.unjudged_codes == {"29827": 1}


def test_the_command_audits_the_cases_and_exits_1_on_a_planted_inconsistency(tmp_path, capsys):
    for path in TASKS_DIR.glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["--tasks-dir", str(tmp_path)]) == 0
    assert "Total inconsistencies in task cases: 0" in capsys.readouterr().out

    (tmp_path / AUTH_ON_FILE.name).write_text(yaml.safe_dump(_task(_denied_on_an_active_date)), encoding="utf-8")
    assert main(["--tasks-dir", str(tmp_path)]) == 1
    printed = capsys.readouterr().out
    assert "Total inconsistencies: 0" in printed  # the world itself stays clean
    assert "Total inconsistencies in task cases: 1" in printed
    assert "! coverage_denial_on_active_date [lumbar_mri] case-denial-auth-on-file" in printed
