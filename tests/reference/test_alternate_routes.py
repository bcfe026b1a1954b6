"""A second correct route a task credits, proven end to end: the reference's other route passes
every deterministic check and guard of its task.
- pa-hard-20: a pend answered by fax, the way the payer's letter allows (the document faxed to
  the number the pend came from, the case number on the cover sheet);
- appeal-easy-11: a CO-197 on a claim sent without the number of an authorization that covers
  it, answered by a reconsideration citing the order's authorization (which the payer overturns
  at filing) where the suite's check proves the corrected claim."""
from __future__ import annotations

import pytest

from admindesk.harness.env.services import available_apps
from admindesk.harness.running import local as runner_local
from admindesk.schema.task_model import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(len(available_apps()) < 4, reason="needs the four apps")]


@pytest.fixture(scope="module")
def env():
    from admindesk.harness.env.environment import Env

    # As `tasks check` runs: these agents read the page, not the frame (test_reference_episodes
    # draws the frames of a whole reference episode).
    with Env("none") as shared:
        yield shared


def run_route(env, tmp_path, task_id: str, route: str):
    task = next(task for task in load_tasks() if task.id == task_id)
    return runner_local.run("reference", [task], tmp_path, agent_options={"route": route}, env=env,
                            keep_screenshots=False)[0]


@pytest.mark.parametrize("task_id, route", [("pa-hard-20", "fax"), ("appeal-easy-11", "reconsideration")])
def test_the_other_route_passes_every_check(env, tmp_path, task_id, route):
    outcome = run_route(env, tmp_path, task_id, route)
    failed = [f"{check.id}: {check.result.explanation}" for subtask in outcome.score.subtasks
              for check in subtask.checks if check.deterministic and not check.result.passed]
    failed += [f"{guard.id}: {guard.result.explanation}" for guard in outcome.score.guards if not guard.result.passed]
    assert not failed, (outcome.summary, failed)
    assert outcome.summary.result == "unjudged"  # only the rubrics, which await a judge, are left


def test_a_route_the_solution_does_not_offer_is_refused(env, tmp_path):
    outcome = run_route(env, tmp_path, "pa-hard-20", "carrier pigeon")
    assert "no route 'carrier pigeon'" in (outcome.summary.error or "")
