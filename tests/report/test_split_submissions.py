"""Held-out splits on the leaderboard: a held-out submission is checked against the
maintainers' copy of its split (same task files, scores re-computed there); a split they do
not hold, or another one under the same name, is rejected; the site puts an agent's public
and held-out results side by side."""
from __future__ import annotations

import html
import json
import re
import shutil

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.leaderboard import build_site, validate_submission
from admindesk.harness.leaderboard.splits import SplitCatalog
from admindesk.harness.task_tools.splits.withheld import write_public_copy
from admindesk.schema.task_model import TASKS_ROOT, TaskFileError, load_tasks
from tests.report.conftest import write_submission
from tests.report.run_folders import write_tasks

SPLIT = "h-1"


@pytest.fixture(scope="module")
def split_dir(tmp_path_factory):
    """The maintainers' copy of held-out split h-1, whose seed they keep private."""
    return write_tasks(tmp_path_factory.mktemp("maintainers") / SPLIT, SPLIT, seed=None)


@pytest.fixture
def held_out(tmp_path, split_dir):
    """A clean held-out submission of agent alpha, run over the submitter's copy of the split."""
    submitters_copy = shutil.copytree(split_dir, tmp_path / "submitter-split")
    return write_submission(tmp_path / "alpha-h-1", submitters_copy, agent="alpha", observation="screenshot",
                            passes=lambda task_id, trial: True)


def test_a_held_out_submission_is_accepted_against_the_maintainers_copy(held_out, tasks_dir, split_dir):
    run = json.loads((held_out / "run.json").read_text())
    assert run["split"]["name"] == SPLIT and run["split"]["seed"] is None
    assert run["tasks"] == ["pa-medium-01@h-1", "dme-medium-01@h-1"]
    verdict = validate_submission(held_out, tasks_dir, splits=SplitCatalog.from_dirs([split_dir]))
    assert verdict.accepted, verdict.problems
    assert verdict.n_episodes == 4 and verdict.split == run["split"]


def test_a_split_the_maintainers_do_not_hold_is_rejected(held_out, tasks_dir):
    verdict = validate_submission(held_out, tasks_dir)
    assert verdict.problems == ["held-out split 'h-1' is unknown to the maintainers (splits held: none; "
                                "pass its folder with --split-dir)"]


def test_another_split_under_the_same_name_is_rejected(held_out, tasks_dir, tmp_path):
    # The maintainers' h-1 was drawn with another seed: other task files, other hashes.
    theirs = write_tasks(tmp_path / "theirs", SPLIT, seed=12345)
    problems = validate_submission(held_out, tasks_dir, splits=SplitCatalog.from_dirs([theirs])).problems
    assert len(problems) == 1 and problems[0].startswith("run.json split 'h-1' has seed_sha256 ")
    assert problems[0].endswith("not the same split")
    run = held_out / "run.json"
    data = json.loads(run.read_text())
    data["split"]["tasks_sha256"] = "0" * 64
    run.write_text(json.dumps(data))
    problems = validate_submission(held_out, tasks_dir, splits=SplitCatalog.from_dirs([tmp_path / "theirs"])).problems
    assert any(p.startswith("run.json split 'h-1' has tasks_sha256 000000000000...") for p in problems), problems


def test_held_out_scores_are_recomputed_against_the_split(held_out, tasks_dir, split_dir):
    scores = held_out / "dme-medium-01@h-1-t1/scores.json"
    scores.write_text(scores.read_text().replace('"outcome": "pass"', '"outcome": "fail"', 1))
    problems = validate_submission(held_out, tasks_dir, splits=SplitCatalog.from_dirs([split_dir])).problems
    assert problems == ["dme-medium-01@h-1-t1: outcome claimed 'fail', re-scored 'pass'"]


def test_a_run_over_a_custom_folder_or_a_malformed_split_is_rejected(submission, tasks_dir):
    run = submission / "run.json"
    data = json.loads(run.read_text())
    data["split"] = {"name": "custom", "seed": None, "seed_sha256": None, "tasks_sha256": None}
    run.write_text(json.dumps(data))
    assert "neither the public suite nor a generated split" in validate_submission(submission, tasks_dir).problems[0]
    data["split"] = "public"
    run.write_text(json.dumps(data))
    assert validate_submission(submission, tasks_dir).problems == ["run.json split is not an object naming the split"]


def test_the_catalog_reads_folders_of_splits_and_refuses_broken_copies(tmp_path, split_dir):
    parent = tmp_path / "splits"
    shutil.copytree(split_dir, parent / SPLIT)
    write_tasks(parent / "h-2", "h-2", seed=2)
    catalog = SplitCatalog.from_dirs([parent])
    assert sorted(catalog.splits) == ["h-1", "h-2"] and catalog.get("h-1").seed_private
    assert not catalog.get("h-2").seed_private
    with pytest.raises(ValueError, match="two split folders are split 'h-1'"):
        SplitCatalog.from_dirs([parent, split_dir])
    edited = parent / "h-2" / "pa-medium-01@h-2.yaml"
    edited.write_text(edited.read_text() + "\n# edited\n")
    with pytest.raises(ValueError, match=r"broken: .*h-2: the task files are not the ones split.json lists "
                                         r"\(edited: pa-medium-01@h-2\)"):
        SplitCatalog.from_dirs([parent])
    with pytest.raises(ValueError, match="neither a split folder nor a folder of split folders"):
        SplitCatalog.from_dirs([tmp_path])


