"""Each model agent plays a short episode on the real fax app in the real Env, its provider
spoken by a loopback HTTP server replaying realistic responses (real SDK, real HTTP).

The episode signs in through the sign-in page: click the user name field, type, click the
password field, type, Enter, then the model's closing message. Asserted: the right actions
reach the Env (and sign in), what each request carried (tool, display size, screenshots,
chaining, safety acknowledgements, history truncation), tokens and cost, a retry on 429,
and a malformed reply recorded as an error, not a crash.
"""
from __future__ import annotations

import json

import pytest

from admindesk.harness.agents import make_agent
from admindesk.harness.agents.loop import run_episode
from admindesk.harness.env.services import available_apps
from tests.harness.agent_support import (
    INBOX_TASK,
    SIGN_IN_TASK,
    computer_call,
    element_id,
    final_message,
    responses_reply,
    sign_in_targets,
    trajectory_actions,
)
from tests.unit.protocol_servers import (
    ProtocolServer,
    anthropic_error,
    anthropic_message,
    chat_completion,
    json_reply,
    openai_error,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif("fax" not in available_apps(), reason="needs the fax app")]

SIGN_IN_ACTIONS = ["click", "type", "click", "type", "key", "done"]


@pytest.fixture(scope="module")
def fax_env():
    from admindesk.harness.env.environment import Env

    with Env("both", apps=["fax"]) as env:
        yield env


@pytest.fixture(scope="module")
def targets(fax_env):
    return sign_in_targets(fax_env)


@pytest.fixture()
def server():
    with ProtocolServer() as running:
        yield running


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-anthropic-key")


def assert_signed_in(result) -> None:
    actions = trajectory_actions(result.record)
    assert [a["type"] for a in actions] == SIGN_IN_ACTIONS
    assert [a["text"] for a in actions if a["type"] == "type"] == ["coordinator", "admindesk"]
    assert actions[4]["keys"] == "Enter"
    assert "/login" not in result.record.trajectory[-2]["url"]  # the Enter signed in
    assert result.record.answer == "Signed in to the fax server."
    assert all(entry["error"] is None for entry in result.record.trajectory)


def test_openai_cua_signs_in_through_the_responses_api(fax_env, targets, server):
    (ux, uy), (px, py) = targets["username"], targets["password"]
    check = {"id": "sc_1", "code": "malicious_instructions", "message": "Check the page."}
    server.script(
        "/v1/responses",
        responses_reply("resp_1", computer_call(1, {"type": "click", "button": "left", "x": ux, "y": uy},
                                                "The sign-in form: user name first.")),
        responses_reply("resp_2", computer_call(2, {"type": "type", "text": "coordinator"})),
        openai_error(429, "Rate limit reached for requests"),
        responses_reply("resp_3", computer_call(3, {"type": "click", "button": "left", "x": px, "y": py})),
        responses_reply("resp_4", computer_call(4, {"type": "type", "text": "admindesk"})),
        responses_reply("resp_5", computer_call(5, {"type": "keypress", "keys": ["ENTER"]},
                                                safety_checks=[check])),
        responses_reply("resp_6", final_message("Signed in to the fax server."), cached_tokens=1000))
    agent = make_agent("openai-cua", model="computer-use-preview", base_url=server.url + "/v1")
    result = run_episode(fax_env, agent, SIGN_IN_TASK)
    assert_signed_in(result)

    requests = [r.body for r in server.requests_to("/v1/responses")]
    assert len(requests) == 7  # six replies and one 429 retried
    assert requests[2] == requests[3]  # the retry repeats the request
    assert requests[0]["tools"] == [{"type": "computer_use_preview", "display_width": 1280,
                                     "display_height": 800, "environment": "browser"}]
    first = requests[0]["input"][0]["content"]
    assert first[0]["text"].startswith("Your task:\nSign in to the fax server.")
    assert first[1]["image_url"].startswith("data:image/png;base64,")
    assert "previous_response_id" not in requests[0]
    for number, body in enumerate(requests[1:2] + requests[3:], start=1):
        assert body["previous_response_id"] == f"resp_{number}"
        output = body["input"][0]
        assert output["type"] == "computer_call_output" and output["call_id"] == f"call_{number}"
        assert output["output"]["image_url"].startswith("data:image/png;base64,")
    assert requests[6]["input"][0]["acknowledged_safety_checks"] == [check]
    assert result.record.trajectory[5]["agent"]["details"]["safety_checks"] == [check]
    assert result.record.trajectory[1]["agent"]["reasoning"] == "The sign-in form: user name first."

    # Six calls of 1500 input / 40 output tokens, the last with 1000 cached; $3 / $12 per M.
    assert (result.usage.calls, result.usage.input_tokens, result.usage.output_tokens,
            result.usage.cached_input_tokens) == (6, 9000, 240, 1000)
    assert result.usage.cost_usd == pytest.approx((9000 * 3 + 240 * 12) / 1e6)
    assert result.record.trajectory[1]["agent"]["usage"]["input_tokens"] == 1500


