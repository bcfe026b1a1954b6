"""A held-out split drawn for the day, checked as the public sample is: on one new task (its
workflow turns with the day) the reference passes every deterministic check and guard and
every control fails.

The split's seed is the day (ADMINDESK_CHECK_DAY=YYYY-MM-DD replays one), so CI meets new
cases every day; the whole proof of a split is `admindesk tasks check all --tasks-dir DIR`.
"""
from __future__ import annotations

import os
import random
from datetime import date

import pytest

from admindesk.harness.env.services import available_apps
from admindesk.harness.task_tools.check import check_task, format_row
from admindesk.harness.task_tools.splits.generate import write_split
from admindesk.schema.task_model import load_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(len(available_apps()) < 4, reason="needs the four apps")]

DAY = date.fromisoformat(os.environ.get("ADMINDESK_CHECK_DAY") or date.today().isoformat())
WORKFLOWS = ("prior_auth", "appeals", "dme")


@pytest.fixture(scope="module")
def split_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("split") / f"daily-{DAY:%Y%m%d}"
    write_split(folder, f"daily-{DAY:%Y%m%d}", DAY.toordinal(), per_template=1)
    return folder


@pytest.fixture(scope="module")
def env(split_dir):
    from admindesk.harness.env.environment import Env

    # As `tasks check` runs: these agents read the page, not the frame (test_reference_episodes
    # draws the frames of a whole reference episode).
    with Env("none", tasks_dir=split_dir) as shared:
        yield shared


def test_reference_passes_a_new_case_and_every_control_fails(env, split_dir, tmp_path):
    workflow = WORKFLOWS[DAY.toordinal() % len(WORKFLOWS)]
    candidates = [task for task in load_tasks(split_dir) if task.workflow == workflow]
    task = random.Random(f"{DAY} {workflow}").choice(candidates)
    verdict = check_task(env, task, tmp_path, ablate=False)
    assert not verdict.problems, format_row(verdict)
