"""`admindesk leaderboard evaluate`: the maintainers run a submitter's agent, served over the
OpenAI-compatible protocol (a local server here), on a held-out split's public copy, score
the run with their complete copy, and the folder validates, replays as a submission and is
recorded in the ledger of verified entries."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.leaderboard.ledger import load_ledger
from admindesk.harness.task_tools.splits.withheld import write_public_copy
from tests.runner.split_folders import write_public_copy_split
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply, openai_models

PATH = "/v1/chat/completions"


def reply(thought: str, action: dict):
    return json_reply(chat_completion(json.dumps({"thought": thought, "action": action}), model="served-agent-1"))


@pytest.mark.slow
@pytest.mark.browser
def test_a_served_agent_is_run_on_the_public_copy_and_scored_with_the_maintainers_copy(tmp_path, monkeypatch):
    complete = write_public_copy_split(tmp_path / "splits" / "t-1")
    public = tmp_path / "splits" / "t-1-public"
    write_public_copy(complete, public)
    out = tmp_path / "entry"
    monkeypatch.setenv("SUBMITTER_KEY", "secret")
    with ProtocolServer() as server:
        server.script("/v1/models", openai_models("served-agent-1"))
        server.script(PATH, reply("The queue is open.", {"type": "wait", "seconds": 0}),
                      reply("Done here.", {"type": "done", "answer": "Nothing filed."}))
        result = CliRunner().invoke(main, [
            "leaderboard", "evaluate", str(complete), "--base-url", server.url + "/v1", "--model", "served-agent-1",
            "--api-key-env", "SUBMITTER_KEY", "--contact", "team@example.org", "-o", str(out)])
        prompts = [json.dumps(r.body) for r in server.requests_to(PATH)]
    assert result.exit_code == 0, result.output
    assert prompts and not any("subtasks" in prompt for prompt in prompts)
    run = json.loads((out / "run.json").read_text())
    assert run["split"]["tasks_sha256"] == json.loads((public / "split.json").read_text())["tasks_sha256"]
    (line,) = run["episodes"]
    scores = json.loads((out / line["folder"] / "scores.json").read_text())
    assert scores["n_checks"] > 0 and scores["outcome"] == "fail"  # scored with the complete copy's checks
    assert json.loads((out / "submission.json").read_text())["model"] == "served-agent-1"
    ledger = tmp_path / "verified.json"
    validated = CliRunner().invoke(main, ["leaderboard", "validate", str(out), "--split-dir", str(complete),
                                          "--replay", "--ledger", str(ledger)])
    assert validated.exit_code == 0, validated.output
    assert "1 episodes replayed to their records" in validated.output
    assert load_ledger(ledger).root["entry"].episodes == 1  # the replayed entry is recorded as verified


def test_a_public_copy_of_another_split_is_refused_before_anything_runs(tmp_path):
    complete = write_public_copy_split(tmp_path / "splits" / "t-1")
    write_public_copy(complete, tmp_path / "splits" / "t-1-public")
    other = write_public_copy_split(tmp_path / "other" / "t-2", name="t-2")
    write_public_copy(other, tmp_path / "other" / "t-2-public")
    result = CliRunner().invoke(main, [
        "leaderboard", "evaluate", str(complete), "--public-copy", str(tmp_path / "other" / "t-2-public"),
        "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--contact", "team@example.org",
        "-o", str(tmp_path / "entry")])
    assert result.exit_code != 0 and "not the public copy of" in result.output
    assert not (tmp_path / "entry").exists()