def _tool_use(number: int, tool_input: dict, text: str = "") -> dict:
    content = ([{"type": "text", "text": text}] if text else []) + [
        {"type": "tool_use", "id": f"toolu_{number}", "name": "computer", "input": tool_input}]
    return anthropic_message(content=content, stop_reason="tool_use", model="claude-opus-4-6",
                             input_tokens=2000, output_tokens=50)


def test_anthropic_cu_signs_in_with_tool_results_and_keeps_two_screenshots(fax_env, targets, server):
    (ux, uy), (px, py) = targets["username"], targets["password"]
    path = "/v1/messages"
    server.script(
        path,
        json_reply(_tool_use(1, {"action": "left_click", "coordinate": [ux, uy]}, "I'll fill the form.")),
        anthropic_error(529, "Overloaded"),
        json_reply(_tool_use(2, {"action": "type", "text": "coordinator"})),
        json_reply(_tool_use(3, {"action": "left_click", "coordinate": [px, py]})),
        json_reply(_tool_use(4, {"action": "type", "text": "admindesk"})),
        json_reply(_tool_use(5, {"action": "key", "text": "Return"})),
        json_reply(anthropic_message("Signed in to the fax server.", model="claude-opus-4-6",
                                     input_tokens=2000, output_tokens=50)))
    agent = make_agent("anthropic-cu", model="claude-opus-4-6", base_url=server.url,
                       keep_screenshots=2)
    result = run_episode(fax_env, agent, SIGN_IN_TASK)
    assert_signed_in(result)

    requests = server.requests_to(path)
    assert len(requests) == 7  # one 529 retried
    assert "computer-use-2025-01-24" in requests[0].headers["anthropic-beta"]
    assert requests[0].body["tools"] == [{"type": "computer_20250124", "name": "computer",
                                          "display_width_px": 1280, "display_height_px": 800}]
    last = requests[-1].body["messages"]
    result_block = last[-1]["content"][-1]
    assert result_block["type"] == "tool_result" and result_block["tool_use_id"] == "toolu_5"
    assert result_block["content"][1]["type"] == "image"
    images = json.dumps(last).count('"type": "image"')
    assert images == 2  # keep_screenshots=2: older screenshots became text
    assert result.record.trajectory[1]["agent"]["reasoning"] == "I'll fill the form."
    assert result.usage.calls == 6 and result.usage.input_tokens == 12000
    assert result.usage.cost_usd == pytest.approx((12000 * 5 + 300 * 25) / 1e6)


def _chat(thought: str, action: dict) -> str:
    return json.dumps({"thought": thought, "action": action})


