"""The API channel's pieces without apps: its actions refuse paths outside the API, and the
`openai-api-tools` agent turns a loopback model's tool calls into API actions, answers each
call with its response, asks again after an unusable reply, and records the model calls."""
from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from admindesk.harness.agents import AgentError, make_agent
from admindesk.harness.env.actions import Done
from admindesk.harness.env.api_env import ApiDone, ApiObservation, ApiRequest, parse_api_action
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply

PATH = "/v1/chat/completions"


def call(call_id: str, name: str, arguments: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def reply(*calls: dict, content: str | None = None):
    return json_reply(chat_completion(content, tool_calls=list(calls) or None,
                                      finish_reason="tool_calls" if calls else "stop"))


@pytest.mark.parametrize("path", ["/patients/1", "/_bench/snapshot", "/fhir/../_bench/reset", "fhir/Patient",
                                  "/fhirx/Patient"])
def test_a_request_outside_the_api_is_refused(path):
    with pytest.raises(ValidationError):
        parse_api_action({"type": "api_request", "server": "ehr", "method": "GET", "path": path})


def test_actions_parse_from_dicts_and_from_the_screens_done():
    request = parse_api_action({"type": "api_request", "server": "keystone", "method": "POST",
                                "path": "/fhir/Claim/$submit", "body": {"resourceType": "Bundle"}})
    assert isinstance(request, ApiRequest) and request.body == {"resourceType": "Bundle"}
    assert parse_api_action(Done(answer="x")) == ApiDone(answer="x")
    with pytest.raises(ValidationError):
        parse_api_action({"type": "api_request", "server": "fax", "method": "GET", "path": "/fhir/x"})


def test_tool_calls_become_actions_and_each_is_answered(monkeypatch):
    monkeypatch.setenv("TEST_KEY", "k")
    with ProtocolServer() as server:
        server.script(PATH,
                      reply(call("c1", "api_request", {"server": "ehr", "method": "GET",
                                                       "path": "/fhir/Patient?identifier=E100"}),
                            call("c2", "api_request", {"server": "keystone", "method": "GET", "path": "/fhir/metadata"}),
                            content="Find the patient first."),
                      reply(call("c3", "done", {"answer": "Nothing to file."})))
        agent = make_agent("openai-api-tools", model="gpt-test", base_url=server.url + "/v1", api_key_env="TEST_KEY")
        agent.reset("Work the item.", None)
        first = agent.act(ApiObservation(step=0, text="Work item: ..."))
        second = agent.act(ApiObservation(step=1, text='HTTP 200\n{"resourceType": "Bundle", "total": 1}', status=200))
        third = agent.act(ApiObservation(step=2, text="HTTP 200\n{}", status=200))
        bodies = [request.body for request in server.requests_to(PATH)]
    assert first == ApiRequest(server="ehr", method="GET", path="/fhir/Patient?identifier=E100")
    assert second.server == "keystone" and third == ApiDone(answer="Nothing to file.")
    assert len(bodies) == 2  # the batched second call needed no model call
    answered = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answered] == ["c1", "c2"] and '"total": 1' in answered[0]["content"]
    assert {tool["function"]["name"] for tool in bodies[0]["tools"]} == {"api_request", "done"}
    assert agent.notes[0].details["response_id"] and agent.notes[0].usage.input_tokens > 0
    assert agent.notes[0].reasoning == "Find the patient first."


def test_an_unusable_reply_is_told_to_the_model_then_the_agent_gives_up(monkeypatch):
    monkeypatch.setenv("TEST_KEY", "k")
    with ProtocolServer() as server:
        server.script(PATH, reply(content="I would search for the patient."),
                      reply(call("c1", "api_request", {"server": "ehr", "method": "DELETE", "path": "/fhir/x"})),
                      reply(content="Still no tool."))
        agent = make_agent("openai-api-tools", model="gpt-test", base_url=server.url + "/v1", api_key_env="TEST_KEY",
                           malformed_retries=2)
        agent.reset("Work the item.", None)
        with pytest.raises(AgentError, match="no usable tool call"):
            agent.act(ApiObservation(step=0, text="Work item: ..."))
        bodies = [request.body for request in server.requests_to(PATH)]
    assert len(bodies) == 3
    assert "could not be used (no tool call)" in bodies[1]["messages"][-1]["content"]
    tool_answer = bodies[2]["messages"][-1]
    assert tool_answer["role"] == "tool" and tool_answer["tool_call_id"] == "c1" and "not valid" in tool_answer["content"]
