"""The charts' figures hold the run's numbers (read off the plotly figure objects)."""
from __future__ import annotations

import pytest

from admindesk.harness.report import charts, load_run
from tests.report.run_folders import write_run


@pytest.fixture
def run(tmp_path, tasks_dir):
    # pa-medium-01 passes both trials, dme-medium-01 neither.
    return load_run(write_run(tmp_path / "run", tasks_dir, passes=lambda task_id, trial: task_id.startswith("pa")))


def test_by_workflow_gives_success_and_subtask_rate_per_workflow(run):
    rows = [episode.metrics_row() for episode in run.episodes]
    e2e, subtasks = charts.by_group(rows, "workflow", "By workflow").data
    assert list(e2e.x) == ["dme", "prior_auth"] and list(e2e.y) == [0.0, 1.0]
    assert list(subtasks.y) == [0.0, 1.0]


def test_first_failing_counts_failures_by_subtask_and_category(run):
    (bars,) = charts.first_failing(run.episodes).data
    assert (bars.name, list(bars.y), list(bars.x)) == ("information_retrieval", ["review"], [2])


def test_guards_count_the_episodes_that_triggered_each_kind(run):
    scored = run.episodes[0].score
    scored.guards[0].result.passed = False
    (bars,) = charts.guards(run.episodes).data
    assert (list(bars.x), list(bars.y)) == ([scored.guards[0].kind], [1])


def test_an_empty_chart_says_why(run):
    figure = charts.guards(run.episodes)
    assert list(figure.data[0].x) == [] and figure.layout.annotations[0].text == "no guard was triggered"


def test_cost_performance_places_each_run_at_its_mean_cost_and_success(run):
    rows = [episode.metrics_row() for episode in run.episodes]
    (point,) = charts.cost_performance([run], [rows], "cost_usd", "mean cost").data
    assert list(point.x) == [pytest.approx(0.0625)] and list(point.y) == [0.5]
