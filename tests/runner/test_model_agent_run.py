"""`admindesk run` with a model agent: the endpoint is checked first, flags (temperature, seed)
reach the agent, its calls go to the endpoint, and its reasoning, tokens and cost land in the
run folder (a local OpenAI-compatible server)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.verifiers.record_files import RECORD_FILE, load_record
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply, openai_models

PATH = "/v1/chat/completions"


def reply(thought: str, action: dict):
    return json_reply(chat_completion(json.dumps({"thought": thought, "action": action})))


@pytest.mark.slow
@pytest.mark.browser
def test_a_model_agent_runs_through_admindesk_run_and_its_notes_reach_the_run_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    out = tmp_path / "run"
    with ProtocolServer() as server:
        server.script("/v1/models", openai_models("ui-tars-test"))
        server.script(PATH, reply("The work queue is loading.", {"type": "wait", "seconds": 0}),
                      reply("Nothing more to do here.", {"type": "done", "answer": "Stopped early."}))
        result = CliRunner().invoke(main, [
            "run", "--agent", "openai-compatible", "--model", "ui-tars-test", "--base-url", server.url + "/v1",
            "--tasks", "pa-easy-09", "--out", str(out), "--max-steps", "5", "--temperature", "0.2", "--seed", "11"])
        requests = server.requests_to(PATH)
    assert result.exit_code == 0, result.output
    assert len(requests) == 2 and all(r.body["model"] == "ui-tars-test" for r in requests)
    assert all(r.body["temperature"] == 0.2 and r.body["seed"] == 11 for r in requests)
    run_json = json.loads((out / "run.json").read_text())
    (episode,) = run_json["episodes"]
    assert episode["task_id"] == "pa-easy-09" and episode["result"] == "fail" and episode["steps"] == 2
    folder = next(p for p in out.iterdir() if p.is_dir() and (p / RECORD_FILE).exists())
    trajectory = load_record(folder / RECORD_FILE).trajectory
    notes = [entry["agent"] for entry in trajectory if "agent" in entry]
    assert [note["reasoning"] for note in notes] == ["The work queue is loading.", "Nothing more to do here."]
    assert all(note["usage"]["input_tokens"] > 0 for note in notes)


def test_a_wrong_agent_option_is_refused_before_any_app_starts(tmp_path):
    result = CliRunner().invoke(main, ["run", "--agent", "noop", "--model", "x", "--tasks", "pa-easy-01",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code != 0 and "agent noop has no option model" in result.output
    assert not (tmp_path / "run").exists()
