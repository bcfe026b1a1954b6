"""The verdict cache's key: provider, resolved endpoint, model name and prompt, versioned;
votes of a model version the endpoint no longer serves are not reused."""
import hashlib
import json

import pytest

from admindesk.verifiers.judge import RubricRequest, load_judge
from admindesk.verifiers.judge.prompt import build_prompt, prompt_hash
from admindesk.verifiers.judge.spec import JudgeSettings
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply

CHAT = "/v1/chat/completions"
OTHER_CHAT = "/b/v1/chat/completions"
REQUEST = RubricRequest(task_id="pa-easy-01", check_id="comment", rubric="The comment names the payer.",
                        text="Approved by Keystone Mutual, auth KM-2026-0001.", context="Task pa-easy-01")


def chat(word: str, model: str = "qwen2.5-72b-instruct-2026-01"):
    return json_reply(chat_completion(json.dumps({"verdict": word, "reason": f"judged {word}"}), model=model))


@pytest.fixture
def server():
    with ProtocolServer() as running:
        yield running


def settings(cache_dir, votes=1, **env) -> JudgeSettings:
    return JudgeSettings(votes=votes, timeout=5.0, max_retries=0, cache_dir=cache_dir,
                         env={"OPENAI_API_KEY": "sk-test", **env})


def test_two_endpoints_with_one_model_name_are_two_judges(server, tmp_path):
    server.script(CHAT, chat("pass"))
    server.script(OTHER_CHAT, chat("fail"))
    first = load_judge("openai:qwen", settings(tmp_path, OPENAI_BASE_URL=server.url + "/v1")).judge(REQUEST)
    second = load_judge("openai:qwen", settings(tmp_path, OPENAI_BASE_URL=server.url + "/b/v1")).judge(REQUEST)
    assert first.passed and not second.passed and not second.votes[0].cached
    assert len(server.requests_to(CHAT)) == 1 and len(server.requests_to(OTHER_CHAT)) == 1


def test_a_cache_file_of_the_older_key_layout_is_not_read(server, tmp_path):
    # What the first layout stored: keyed by (judge label, prompt hash) alone.
    label = f"openai-compatible:{server.url}/v1#qwen"
    prompt_sha = prompt_hash(*build_prompt(REQUEST))
    old_key = hashlib.sha256(f"{label}\0{prompt_sha}".encode()).hexdigest()
    old_file = tmp_path / old_key[:2] / f"{old_key}.json"
    old_file.parent.mkdir(parents=True)
    old_file.write_text(json.dumps({"judge": label, "prompt_sha256": prompt_sha,
                                    "votes": [{"model": "qwen-old", "verdict": "pass", "reason": "old"}]}))
    server.script(CHAT, chat("fail"))
    judgement = load_judge(f"openai-compatible:{server.url}/v1#qwen", settings(tmp_path)).judge(REQUEST)
    assert not judgement.passed and not judgement.votes[0].cached
    assert len(server.requests_to(CHAT)) == 1


def test_votes_of_a_model_version_the_endpoint_no_longer_serves_are_not_reused(server, tmp_path):
    spec = f"openai-compatible:{server.url}/v1#qwen"
    server.script(CHAT, *[chat("pass", model="qwen-2026-01")] * 3)
    load_judge(spec, settings(tmp_path, votes=3)).judge(REQUEST)
    # The endpoint now serves a new version: asked for a fourth vote, it says so, and the
    # three cached votes of the old version give way to four of the new one.
    server.script(CHAT, *[chat("fail", model="qwen-2026-02")] * 4)
    judgement = load_judge(spec, settings(tmp_path, votes=4)).judge(REQUEST)
    assert [(vote.model, vote.cached) for vote in judgement.votes] == [("qwen-2026-02", False)] * 4
    assert not judgement.passed and len(server.requests_to(CHAT)) == 3 + 4
    again = load_judge(spec, settings(tmp_path, votes=4)).judge(REQUEST)
    assert [(vote.model, vote.cached) for vote in again.votes] == [("qwen-2026-02", True)] * 4
    assert len(server.requests_to(CHAT)) == 7
