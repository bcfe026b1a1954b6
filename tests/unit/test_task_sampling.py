"""The day's stratified sample that CI checks: every workflow x difficulty cell, spread over
templates, the same all day and different across days; and the check command's refusals."""
from __future__ import annotations

from datetime import date, timedelta

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.task_tools.check import one_per_workflow, stratified_sample
from admindesk.schema.task_model import load_tasks

DAYS = [date(2026, 12, 1) + timedelta(days=n) for n in range(20)]


@pytest.fixture(scope="module")
def suite():
    return load_tasks()


def cells(tasks):
    return {(task.workflow, task.difficulty) for task in tasks}


@pytest.mark.parametrize("day", DAYS[:5])
def test_the_sample_covers_every_cell_without_repeats(suite, day):
    sample = stratified_sample(suite, 12, day)
    assert len(sample) == len({task.id for task in sample}) == 12
    assert cells(sample) == cells(suite)
    assert len({task.template for task in sample}) >= 10  # spread over the solutions too
    assert [task.id for task in sample] == [task.id for task in suite if task in sample]  # suite order


def test_the_sample_is_fixed_for_a_day_and_changes_across_days(suite):
    assert stratified_sample(suite, 12, DAYS[0]) == stratified_sample(suite, 12, DAYS[0])
    draws = {tuple(task.id for task in stratified_sample(suite, 12, day)) for day in DAYS}
    assert len(draws) >= 15
    # Over six weeks CI walks most of the suite (the draw favours templates not drawn yet, so
    # tasks of the large templates come up less often).
    six_weeks = [DAYS[0] + timedelta(days=n) for n in range(42)]
    covered = {task.id for day in six_weeks for task in stratified_sample(suite, 12, day)}
    assert len(covered) >= 0.85 * len(suite)


def test_a_small_sample_still_takes_every_cell_and_a_large_one_is_the_suite(suite):
    assert cells(stratified_sample(suite, 3, DAYS[0])) == cells(suite)
    assert sorted(t.id for t in stratified_sample(suite, 500, DAYS[0])) == sorted(t.id for t in suite)


def test_one_task_per_workflow_is_ablated(suite):
    sample = stratified_sample(suite, 12, DAYS[0])
    deep = one_per_workflow(sample, DAYS[0])
    assert sorted(task.workflow for task in deep) == ["appeals", "dme", "prior_auth"]
    assert all(task in sample for task in deep)


@pytest.mark.parametrize("arguments, message", [
    (["--sample", "0"], "0 is not in the range x>=1"),
    (["--sample", "12", "--day", "2026-13-01"], "'2026-13-01' does not match the format '%Y-%m-%d'"),
    (["workflow=billing"], "no task matches 'workflow=billing'"),
    (["nope-01"], "no task nope-01"),
])
def test_the_check_command_refuses_bad_arguments_before_running_anything(arguments, message):
    result = CliRunner().invoke(main, ["tasks", "check", *arguments])
    assert result.exit_code != 0 and message in result.output
