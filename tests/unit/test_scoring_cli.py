"""`admindesk score`: scores.json beside each record, a table, clear errors that write nothing."""
import json

import pytest
import yaml
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.verifiers.record_files import write_record
from tests.unit.fixtures.episodes import good_record, task_data, untouched_record


@pytest.fixture
def run_dir(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "pa-medium-01.yaml").write_text(yaml.safe_dump(task_data()), encoding="utf-8")
    run = tmp_path / "run"
    (run / "ep-good").mkdir(parents=True)
    write_record(run / "ep-good", good_record())
    # A folder written before records were compressed: its plain record.json is still read.
    (run / "ep-noop").mkdir()
    (run / "ep-noop" / "record.json").write_text(untouched_record().model_dump_json(), encoding="utf-8")
    return tmp_path


def score(*args):
    return CliRunner().invoke(main, ["score", *map(str, args)])


def test_scores_every_record_of_a_run(run_dir):
    result = score(run_dir / "run", "--tasks-dir", run_dir / "tasks")
    assert result.exit_code == 0, result.output
    good = json.loads((run_dir / "run/ep-good/scores.json").read_text())
    noop = json.loads((run_dir / "run/ep-noop/scores.json").read_text())
    assert (good["outcome"], noop["outcome"]) == ("unjudged", "fail")
    assert "pa-medium-01" in result.output and '"total": 2' in result.output


def test_a_judge_spec_judges_rubrics(run_dir):
    record = run_dir / "run/ep-good/record.json.gz"
    result = score(record, "--tasks-dir", run_dir / "tasks", "--judge", "tests.unit.fixtures.judges:make_judge")
    assert result.exit_code == 0, result.output
    assert json.loads((record.parent / "scores.json").read_text())["outcome"] == "pass"


@pytest.mark.parametrize("record_text, message", [
    (None, "no such file or folder"),
    ("{not json", "record.json: not JSON (Expecting property name"),
    ('{"task_id": "pa-easy-99"}', "no task pa-easy-99"),
])
def test_bad_input_is_a_clear_error_and_writes_nothing(run_dir, record_text, message):
    target = run_dir / "nowhere"
    if record_text is not None:
        (run_dir / "run/ep-noop/record.json").write_text(record_text)
        target = run_dir / "run"
    result = score(target, "--tasks-dir", run_dir / "tasks")
    assert result.exit_code != 0 and message in result.output, result.output
    assert not list((run_dir / "run").glob("*/scores.json"))


def test_a_truncated_compressed_record_is_a_clear_error_and_writes_nothing(run_dir):
    record = run_dir / "run/ep-good/record.json.gz"
    record.write_bytes(record.read_bytes()[:-20])
    result = score(run_dir / "run", "--tasks-dir", run_dir / "tasks")
    assert result.exit_code != 0 and "record.json.gz: not a complete gzip file" in result.output, result.output
    assert not list((run_dir / "run").glob("*/scores.json"))


def test_a_bad_judge_spec_is_a_clear_error(run_dir):
    result = score(run_dir / "run", "--tasks-dir", run_dir / "tasks", "--judge", "nope")
    assert result.exit_code != 0 and "not module:attribute" in result.output
