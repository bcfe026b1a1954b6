"""The committed task suite: every file loads and validates, matches its template and case
row, meets the suite's counts, gives no answer away in its goal and guidance, and no task
passes (or waits only on a judge) in its own untouched initial state."""
from __future__ import annotations

import importlib
import re
from collections import Counter, defaultdict

import pytest

from admindesk.envs.common.factory import AppConfig
from admindesk.harness.env.services import APP_NAMES
from admindesk.harness.task_tools.generation import Generator
from admindesk.harness.task_tools.suite import suite_problems, suite_summary, task_row
from admindesk.schema.task_model import TASKS_ROOT, load_tasks
from admindesk.verifiers import score_task
from admindesk.verifiers.records import EpisodeRecord
from tests.app.conftest import TEMPLATE_CACHE, TOKEN
from tests.tasks.suite_files import gaps_in_numbering, task_file_ids

PA_CHALLENGES = {"none", "no_auth_required", "duplicate_on_file", "coverage_termed", "fax_only_payer",
                 "pended_for_info", "wrong_code_on_order", "lookalike_patient", "conflicting_documents",
                 "secondary_payer", "deadline_passed",
                 # the hospital setting or the in-lab sleep study the order asks for, unsupported by the
                 # chart (site_of_care, sleep_home_first)
                 "criteria_not_met"}


@pytest.fixture(scope="module")
def suite():
    return load_tasks(TASKS_ROOT)


def test_every_task_file_validates(suite):
    assert suite, "tasks/ holds no task files"
    assert suite_problems(suite) == []


def test_committed_files_equal_what_generation_gives():
    assert Generator(TASKS_ROOT).differences() == []


def test_prior_auth_counts_and_mix(suite):
    pa = [task for task in suite if task.workflow == "prior_auth"]
    ids = {task.id for task in pa}
    assert ids == task_file_ids("prior_auth") and gaps_in_numbering(ids, "pa") == {}
    assert {task.difficulty for task in pa} == {"easy", "medium", "hard"}
    assert all(task.id.split("-")[1] == task.difficulty for task in pa)
    by_challenge = Counter(task.challenge for task in pa)
    assert set(by_challenge) == PA_CHALLENGES
    # No trap is a one-off: each is set by three tasks or more in the suite (a trap shared with
    # another workflow, such as a window that closed, may have fewer prior-auth tasks).
    in_suite = Counter(task.challenge for task in suite)
    assert min(in_suite[challenge] for challenge in by_challenge) >= 3, by_challenge
    assert sum(not task.feasible for task in pa) >= 0.1 * len(pa)
    summary = suite_summary([task_row(task) for task in pa])
    assert summary["min_checks"] >= 6


def test_each_task_is_a_distinct_case(suite):
    patients = Counter((t.case.patient.first_name, t.case.patient.last_name) for t in suite if t.case)
    assert [name for name, count in patients.items() if count > 1] == []


def test_infeasible_tasks_forbid_any_submission_and_want_the_reason_written(suite):
    for task in (t for t in suite if not t.feasible):
        guarded = {(g.app, g.table) for g in task.guards if g.kind == "no_submission"}
        assert {("payer_portal_a", "pa_requests"), ("payer_portal_b", "precert_requests"),
                ("fax", "outbound_faxes")} <= guarded, task.id
        assert any(c.kind == "rubric" and c.source is not None and "notes" in c.source.query
                   for c in task.checks()), task.id


# A goal is the work item as the queue gives it: queue, service, patient, date of birth (and
# a denial's date of service); only a DME item whose referral goes out separately says so.
WORK_ITEM_GOAL = re.compile(r"Work the (Prior Auth|Denials|DME) queue item for the [\w ,/-]+ of [\w' -]+ "
                            r"\(born \d{4}-\d{2}-\d{2}\)(, date of service \d{4}-\d{2}-\d{2})?\."
                            r"( The supplier referral goes out separately; record on the item which supplier "
                            r"it should go to\.| Renewal due: the current authorization ends \d{4}-\d{2}-\d{2}\.)?")


def test_goals_are_work_items_that_say_nothing_of_the_outcome(suite):
    assert [task.id for task in suite if not WORK_ITEM_GOAL.fullmatch(task.goal)] == []


def test_guidance_is_the_workflows_procedure_whatever_the_case(suite):
    procedures: dict[str, set] = defaultdict(set)
    for task in suite:
        procedures[task.workflow].add(tuple(task.guidance))
    # DME has two: with and without the supplier referral, as the goal scopes the item.
    assert {workflow: len(found) for workflow, found in procedures.items()} == {
        "prior_auth": 1, "appeals": 1, "dme": 2}


@pytest.fixture(scope="module")
def initial_snapshots(tmp_path_factory):
    """task id -> app -> the snapshot a reset for that task gives (apps built in-process)."""
    data = tmp_path_factory.mktemp("suite-initial")
    clients = {}
    for name in APP_NAMES:
        create_app = importlib.import_module(f"admindesk.envs.{name}").create_app
        app = create_app(AppConfig(data_dir=data / name, token=TOKEN, testing=True, tasks_dir=TASKS_ROOT,
                                   cache_dir=TEMPLATE_CACHE))
        clients[name] = app.test_client()

    def snapshots(task) -> dict[str, dict]:
        found = {}
        for name, client in clients.items():
            reset = client.post("/_bench/reset", json={"task": task.id, "now": task.now.isoformat()},
                                headers={"X-Bench-Token": TOKEN})
            assert reset.status_code == 200, reset.get_data(as_text=True)
            found[name] = client.get("/_bench/snapshot", headers={"X-Bench-Token": TOKEN}).get_json()
        return found
    return snapshots


# One test per task, so test workers share the suite (each builds the apps once).
SUITE_IDS = [task.id for task in load_tasks(TASKS_ROOT)]


@pytest.mark.slow
@pytest.mark.parametrize("task_id", SUITE_IDS)
def test_no_task_passes_or_waits_on_a_judge_in_its_initial_state(suite, initial_snapshots, task_id):
    task = next(task for task in suite if task.id == task_id)
    snapshots = initial_snapshots(task)
    record = EpisodeRecord(task_id=task.id, initial_snapshots=snapshots, final_snapshots=snapshots)
    result = score_task(task, record)
    # No check is met before the work is done: each one measures something the agent must do.
    met = [check.id for subtask in result.subtasks for check in subtask.checks if check.result.passed]
    assert result.outcome == "fail" and result.n_checks_passed == 0, (task.id, met)
    # The case's own rows are there: the checks name real records, not missing ones.
    assert any(p["mrn"] == _mrn(task) for p in snapshots["ehr_web"]["patients"]), task.id


def _mrn(task) -> str:
    from admindesk.schema.case_ids import case_values
    return case_values(task)["ids"]["mrn"]
