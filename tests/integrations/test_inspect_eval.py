"""`inspect eval admindesk/admindesk` end to end: Inspect's mock model on two tasks (the log,
each sample's outcome as its score, one Env worker for both samples, the imported run
folder accepted and replayed by `leaderboard validate`), and a loopback server speaking
OpenAI's chat completions protocol driving one episode with real tool calls and screenshots."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from admindesk.harness.integrations.inspect import admindesk
from admindesk.harness.integrations.inspect.importer import import_log
from admindesk.harness.integrations.inspect.sandbox import AdminDeskSandbox
from admindesk.harness.leaderboard import validate_submission
from admindesk.schema.task_model import TASKS_ROOT
from tests.integrations.fresh_thread import in_fresh_thread
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(1200)]

TWO_TASKS = ("pa-easy-01", "pa-easy-02")


def tool_call(name: str, arguments: dict) -> ModelOutput:
    output = ModelOutput.for_tool_call("mockllm/model", name, arguments)
    output.usage = ModelUsage(input_tokens=900, output_tokens=30, total_tokens=930)  # no token counting offline
    return output


def copy_tasks(folder, task_ids):
    """A folder holding only `task_ids`' task files (a suite that the run covers whole)."""
    folder.mkdir()
    for task_id in task_ids:
        source = next(TASKS_ROOT.rglob(f"{task_id}.yaml"))
        shutil.copy(source, folder / source.name)
    return folder


def test_the_task_is_registered_under_its_inspect_name(tmp_path):
    # In a fresh interpreter outside the checkout, as `inspect eval admindesk/admindesk` finds it
    # (in the checkout's root the name is also a path, the package folder). Under pytest the
    # checkout is on sys.path, so Inspect does not see the package as installed: the tests
    # below hand the task to eval() as an object.
    lookup = ("from inspect_ai._util.registry import registry_lookup; "
              "print(registry_lookup('task', 'admindesk/admindesk') is not None)")
    done = subprocess.run([sys.executable, "-c", lookup], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "True"


def test_mock_model_eval_is_scored_imported_and_validated(tmp_path):
    hosts = []  # the Env worker each sample borrowed
    original = AdminDeskSandbox.__init__

    def borrowing(self, host):
        hosts.append(host)
        original(self, host)

    model = get_model("mockllm/model", custom_outputs=[
        tool_call("done", {"answer": "Nothing filed."}),
        tool_call("wait", {"seconds": 0}), tool_call("done", {"answer": "Stopped."})])
    AdminDeskSandbox.__init__ = borrowing
    try:
        logs = in_fresh_thread(inspect_eval, admindesk(tasks=",".join(TWO_TASKS)), model=model,
                               log_dir=str(tmp_path / "logs"), display="none", max_samples=1)
    finally:
        AdminDeskSandbox.__init__ = original
    log = logs[0]
    assert log.status == "success", log.error
    assert Path(log.location).is_file()
    assert {sample.id for sample in log.samples} == set(TWO_TASKS)
    for sample in log.samples:
        value = sample.scores["admindesk_scorer"].value
        assert value["outcome"] == "fail" and value["success"] == 0.0  # nothing was done
        assert sample.scores["admindesk_scorer"].metadata["admindesk_task_result"]["outcome"] == "fail"
    assert len(hosts) == 2 and hosts[0] is hosts[1]  # one worker, started once, served both samples

    out = tmp_path / "run"
    run_json = import_log(Path(log.location), out)
    assert [line["result"] for line in run_json["episodes"]] == ["fail", "fail"]
    assert (out / "pa-easy-01-t0" / "step-000.png").is_file()  # the screenshot the model saw
    (out / "submission.json").write_text(json.dumps({
        "model": "mockllm/model", "agent": "inspect", "observation": "screenshot", "date": "2026-12-02",
        "contact": "bench@example.org"}), encoding="utf-8")
    verdict = validate_submission(out, copy_tasks(tmp_path / "suite", TWO_TASKS), replay_workers=1)
    assert verdict.accepted, verdict.problems
    assert verdict.replayed == 2


def test_loopback_provider_drives_an_episode_with_tool_calls(tmp_path, monkeypatch):
    with ProtocolServer() as server:
        path = "/v1/chat/completions"
        click = {"id": "call_1", "type": "function",
                 "function": {"name": "click", "arguments": json.dumps({"x": 640, "y": 300})}}
        done = {"id": "call_2", "type": "function",
                "function": {"name": "done", "arguments": json.dumps({"answer": "Looked at the queue."})}}
        server.script(path, json_reply(chat_completion("The work queue first.", tool_calls=[click],
                                                       finish_reason="tool_calls")),
                      json_reply(chat_completion(None, tool_calls=[done], finish_reason="tool_calls")))
        monkeypatch.setenv("LOOPBACK_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("LOOPBACK_API_KEY", "test-key")
        logs = in_fresh_thread(inspect_eval, admindesk(tasks="pa-easy-01", max_steps=5),
                               model="openai-api/loopback/gpt-test",
                               log_dir=str(tmp_path / "logs"), display="none")
        requests = [request.body for request in server.requests_to(path)]
    sample = logs[0].samples[0]
    assert logs[0].status == "success", logs[0].error
    assert len(requests) == 2
    assert {tool["function"]["name"] for tool in requests[0]["tools"]} >= {"click", "type", "key", "done"}
    images = [part for message in requests[1]["messages"] if isinstance(message.get("content"), list)
              for part in message["content"] if part.get("type") == "image_url"]
    assert images and images[-1]["image_url"]["url"].startswith("data:image/png;base64,")
    score = sample.scores["admindesk_scorer"]
    assert score.value["outcome"] == "fail" and score.answer == "Looked at the queue."
    episode = import_log(Path(logs[0].location), tmp_path / "run")["episodes"][0]
    assert episode["steps"] == 2 and episode["input_tokens"] == 240
