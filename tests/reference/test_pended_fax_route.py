"""A pend answered by fax, the way the payer's letter allows, is credited end to end: the
reference's fax route (the document faxed to the number the pend came from, the case
number on the cover sheet) passes every deterministic check and guard of the task."""
from __future__ import annotations

import pytest

from admindesk.harness.env.services import available_apps
from admindesk.harness.running import local as runner_local
from admindesk.schema.task_model import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(len(available_apps()) < 4, reason="needs the four apps")]

TASK = "pa-hard-20"


@pytest.fixture(scope="module")
def env():
    from admindesk.harness.env.environment import Env

    with Env("screenshot") as shared:
        yield shared


def test_the_pend_answered_by_fax_passes_every_check(env, tmp_path):
    task = next(task for task in load_tasks() if task.id == TASK)
    outcome = runner_local.run("reference", [task], tmp_path, agent_options={"route": "fax"}, env=env,
                               keep_screenshots=False)[0]
    failed = [f"{check.id}: {check.result.explanation}" for subtask in outcome.score.subtasks
              for check in subtask.checks if check.deterministic and not check.result.passed]
    failed += [f"{guard.id}: {guard.result.explanation}" for guard in outcome.score.guards if not guard.result.passed]
    assert not failed, (outcome.summary, failed)
    assert outcome.summary.result == "unjudged"  # only the rubrics, which await a judge, are left


def test_a_route_the_solution_does_not_offer_is_refused(env, tmp_path):
    task = next(task for task in load_tasks() if task.id == TASK)
    outcome = runner_local.run("reference", [task], tmp_path, agent_options={"route": "carrier pigeon"}, env=env,
                               keep_screenshots=False)[0]
    assert "no route 'carrier pigeon'" in (outcome.summary.error or "")
