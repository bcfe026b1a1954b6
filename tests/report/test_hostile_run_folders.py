"""`admindesk report` over a run folder that lies about its files: paths out of the folder,
wrong types, a named pipe. Each is a clear error naming the file and the field, and the
report writes nothing (in particular, nothing from outside the run folder)."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from tests.report.hostile_submissions import SECRET
from tests.report.run_folders import write_run

EPISODE = "pa-medium-01-t0"


def report(run, out):
    return CliRunner().invoke(main, ["report", str(run), "-o", str(out)])


def edit_trajectory(run, number, change):
    path = run / EPISODE / "trajectory.jsonl"
    lines = path.read_text().splitlines()
    lines[number - 1] = json.dumps(change(json.loads(lines[number - 1])))
    path.write_text("\n".join(lines) + "\n")


def edit_first_line(run, change):
    data = json.loads((run / "run.json").read_text())
    change(data["episodes"][0])
    (run / "run.json").write_text(json.dumps(data))


@pytest.fixture
def run(tmp_path, tasks_dir):
    return write_run(tmp_path / "runs" / "run", tasks_dir)


@pytest.mark.parametrize("screenshot", ["../../secret.txt", "../../../../../../../../secret.txt", "/etc/hostname",
                                        "sub/step-001.png"])
def test_a_screenshot_outside_its_episode_folder_is_refused(run, tmp_path, screenshot):
    (tmp_path / "runs" / "secret.txt").write_text(SECRET)  # what ../../ from an episode folder reaches
    edit_trajectory(run, 2, lambda entry: {**entry, "screenshot": screenshot})
    result = report(run, tmp_path / "out")
    assert result.exit_code == 1
    assert (f"{EPISODE}/trajectory.jsonl:2: screenshot: '{screenshot}' is not a file name in the episode folder"
            in result.output), result.output
    assert not (tmp_path / "out").exists()
    assert [path for path in tmp_path.rglob("secret.txt")] == [tmp_path / "runs" / "secret.txt"]


@pytest.mark.parametrize("change, message", [
    (lambda entry: "click the search box", "trajectory.jsonl:3: (top level): Input should be a valid dictionary"),
    (lambda entry: {**entry, "step": "three"}, "trajectory.jsonl:3: step: Input should be a valid integer"),
    (lambda entry: {**entry, "url": ["http://x"]}, "trajectory.jsonl:3: url: Input should be a valid string"),
    (lambda entry: {**entry, "agent": {"usage": {"input_tokens": "many"}}},
     "trajectory.jsonl:3: agent.usage.input_tokens: Input should be a valid integer"),
    (lambda entry: {**entry, "agent": {"usage": {"cost_usd": [1]}}},
     "trajectory.jsonl:3: agent.usage.cost_usd: Input should be a valid number"),
])
def test_a_trajectory_entry_of_the_wrong_shape_is_a_clear_error(run, tmp_path, change, message):
    edit_trajectory(run, 3, change)
    result = report(run, tmp_path / "out")
    assert result.exit_code == 1 and message in result.output, result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("change, message", [
    (lambda line: line.update(folder="../other/pa-medium-01-t0"),
     "run.json: episodes[0].folder: '../other/pa-medium-01-t0' is not a folder name in the run folder"),
    (lambda line: line.update(folder=None, task_id="../../x"),
     "run.json: episodes[0]: '../../x-t0' is not a folder name in the run folder"),
    (lambda line: line.update(cost_usd="abc"), "run.json: episodes[0].cost_usd: Input should be a valid number"),
    (lambda line: line.update(subtask_pass_rate=[1]),
     "run.json: episodes[0].subtask_pass_rate: Input should be a valid number"),
    (lambda line: line.update(categories={"lookup": [1, 0]}),
     "run.json: episodes[0].categories: category 'lookup' is not [passed, total]"),
    (lambda line: line.update(result="won"), "run.json: episodes[0].result: Input should be 'pass'"),
])
def test_a_run_json_line_of_the_wrong_shape_is_a_clear_error(run, tmp_path, change, message):
    edit_first_line(run, change)
    result = report(run, tmp_path / "out")
    assert result.exit_code == 1 and message in result.output, result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", ["trajectory.jsonl", "step-002.png", "scores.json"])
def test_a_named_pipe_in_an_episode_folder_is_a_clear_error(run, tmp_path, name):
    (run / EPISODE / name).unlink()
    os.mkfifo(run / EPISODE / name)
    result = report(run, tmp_path / "out")
    assert result.exit_code == 1 and f"{EPISODE}/{name}: not a regular file" in result.output, result.output


def test_nan_in_a_scores_file_is_a_clear_error(run, tmp_path):
    scores = run / EPISODE / "scores.json"
    scores.write_text(scores.read_text().replace('"subtask_pass_rate": 1.0', '"subtask_pass_rate": NaN', 1))
    result = report(run, tmp_path / "out")
    assert result.exit_code == 1 and "scores.json: not JSON this reader accepts (NaN" in result.output, result.output
