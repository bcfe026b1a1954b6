"""Model judges over real HTTP on loopback: verdicts, votes, jury majority, ties, cache,
retries on 429/5xx, timeouts, malformed output and missing keys."""
import json

import pytest

from admindesk.verifiers.judge import JudgeError, JudgeSpecError, RubricRequest, load_judge
from admindesk.verifiers.judge.prompt import MalformedVerdict
from admindesk.verifiers.judge.spec import JudgeSettings
from tests.unit.protocol_servers import (
    ProtocolServer,
    Reply,
    anthropic_error,
    anthropic_message,
    chat_completion,
    json_reply,
    openai_error,
)

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
REQUEST = RubricRequest(task_id="pa-easy-01", check_id="comment", rubric="The comment names the payer.",
                        text="Approved by Keystone Mutual, auth KM-2026-0001.", context="Task pa-easy-01")


def verdict(word: str, reason: str = "checked") -> str:
    return json.dumps({"verdict": word, "reason": reason})


def chat(word: str, model: str = "qwen2.5-72b-instruct") -> Reply:
    return json_reply(chat_completion(verdict(word), model=model))


def message(word: str, model: str = "claude-opus-4-6-20260201") -> Reply:
    return json_reply(anthropic_message(verdict(word), model=model))


@pytest.fixture
def server():
    with ProtocolServer() as running:
        yield running


def settings(tmp_path=None, **changes) -> JudgeSettings:
    values = {"votes": 3, "timeout": 5.0, "max_retries": 2, "env": {"ANTHROPIC_API_KEY": "sk-ant-test",
                                                                      "OPENAI_API_KEY": "sk-test"},
              "cache_dir": tmp_path}
    return JudgeSettings(**{**values, **changes})


def compatible(server) -> str:
    return f"openai-compatible:{server.url}/v1#qwen"


def test_three_votes_at_temperature_zero_and_the_majority_wins(server):
    server.script(CHAT, chat("pass"), chat("fail"), chat("pass"))
    judgement = load_judge(compatible(server), settings()).judge(REQUEST)
    assert judgement.passed and judgement.score == 1.0
    assert [vote.verdict for vote in judgement.votes] == ["pass", "fail", "pass"]
    assert {vote.model for vote in judgement.votes} == {"qwen2.5-72b-instruct"}
    bodies = [request.body for request in server.requests_to(CHAT)]
    assert len(bodies) == 3
    assert all(body["temperature"] == 0 and body["model"] == "qwen" for body in bodies)
    assert bodies[0]["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in bodies[0]["messages"]] == ["system", "user"]


def test_a_majority_of_fails_fails(server):
    server.script(CHAT, chat("fail"), chat("pass"), chat("fail"))
    assert not load_judge(compatible(server), settings()).judge(REQUEST).passed


def test_a_tie_between_votes_fails(server):
    server.script(CHAT, chat("pass"), chat("fail"))
    judgement = load_judge(compatible(server), settings(votes=2)).judge(REQUEST)
    assert not judgement.passed and len(judgement.votes) == 2


def test_the_openai_spec_sends_the_key_and_the_anthropic_spec_its_own(server):
    server.script(CHAT, chat("pass", model="gpt-5.4-2026-03-05"))
    server.script(MESSAGES, message("pass"))
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.url + "/v1",
           "ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": server.url}
    jury = load_judge("openai:gpt-5.4,anthropic:claude-opus-4-6", settings(votes=1, env=env))
    judgement = jury.judge(REQUEST)
    assert judgement.passed and judgement.judge == "openai:gpt-5.4,anthropic:claude-opus-4-6"
    assert [vote.model for vote in judgement.votes] == ["gpt-5.4-2026-03-05", "claude-opus-4-6-20260201"]
    assert server.requests_to(CHAT)[0].headers["authorization"] == "Bearer sk-test"
    anthropic_body = server.requests_to(MESSAGES)[0].body
    assert anthropic_body["model"] == "claude-opus-4-6"
    assert anthropic_body["output_config"]["format"]["schema"]["required"] == ["verdict", "reason"]
    assert "EVIDENCE" in anthropic_body["system"] and anthropic_body["messages"][0]["role"] == "user"


def test_the_jury_takes_the_majority_of_judges(server):
    # Judge 1 (openai-compatible) passes 2 of 3; judge 2 (Anthropic) fails 3 of 3;
    # judge 3 (a second compatible server path) passes: 2 of 3 judges pass.
    server.script(CHAT, chat("pass"), chat("pass"), chat("fail"))
    server.script("/other/v1/chat/completions", chat("pass"), chat("pass"), chat("pass"))
    server.script(MESSAGES, message("fail"), message("fail"), message("fail"))
    env = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": server.url}
    spec = f"{compatible(server)},anthropic:claude-opus-4-6,openai-compatible:{server.url}/other/v1#llama"
    judgement = load_judge(spec, settings(env=env)).judge(REQUEST)
    assert judgement.passed and judgement.rationale.startswith("2 of 3 judges pass")
    assert len(judgement.votes) == 9