def test_openai_compatible_records_a_malformed_reply_and_signs_in(fax_env, targets, server):
    (ux, uy), (px, py) = targets["username"], targets["password"]
    path = "/v1/chat/completions"
    server.script(
        path,
        json_reply(chat_completion(_chat("User name field.", {"type": "click", "x": ux, "y": uy}))),
        json_reply(chat_completion("Sure! I will now type the user name.")),
        openai_error(500, "The server had an error"),
        json_reply(chat_completion("```json\n" + _chat("Type it.", {"type": "type", "text": "coordinator"})
                                   + "\n```")),
        json_reply(chat_completion(_chat("Password.", {"type": "click", "x": px, "y": py}))),
        json_reply(chat_completion(_chat("", {"type": "type", "text": "admindesk"}))),
        json_reply(chat_completion(_chat("", {"type": "key", "keys": "Enter"}))),
        json_reply(chat_completion(_chat("Done.", {"type": "done", "answer": "Signed in to the fax server."}))))
    agent = make_agent("openai-compatible", model="ui-tars-1.5-7b", base_url=server.url + "/v1",
                       observation="both")
    result = run_episode(fax_env, agent, SIGN_IN_TASK)

    actions = trajectory_actions(result.record)
    assert [a["type"] for a in actions] == ["click", "wait"] + SIGN_IN_ACTIONS[1:]
    malformed = result.record.trajectory[2]["agent"]
    assert malformed["error"].startswith("malformed reply: not one JSON object")
    assert malformed["details"]["raw_reply"] == "Sure! I will now type the user name."
    assert "/login" not in result.record.trajectory[-2]["url"]
    assert result.record.answer == "Signed in to the fax server."

    requests = [r.body for r in server.requests_to(path)]
    assert len(requests) == 8  # one 500 retried
    after_malformed = requests[2]["messages"][-1]["content"][0]["text"]
    assert after_malformed.startswith("Your last reply could not be used")
    first_turn = requests[0]["messages"][-1]["content"]
    assert 'textbox "User name"' in first_turn[0]["text"]  # the accessibility tree is in the prompt
    assert first_turn[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert requests[0]["temperature"] == 0
    assert result.usage.calls == 7 and result.usage.input_tokens == 7 * 120
    assert result.usage.cost_usd is None  # a self-hosted model has no price


def test_openai_compatible_element_space_selects_and_clicks_by_id(fax_env, server):
    # Element ids belong to one episode's pages, so each reply reads them from the tree the
    # request carries, as a model would.
    def turn_text(request) -> str:
        return request.body["messages"][-1]["content"][0]["text"]

    turns = iter([
        lambda tree: {"type": "select_option", "element": element_id(tree, "combobox", "Show"),
                      "option": "Unread"},
        lambda tree: {"type": "click_element", "element": element_id(tree, "button", "Apply")},
        lambda tree: {"type": "click", "x": 5, "y": 5},  # not in the element action space
        lambda tree: {"type": "click_element", "element": element_id(tree, "link", "Phonebook")},
        lambda tree: {"type": "done", "answer": "ok"}])
    path = "/v1/chat/completions"
    server.respond(path, lambda request: json_reply(chat_completion(
        _chat("next", next(turns)(turn_text(request))))))
    agent = make_agent("openai-compatible", model="qwen2.5-vl-7b", base_url=server.url + "/v1",
                       observation="axtree", action_space="element")
    result = run_episode(fax_env, agent, INBOX_TASK)

    actions = trajectory_actions(result.record)
    assert [a["type"] for a in actions] == ["select_option", "click_element", "wait",
                                            "click_element", "done"]
    assert "view=unread" in result.record.trajectory[2]["url"]
    assert result.record.trajectory[3]["agent"]["error"] == \
        "malformed reply: click is not in the element action space"
    assert result.record.trajectory[4]["url"].endswith("/directory")
    assert all(entry["error"] is None for entry in result.record.trajectory)
    first_turn = server.requests_to(path)[0].body["messages"][-1]["content"]
    assert len(first_turn) == 1  # axtree observation: no screenshot sent
