"""`admindesk tasks check` on the day's stratified sample, as CI runs it: on every sampled
task the reference passes every deterministic check and guard and every control fails; on
one of them (its workflow turns with the day) the reference also reruns to the same final
state, and skipping any one subtask fails it, the task, and the subtasks depending on it;
each ablation the whole suite's check derives from the reference ends the same live.

The sample changes with the day (9 tasks, one per workflow x difficulty); set
ADMINDESK_CHECK_DAY=YYYY-MM-DD to replay another day's draw. The whole suite is
`admindesk tasks check all --ablate`.
"""
from __future__ import annotations

import os
from datetime import date

import pytest

from admindesk.harness.env.services import available_apps
from admindesk.harness.task_tools.check import check_task, format_row, one_per_workflow, stratified_sample
from admindesk.schema.task_model import load_tasks

# A deep task runs the reference twice, five controls and one ablation per subtask: a dozen
# episodes or more, past the default per-test timeout on a loaded machine.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(1200),
              pytest.mark.skipif(len(available_apps()) < 4, reason="needs the four apps")]

SAMPLE_SIZE = 9
DAY = date.fromisoformat(os.environ.get("ADMINDESK_CHECK_DAY") or date.today().isoformat())
SAMPLE = stratified_sample(load_tasks(), SAMPLE_SIZE, DAY)
DEEP = {one_per_workflow(SAMPLE, DAY)[DAY.toordinal() % 3].id}


@pytest.fixture(scope="module")
def env():
    from admindesk.harness.env.environment import Env

    # As `tasks check` runs: these agents read the page, not the frame (test_reference_episodes
    # draws the frames of a whole reference episode).
    with Env("none") as shared:
        yield shared


@pytest.mark.parametrize("task", SAMPLE, ids=[task.id for task in SAMPLE])
def test_reference_passes_and_every_control_fails(env, task, tmp_path):
    deep = task.id in DEEP
    # Every ablation runs live, and one that the check can derive from the reference's phase
    # end (as the whole suite's check does) must end the same both ways.
    verdict = check_task(env, task, tmp_path, ablate=deep, rerun=deep, live_ablations=deep)
    assert not verdict.problems, format_row(verdict)
