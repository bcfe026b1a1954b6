"""A CO-197 on a claim sent without the number of an authorization that covers it is credited
either way the payer's manual allows: the reference's reconsideration route (citing the order's
authorization, which the payer overturns at filing) passes every deterministic check and guard
of the task, as its corrected-claim route does in the suite's check."""
from __future__ import annotations

import pytest

from admindesk.harness.env.services import available_apps
from admindesk.harness.running import local as runner_local
from admindesk.schema.task_model import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(len(available_apps()) < 4, reason="needs the four apps")]

TASK = "appeal-easy-11"


@pytest.fixture(scope="module")
def env():
    from admindesk.harness.env.environment import Env

    with Env("screenshot") as shared:
        yield shared


def test_the_reconsideration_citing_the_authorization_passes_every_check(env, tmp_path):
    task = next(task for task in load_tasks() if task.id == TASK)
    outcome = runner_local.run("reference", [task], tmp_path, agent_options={"route": "reconsideration"}, env=env,
                               keep_screenshots=False)[0]
    failed = [f"{check.id}: {check.result.explanation}" for subtask in outcome.score.subtasks
              for check in subtask.checks if check.deterministic and not check.result.passed]
    failed += [f"{guard.id}: {guard.result.explanation}" for guard in outcome.score.guards if not guard.result.passed]
    assert not failed, (outcome.summary, failed)
    assert outcome.summary.result == "unjudged"  # only the rubrics, which await a judge, are left
