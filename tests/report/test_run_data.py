"""Reading run folders back: agent notes from either file, the parallel runner's richer
run.json lines, and episodes that errored before anything was recorded."""
from __future__ import annotations

import json
import re

import pytest

from admindesk.harness.report import RunFolderError, load_run, write_report
from tests.report.run_folders import REASONING, write_run


def rewrite_run_json(run, change):
    data = json.loads((run / "run.json").read_text())
    change(data)
    (run / "run.json").write_text(json.dumps(data))


def test_reasoning_comes_from_the_record_when_the_trajectory_file_lacks_it(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    trajectory = run / "pa-medium-01-t0/trajectory.jsonl"
    lines = [json.loads(line) for line in trajectory.read_text().splitlines()]
    trajectory.write_text("\n".join(json.dumps({k: v for k, v in line.items() if k != "agent"}) for line in lines))
    episode = load_run(run).episodes[0]
    assert [step.reasoning for step in episode.steps[1:]] == REASONING
    assert episode.cost_usd == pytest.approx(5 * 0.0125)


def test_the_parallel_runners_line_fields_win(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    rewrite_run_json(run, lambda d: d["episodes"][0].update(cost_usd=1.5, workflow="appeals"))
    row = load_run(run).episodes[0].metrics_row()
    assert (row["cost_usd"], row["workflow"], row["challenge"]) == (1.5, "appeals", "lookalike_patient")


def test_an_episode_that_errored_before_recording_gets_a_viewer_with_its_error(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    folder = run / "dme-medium-01-t1"
    for item in folder.iterdir():
        item.unlink()
    folder.rmdir()
    rewrite_run_json(run, lambda d: d["episodes"][3].update(result="error", error="ServiceError: ehr_web down"))
    write_report([run], tmp_path / "out")
    page = (tmp_path / "out/episodes/dme-medium-01-t1.html").read_text()
    assert "ServiceError: ehr_web down" in page and "No trajectory was recorded" in page


@pytest.mark.parametrize("content, message", [
    (None, "no run.json (not a run folder)"),
    ('{"agent": "x"}', "no `episodes` list"),
    ('{"episodes": [{"task_id": "a"}]}', "episodes[0].trial: Field required"),
])
def test_a_folder_that_is_not_a_run_is_a_clear_error(tmp_path, content, message):
    if content is not None:
        (tmp_path / "run.json").write_text(content)
    with pytest.raises(RunFolderError, match=re.escape(message)):
        load_run(tmp_path)


def test_checks_link_to_the_step_where_their_evidence_was_made(tmp_path, tasks_dir):
    from admindesk.harness.report.build import evidence_steps

    episode = load_run(write_run(tmp_path / "run", tasks_dir)).episodes[0]
    episode.steps[3].url = "http://127.0.0.1:5101/orders/ORD-0123400?tab=documents"
    audit = episode.score.subtasks[0].checks[0]
    assert audit.kind == "audit"
    audit.result.evidence["hits"] = ["/orders/ORD-0123400"]
    found = evidence_steps(episode)
    # The audit hit is the page first shown at step 3; the answer was given on screen 4
    # (the done action made step 5); the other checks read final state, not a step.
    assert found == {audit.id: 3, episode.score.subtasks[-1].checks[0].id: 4}
