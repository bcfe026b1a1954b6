"""`leaderboard build` over the hostile corpus (hostile_submissions) beside honest
submissions: each hostile one is refused with its reason, the build goes on, the site lists
the honest entries only, and nothing from outside a submission reaches the site."""
from __future__ import annotations

import html
import re

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.leaderboard import validate_submission
from tests.report.conftest import write_submission
from tests.report.hostile_submissions import EPISODE, SECRET, write_corpus


@pytest.fixture(scope="module")
def board(tmp_path_factory, tasks_dir):
    """The corpus beside three honest submissions (one of them copied by `copycat`), and the
    output of building the board over them all."""
    root = tmp_path_factory.mktemp("board")
    subs = root / "subs"
    victim = write_submission(subs / "victim", tasks_dir, agent="victim", observation="screenshot",
                              passes=lambda task_id, trial: trial == 0)
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="axtree",
                     passes=lambda task_id, trial: trial == 0)
    write_submission(subs / "beta", tasks_dir, agent="beta", observation="both", passes=lambda task_id, trial: True)
    corpus = write_corpus(subs, tasks_dir, victim)
    result = CliRunner().invoke(main, ["leaderboard", "build", str(subs), "-o", str(root / "site"),
                                       "--tasks-dir", str(tasks_dir)])
    return root, corpus, result


@pytest.mark.timeout(900)
def test_each_hostile_submission_is_refused_with_its_reason(board):
    root, corpus, result = board
    assert result.exit_code == 0, result.output
    assert f"2 listed, {len(corpus)} rejected" in result.output
    lines = result.output.splitlines()
    for hostile in corpus:
        refusal = [line for line in lines if line.startswith(f"rejected {hostile.name}: ")]
        assert len(refusal) == 1 and hostile.reason in refusal[0], (hostile, refusal)
    page = html.unescape((root / "site/index.html").read_text())
    for hostile in corpus:
        assert f"{hostile.name}</strong>: " in page and hostile.reason in page, hostile


def test_the_honest_entries_are_built_and_nothing_else(board):
    root, corpus, _ = board
    page = (root / "site/index.html").read_text()
    listed = re.findall(r'<tr data-observation="[^"]*"[^>]*data-name="([^"]+)"', page)
    assert listed == ["beta", "alpha"]  # ranked: beta passes every episode, alpha half
    assert sorted(path.name for path in (root / "site/entries").iterdir()) == ["alpha", "beta"]
    assert len(list((root / "site/entries/alpha/episodes" / EPISODE).glob("step-*.png"))) == 6
    leaked = [path for path in (root / "site").rglob("*") if path.is_file() and SECRET.encode() in path.read_bytes()]
    assert leaked == []


def test_copied_records_name_both_submissions_and_the_episodes(board):
    _, _, result = board
    copycat = next(line for line in result.output.splitlines() if line.startswith("rejected copycat: "))
    assert f"{EPISODE} = victim/{EPISODE}" in copycat and "neither is listed" in copycat


def test_validate_refuses_a_symlinked_record_without_reading_through_it(board, tasks_dir):
    root, _, _ = board
    verdict = validate_submission(root / "subs/record-symlink", tasks_dir)
    assert verdict.problems == [f"{EPISODE}/record.json.gz is a symbolic link (a submission holds plain folders "
                                f"and files only)", f"{EPISODE}/scores.json is a symbolic link (a submission "
                                f"holds plain folders and files only)"]
    assert verdict.record_digests == {}
