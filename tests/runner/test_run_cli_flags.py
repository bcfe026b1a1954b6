"""`admindesk --version` and the `run` flags that start nothing: `--dry-run`, `--limit`,
`--retry-errors` (planned over a run folder holding finished, errored and unfinished
episodes), the agents listed in `--agent`'s help, and agent options refused by name."""
from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from click.testing import CliRunner

from admindesk.harness.agents.registry import AGENTS
from admindesk.harness.cli.main import main
from admindesk.harness.running.folder import plan_episodes


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def finished(out: Path, name: str, **summary) -> None:
    """A finished episode folder as the runner leaves it (record, scores, summary)."""
    folder = out / name
    folder.mkdir(parents=True)
    (folder / "record.json").write_text("{}", encoding="utf-8")
    (folder / "scores.json").write_text("{}", encoding="utf-8")
    (folder / "summary.json").write_text(json.dumps({"task_id": name[:-3], "trial": 0, **summary}), encoding="utf-8")


def test_version_is_the_package_version():
    result = invoke("--version")
    assert result.exit_code == 0 and result.output.strip() == f"admindesk {metadata.version('admindesk')}"


def test_agent_help_lists_every_agent():
    result = invoke("run", "--help")
    assert result.exit_code == 0
    assert all(name in result.output for name in AGENTS)


def test_dry_run_lists_the_episodes_and_starts_nothing(tmp_path):
    out = tmp_path / "run"
    result = invoke("run", "--agent", "reference", "--tasks", "pa-easy-01,pa-easy-02,pa-easy-03", "--limit", "2",
                    "--trials", "2", "--out", out, "--dry-run")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ["pa-easy-01-t0", "pa-easy-01-t1", "pa-easy-02-t0",
                                                        "pa-easy-02-t1"]
    assert "4 episode(s) would run" in lines[-1] and not out.exists()


def test_retry_errors_reruns_the_errored_episodes_a_resume_keeps(tmp_path):
    out = tmp_path / "run"
    finished(out, "pa-easy-01-t0", result="pass")
    finished(out, "pa-easy-02-t0", result="fail", agent_note="agent error: the model endpoint failed after 4 retries")
    finished(out, "pa-easy-03-t0", result="error")
    names = ["pa-easy-01-t0", "pa-easy-02-t0", "pa-easy-03-t0", "pa-easy-04-t0"]
    assert plan_episodes(out, names)[1] == ["pa-easy-04-t0"]
    assert plan_episodes(out, names, retry_errors=True)[1] == ["pa-easy-02-t0", "pa-easy-03-t0", "pa-easy-04-t0"]

    selection = "pa-easy-01,pa-easy-02,pa-easy-03,pa-easy-04"
    resumed = invoke("run", "--agent", "reference", "--tasks", selection, "--out", out, "--dry-run")
    retried = invoke("run", "--agent", "reference", "--tasks", selection, "--out", out, "--dry-run",
                     "--retry-errors")
    assert resumed.exit_code == 0 and retried.exit_code == 0, resumed.output + retried.output
    assert "pa-easy-02-t0                keep (finished: fail)" in resumed.output
    assert "1 episode(s) would run, 3 finished one(s) kept" in resumed.output
    assert "pa-easy-02-t0                run" in retried.output and "pa-easy-03-t0                run" in retried.output
    assert "3 episode(s) would run, 1 finished one(s) kept" in retried.output


def test_model_flags_on_an_agent_without_them_are_refused_by_name(tmp_path):
    result = invoke("run", "--agent", "noop", "--temperature", "0.5", "--tasks", "pa-easy-01", "--out", tmp_path / "r")
    assert result.exit_code != 0 and "agent noop has no option temperature" in result.output
    seeded = invoke("run", "--agent", "random", "--seed", "7", "--tasks", "pa-easy-01", "--out", tmp_path / "r",
                    "--dry-run")
    assert seeded.exit_code == 0, seeded.output
    bad = invoke("run", "--agent", "random", "--limit", "0", "--tasks", "pa-easy-01", "--out", tmp_path / "r")
    assert bad.exit_code != 0 and "--limit" in bad.output
