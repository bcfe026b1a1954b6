"""`admindesk report` and `admindesk leaderboard build|validate` from the command line."""
from __future__ import annotations

import json

from click.testing import CliRunner

from admindesk.harness.cli.main import main
from tests.report.conftest import write_submission
from tests.report.run_folders import write_run


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_report_writes_an_index_a_viewer_per_episode_and_plotly_beside_it(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    result = invoke("report", run, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    index = (out / "index.html").read_text()
    assert 'src="assets/plotly.min.js"' in index and "cdn" not in index.lower()
    assert (out / "assets/plotly.min.js").stat().st_size > 1_000_000
    viewers = sorted(p.name for p in (out / "episodes").glob("*.html"))
    assert viewers == ["dme-medium-01-t0.html", "dme-medium-01-t1.html", "pa-medium-01-t0.html",
                       "pa-medium-01-t1.html"]
    assert len(list((out / "episodes/pa-medium-01-t0").glob("step-*.png"))) == 6


def test_agent_reasoning_cannot_break_out_of_the_viewer_script(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    trajectory = run / "pa-medium-01-t0/trajectory.jsonl"
    lines = [json.loads(line) for line in trajectory.read_text().splitlines()]
    lines[1]["agent"]["reasoning"] = "</script><script>alert(1)</script>"
    trajectory.write_text("\n".join(json.dumps(line) for line in lines))
    assert invoke("report", run, "-o", tmp_path / "out").exit_code == 0
    page = (tmp_path / "out/episodes/pa-medium-01-t0.html").read_text()
    assert "<script>alert(1)" not in page


def test_several_runs_give_a_comparison(tmp_path, tasks_dir):
    first = write_run(tmp_path / "a", tasks_dir, agent="model-a")
    second = write_run(tmp_path / "b", tasks_dir, agent="model-b", passes=lambda t, n: True)
    result = invoke("report", first, second, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out/index.html").read_text()
    assert "Comparison of 2 runs" in page and 'href="runs/2-model-b/index.html"' in page
    assert (tmp_path / "out/runs/1-model-a/episodes/pa-medium-01-t1.html").exists()


def test_a_broken_run_folder_is_a_clear_error_that_writes_nothing(tmp_path, tasks_dir):
    run = write_run(tmp_path / "run", tasks_dir)
    (run / "pa-medium-01-t0/scores.json").write_text("{broken")
    result = invoke("report", run, "-o", tmp_path / "out")
    assert result.exit_code != 0 and "scores.json: not JSON" in result.output
    assert not (tmp_path / "out").exists()


def test_validate_accepts_and_rejects_with_reasons(submission, tasks_dir):
    result = invoke("leaderboard", "validate", submission, "--tasks-dir", tasks_dir)
    assert result.exit_code == 0 and "accepted (4 episodes re-scored" in result.output
    scores = submission / "dme-medium-01-t1/scores.json"
    scores.write_text(scores.read_text().replace('"outcome": "fail"', '"outcome": "pass"', 1))
    result = invoke("leaderboard", "validate", submission, "--tasks-dir", tasks_dir)
    assert result.exit_code != 0
    assert "dme-medium-01-t1: outcome claimed 'pass', re-scored 'fail'" in result.output


def test_build_lists_accepted_entries_ranked_and_reports_rejected_ones(tmp_path, tasks_dir):
    subs = tmp_path / "subs"
    write_submission(subs / "weak", tasks_dir, agent="weak", observation="axtree", passes=lambda t, n: False)
    write_submission(subs / "strong", tasks_dir, agent="strong", observation="both", passes=lambda t, n: True)
    bad = write_submission(subs / "bad", tasks_dir, agent="bad", observation="both", passes=lambda t, n: False)
    (bad / "submission.json").write_text("{}")
    result = invoke("leaderboard", "build", subs, "-o", tmp_path / "site", "--tasks-dir", tasks_dir)
    assert result.exit_code == 0, result.output
    assert "2 listed, 1 rejected" in result.output and "rejected bad: submission.json does not fit" in result.output
    page = (tmp_path / "site/index.html").read_text()
    assert page.index('data-name="strong"') < page.index('data-name="weak"')
    entry = (tmp_path / "site/entries/strong/index.html").read_text()
    assert 'src="../../assets/plotly.min.js"' in entry  # one plotly.js for the whole site
    assert not (tmp_path / "site/entries/strong/assets").exists()
    assert not (tmp_path / "site/entries/bad").exists()
    strong = subs / "strong/pa-medium-01-t1/scores.json"
    strong.write_text(strong.read_text().replace('"outcome": "pass"', '"outcome": "fail"', 1))
    result = invoke("leaderboard", "build", subs, "-o", tmp_path / "site", "--tasks-dir", tasks_dir)
    assert "1 listed, 2 rejected" in result.output
    assert not (tmp_path / "site/entries/strong").exists()  # rejected now: its old report is gone


def test_build_without_submissions_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    result = invoke("leaderboard", "build", tmp_path / "empty", "-o", tmp_path / "site")
    assert result.exit_code != 0 and "no submission folder" in result.output
    assert not (tmp_path / "site").exists()
