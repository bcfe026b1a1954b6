"""`admindesk run --channel api`: the agent must work the channel, and only the tasks that
offer it run (selectable with `channel=api`)."""
from __future__ import annotations

from click.testing import CliRunner

from admindesk.harness.cli.main import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_screens_agent_is_refused_on_the_api_channel(tmp_path):
    result = invoke("run", "--agent", "random", "--channel", "api", "--tasks", "pa-easy-01", "--out", tmp_path / "r",
                    "--dry-run")
    assert result.exit_code != 0 and "works the screens" in result.output and "openai-api-tools" in result.output


def test_the_api_agent_is_refused_on_the_screens(tmp_path, monkeypatch):
    monkeypatch.setenv("ADMINDESK_MODEL", "m")
    result = invoke("run", "--agent", "openai-api-tools", "--tasks", "pa-easy-01", "--out", tmp_path / "r",
                    "--dry-run")
    assert result.exit_code != 0 and "add --channel api" in result.output


def test_a_selection_with_no_api_task_is_refused(tmp_path):
    result = invoke("run", "--agent", "reference", "--channel", "api", "--tasks", "appeal-easy-01",
                    "--out", tmp_path / "r", "--dry-run")
    assert result.exit_code != 0 and "offered on the api channel" in result.output