def test_a_two_judge_jury_split_fails(server):
    server.script(CHAT, chat("pass"))
    server.script(MESSAGES, message("fail"))
    env = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": server.url}
    judgement = load_judge(f"{compatible(server)},anthropic:claude-opus-4-6",
                           settings(votes=1, env=env)).judge(REQUEST)
    assert not judgement.passed and judgement.rationale.startswith("1 of 2 judges pass")


def test_cached_votes_cost_nothing_the_second_time(server, tmp_path):
    server.script(CHAT, chat("pass"), chat("pass"), chat("fail"))
    first = load_judge(compatible(server), settings(tmp_path)).judge(REQUEST)
    again = load_judge(compatible(server), settings(tmp_path)).judge(REQUEST)
    assert len(server.requests_to(CHAT)) == 3
    assert [v.cached for v in first.votes] == [False] * 3 and [v.cached for v in again.votes] == [True] * 3
    assert [v.verdict for v in again.votes] == ["pass", "pass", "fail"] and again.passed
    # More votes than cached: only the missing one is asked; another text is a new key.
    server.script(CHAT, chat("fail"), chat("fail"), chat("fail"), chat("fail"))
    more = load_judge(compatible(server), settings(tmp_path, votes=4)).judge(REQUEST)
    assert [v.cached for v in more.votes] == [True, True, True, False] and not more.passed
    load_judge(compatible(server), settings(tmp_path)).judge(REQUEST.model_copy(update={"text": "Other."}))
    assert len(server.requests_to(CHAT)) == 4 + 3


def test_the_cache_is_keyed_by_judge_model(server, tmp_path):
    server.script(CHAT, chat("pass"))
    server.script("/b/v1/chat/completions", chat("fail"))
    load_judge(compatible(server), settings(tmp_path, votes=1)).judge(REQUEST)
    other = load_judge(f"openai-compatible:{server.url}/b/v1#qwen", settings(tmp_path, votes=1)).judge(REQUEST)
    assert not other.passed and not other.votes[0].cached


def test_a_rate_limit_is_retried(server):
    server.script(CHAT, openai_error(429, "Rate limit reached"), chat("pass"))
    judgement = load_judge(compatible(server), settings(votes=1)).judge(REQUEST)
    assert judgement.passed and len(server.requests_to(CHAT)) == 2


def test_server_errors_are_retried_then_reported(server):
    server.script(MESSAGES, anthropic_error(529, "Overloaded"), anthropic_error(500), message("pass"))
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": server.url}
    assert load_judge("anthropic:claude-opus-4-6", settings(votes=1, env=env)).judge(REQUEST).passed
    server.script(CHAT, *[openai_error(503, "upstream down")] * 3)
    with pytest.raises(JudgeError, match=r"HTTP 503.*upstream down"):
        load_judge(compatible(server), settings(votes=1)).judge(REQUEST)
    assert len(server.requests_to(CHAT)) == 3 and server.pending(CHAT) == 0


def test_a_slow_model_times_out(server):
    server.script(CHAT, Reply(body=chat_completion(verdict("pass")), delay=1.0))
    with pytest.raises(JudgeError, match="no answer within 0.3 s"):
        load_judge(compatible(server), settings(votes=1, timeout=0.3, max_retries=0)).judge(REQUEST)


@pytest.mark.parametrize("answer", [
    "Looks fine to me: pass.",
    '{"verdict": "PASS", "reason": "ok"}',
    '{"verdict": "pass"}',
    '{"verdict": "pass", "reason": "ok", "score": 1}',
    '{"verdict": "pass", "reason": "  "}',
    '{"verdict": "pass", "reason": "ok"} and more',
])
def test_malformed_output_is_an_error_not_a_verdict(server, tmp_path, answer):
    server.script(CHAT, json_reply(chat_completion(answer)))
    with pytest.raises(MalformedVerdict, match="malformed verdict"):
        load_judge(compatible(server), settings(tmp_path, votes=1)).judge(REQUEST)
    assert not list(tmp_path.rglob("*.json")), "a malformed answer must not be cached"


def test_a_fenced_json_answer_is_read(server):
    server.script(MESSAGES, json_reply(anthropic_message("```json\n" + verdict("fail", "no payer") + "\n```")))
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": server.url}
    judgement = load_judge("anthropic:claude-opus-4-6", settings(votes=1, env=env)).judge(REQUEST)
    assert not judgement.passed and "no payer" in judgement.rationale


@pytest.mark.parametrize("spec, variable", [("openai:gpt-5.4", "OPENAI_API_KEY"),
                                            ("anthropic:claude-opus-4-6", "ANTHROPIC_API_KEY")])
def test_a_missing_key_is_a_clear_error_before_any_call(server, spec, variable):
    with pytest.raises(JudgeSpecError, match=f"needs an API key: set {variable}"):
        load_judge(f"{compatible(server)},{spec}", settings(env={}))
    assert server.requests == []


def test_an_openai_compatible_server_needs_no_key(server):
    server.script(CHAT, chat("pass"))
    assert load_judge(compatible(server), settings(votes=1, env={})).judge(REQUEST).passed
