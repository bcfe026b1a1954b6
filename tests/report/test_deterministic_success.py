"""A run without a judge: deterministic success beside end-to-end success in run.json, the
report and the leaderboard, a plain word on unjudged rubric checks and how to judge them,
`admindesk score --judge` writing the judged results back into the run, and unknown prices
shown as unknown."""
from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.cli.run_summary import summary_lines
from admindesk.harness.running.metrics import run_metrics, summarise
from tests.report.run_folders import write_run


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def unjudged_run(tmp_path: Path, tasks_dir: Path) -> Path:
    """A run whose trial 0 did the work and trial 1 nothing, re-scored without a judge (as
    `admindesk run` scores): the working episodes' rubric checks are unjudged."""
    run = write_run(tmp_path / "run", tasks_dir, passes=lambda task_id, trial: trial == 0)
    for folder in run.iterdir():
        if folder.is_dir():
            (folder / "summary.json").write_text(json.dumps({"note": "kept"}), encoding="utf-8")
    result = invoke("score", run, "--tasks-dir", tasks_dir)
    assert result.exit_code == 0, result.output
    return run


def test_a_run_without_a_judge_reads_as_deterministic_success_and_says_how_to_judge(tmp_path, tasks_dir):
    run = unjudged_run(tmp_path, tasks_dir)
    run_json = json.loads((run / "run.json").read_text())
    assert [e["result"] for e in run_json["episodes"]] == ["unjudged", "fail", "unjudged", "fail"]
    assert [e["deterministic_pass"] for e in run_json["episodes"]] == [True, False, True, False]
    assert run_json["metrics"]["e2e_success"] == 0.0 and run_json["metrics"]["deterministic_success"] == 0.5
    summary = json.loads((run / "pa-medium-01-t0/summary.json").read_text())
    assert summary["note"] == "kept" and summary["result"] == "unjudged" and summary["deterministic_pass"]

    text = "\n".join(summary_lines(run_json, run))
    assert re.search(r"deterministic success\s+50% \(2/4\)", text) and re.search(r"end-to-end success\s+0% \(0/4\)", text)
    assert "2 of 4 episode(s) passed every deterministic check and guard" in text
    assert f"admindesk score {run} --judge SPEC" in text and "--judge SPEC" in text

    result = invoke("report", run, "-o", tmp_path / "report")
    assert result.exit_code == 0, result.output
    index = (tmp_path / "report/index.html").read_text()
    assert 'id="card-deterministic"' in index and "50%" in index
    assert 'id="unjudged-note"' in index and f"admindesk score {run} --judge SPEC" in index


def test_score_with_a_judge_writes_the_judged_results_into_run_json(tmp_path, tasks_dir):
    run = unjudged_run(tmp_path, tasks_dir)
    result = invoke("score", run, "--tasks-dir", tasks_dir, "--judge", "tests.unit.fixtures.judges:KeywordJudge")
    assert result.exit_code == 0, result.output
    run_json = json.loads((run / "run.json").read_text())
    assert [e["result"] for e in run_json["episodes"]] == ["pass", "fail", "pass", "fail"]
    assert run_json["metrics"]["e2e_success"] == 0.5 and run_json["versions"]["judge"]
    index_text = "\n".join(summary_lines(run_json, run))
    assert re.search(r"end-to-end success\s+50% \(2/4\)", index_text) and "unjudged" not in index_text


def test_a_model_without_a_price_costs_unknown_not_zero(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    run_json = json.loads((run / "run.json").read_text())
    for line in run_json["episodes"]:
        line.update(cost_usd=None, input_tokens=5000, output_tokens=250)  # the runner's line for an unpriced model
    run_json["metrics"] = run_metrics(run_json["episodes"])
    (run / "run.json").write_text(json.dumps(run_json), encoding="utf-8")
    assert summarise(run_json["episodes"])["n_cost_unknown"] == 4
    assert "cost unknown (4 episode(s) of a model with no price" in "\n".join(summary_lines(run_json, run))

    result = invoke("report", run, "-o", tmp_path / "report")
    assert result.exit_code == 0, result.output
    index = (tmp_path / "report/index.html").read_text()
    card = index.split('id="card-cost"', 1)[1].split("</div></div>", 1)[0]
    assert "unknown" in card and "$0.00" not in card
    viewer = (tmp_path / "report/episodes/pa-medium-01-t0.html").read_text()
    assert "unknown" in viewer


def test_a_priced_model_shows_its_cost(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    run_json = json.loads((run / "run.json").read_text())
    for line in run_json["episodes"]:
        line["cost_usd"] = 0.0625
    run_json["metrics"] = run_metrics(run_json["episodes"])
    assert "cost $0.25" in "\n".join(summary_lines(run_json, run))


def test_the_leaderboard_lists_deterministic_success(tmp_path, tasks_dir):
    submissions = tmp_path / "submissions"
    from tests.report.conftest import write_submission
    write_submission(submissions / "alpha", tasks_dir, agent="alpha", observation="screenshot",
                     passes=lambda task_id, trial: trial == 0)
    result = invoke("leaderboard", "build", submissions, "-o", tmp_path / "site", "--tasks-dir", tasks_dir)
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site/index.html").read_text()
    assert "Deterministic success" in page
    assert '<td class="deterministic">50%</td>' in page


def test_an_honest_run_scored_with_a_judge_is_accepted(tmp_path, tasks_dir):
    """`admindesk run`, then `admindesk score --judge`: run.json follows the new scores, so the
    honest path validates (it was rejected while score left run.json stale)."""
    from admindesk.harness.leaderboard import validate_submission

    run = unjudged_run(tmp_path, tasks_dir)
    result = invoke("score", run, "--tasks-dir", tasks_dir, "--judge", "tests.unit.fixtures.judges:KeywordJudge")
    assert result.exit_code == 0, result.output
    (run / "submission.json").write_text(json.dumps({
        "model": "model-a", "agent": "model-a", "observation": "screenshot", "date": "2026-12-01",
        "contact": "team@example.org"}), encoding="utf-8")
    verdict = validate_submission(run, tasks_dir)
    assert verdict.accepted, verdict.problems


def test_an_api_channel_run_is_not_replayed_and_says_why(tmp_path, tasks_dir):
    from admindesk.harness.leaderboard import validate_submission

    run = unjudged_run(tmp_path, tasks_dir)
    run_json = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**run_json, "channel": "api"}), encoding="utf-8")
    (run / "submission.json").write_text(json.dumps({
        "model": "model-a", "agent": "model-a", "observation": "screenshot", "date": "2026-12-01",
        "contact": "team@example.org"}), encoding="utf-8")
    verdict = validate_submission(run, tasks_dir, replay_workers=1)
    assert not verdict.accepted and verdict.replayed == 0
    assert any("'api' channel" in problem and "cannot be replayed" in problem for problem in verdict.problems)