def test_the_site_puts_public_and_held_out_results_side_by_side(tmp_path, tasks_dir, split_dir):
    subs = tmp_path / "subs"
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="screenshot", passes=lambda t, n: n == 0)
    write_submission(subs / "alpha-h-1", split_dir, agent="alpha", observation="screenshot", passes=lambda t, n: False)
    write_submission(subs / "beta", tasks_dir, agent="beta", observation="both", passes=lambda t, n: True)
    write_submission(subs / "gamma-h-1", split_dir, agent="gamma", observation="axtree", passes=lambda t, n: True)
    unknown = write_tasks(tmp_path / "unknown-split", "h-9", seed=9)
    write_submission(subs / "delta-h-9", unknown, agent="delta", observation="axtree", passes=lambda t, n: True)
    site = build_site(subs, tmp_path / "site", tasks_dir, splits=SplitCatalog.from_dirs([split_dir]))

    assert [(row.lead.name, row.public and row.public.name, sorted(row.held_out)) for row in site.rows] == [
        ("beta", "beta", []), ("alpha", "alpha", ["h-1"]), ("gamma-h-1", None, ["h-1"])]
    assert site.rows[1].held_out["h-1"].name == "alpha-h-1"
    assert [verdict.name for verdict in site.rejected] == ["delta-h-9"]
    assert "held-out split 'h-9' is unknown to the maintainers" in site.rejected[0].problems[0]
    page = html.unescape(site.index.read_text())
    assert "Public e2e success" in page and "Held-out e2e (h-1, private seed)" in page
    alpha = re.search(r'<tr data-observation="screenshot"[^>]*data-name="alpha"[^>]*>(.*?)</tr>', page, re.S).group(1)
    assert re.findall(r'class="(?:e2e|heldout-e2e)">(\d+%)', alpha) == ["50%", "0%"]  # public 2/4, held-out 0/4
    assert 'href="entries/alpha/index.html"' in alpha and 'href="entries/alpha-h-1/index.html"' in alpha
    gamma = re.search(r'data-name="gamma-h-1"[^>]*>(.*?)</tr>', page, re.S).group(1)
    assert "no public entry" in gamma and 'class="heldout-e2e">100%' in gamma
    assert "delta-h-9</strong>: held-out split 'h-9' is unknown" in page
    assert (tmp_path / "site/entries/alpha-h-1/index.html").is_file()


def test_the_cli_takes_split_dirs(tmp_path, held_out, tasks_dir, split_dir):
    runner = CliRunner()
    result = runner.invoke(main, ["leaderboard", "validate", str(held_out), "--tasks-dir", str(tasks_dir),
                                  "--split-dir", str(split_dir)])
    assert result.exit_code == 0 and "held-out split h-1 (private seed)" in result.output, result.output
    result = runner.invoke(main, ["leaderboard", "validate", str(held_out), "--tasks-dir", str(tasks_dir)])
    assert result.exit_code == 1 and "held-out split 'h-1' is unknown" in result.output
    (tmp_path / "empty").mkdir()
    result = runner.invoke(main, ["leaderboard", "build", str(held_out.parent), "-o", str(tmp_path / "site"),
                                  "--tasks-dir", str(tasks_dir), "--split-dir", str(tmp_path / "empty")])
    assert result.exit_code == 1 and "neither a split folder nor a folder of split folders" in result.output
    assert not (tmp_path / "site").exists()


def test_a_run_over_the_public_copy_is_scored_with_the_maintainers_copy(tmp_path, tasks_dir, split_dir):
    """The submitter runs the public copy (no checks, no trap named); the maintainers score the
    run with their complete copy, and it is then accepted against that copy."""
    theirs = shutil.copytree(split_dir, tmp_path / "maintainers" / SPLIT)
    public = tmp_path / "public"
    info = write_public_copy(theirs, public)
    tasks = load_tasks(public)
    assert tasks and all(t.checks_withheld and not t.subtasks and not t.guards and t.challenge == "none"
                         for t in tasks)
    assert "subtasks" not in (public / "pa-medium-01@h-1.yaml").read_text()
    assert json.loads((theirs / "split.json").read_text())["public_tasks_sha256"] == info.tasks_sha256
    run = write_submission(tmp_path / "alpha-h-1", public, agent="alpha", observation="screenshot",
                           passes=lambda task_id, trial: True)
    lines = json.loads((run / "run.json").read_text())["episodes"]
    assert {line["result"] for line in lines} == {"fail"}  # no checks: the submitter cannot score it
    catalog = SplitCatalog.from_dirs([theirs])
    assert any("re-scored" in p for p in validate_submission(run, tasks_dir, splits=catalog).problems)
    result = CliRunner().invoke(main, ["score", str(run), "--tasks-dir", str(theirs)])
    assert result.exit_code == 0, result.output
    verdict = validate_submission(run, tasks_dir, splits=catalog)
    assert verdict.accepted, verdict.problems
    assert {line["result"] for line in json.loads((run / "run.json").read_text())["episodes"]} != {"fail"}


def test_a_withheld_task_file_listing_checks_is_refused(tmp_path):
    text = (TASKS_ROOT / "prior_auth" / "pa-easy-01.yaml").read_text() + "checks_withheld: true\n"
    (tmp_path / "t.yaml").write_text(text)
    with pytest.raises(TaskFileError, match="withheld lists no subtasks or guards"):
        load_tasks(tmp_path)
