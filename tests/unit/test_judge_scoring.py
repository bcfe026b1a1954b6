"""Model judges in scoring: rubric verdicts over loopback HTTP, `error` when the judge
fails (never pass), `unjudged` without a judge, and scores.json recording the judge's
spec, model versions and cache hits (a re-score asks the model nothing)."""
import json

import pytest
import yaml
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.verifiers.judge import load_judge
from admindesk.verifiers.judge.spec import JudgeSettings
from admindesk.verifiers.scoring import score_task
from tests.unit.fixtures.episodes import good_record, task, task_data
from tests.unit.protocol_servers import ProtocolServer, chat_completion, json_reply, openai_error

CHAT = "/v1/chat/completions"
MODEL = "qwen2.5-72b-instruct-2026-01"


def answer(word: str):
    return json_reply(chat_completion(json.dumps({"verdict": word, "reason": f"judged {word}"}), model=MODEL))


@pytest.fixture
def server():
    with ProtocolServer() as running:
        yield running


def judge_for(server, tmp_path=None, votes=3):
    return load_judge(f"openai-compatible:{server.url}/v1#qwen",
                      JudgeSettings(votes=votes, timeout=5, max_retries=1, cache_dir=tmp_path, env={}))


def rubric_result(result):
    return next(check for subtask in result.subtasks for check in subtask.checks if check.kind == "rubric")


def test_a_model_judge_passes_the_rubric_and_the_task(server):
    server.script(CHAT, answer("pass"), answer("fail"), answer("pass"))
    result = score_task(task(), good_record(), judge_for(server))
    assert result.outcome == "pass" and rubric_result(result).result.state == "pass"
    assert result.judge.model_dump() == {"spec": f"openai-compatible:{server.url}/v1#qwen", "models": [MODEL],
                                         "items": 1, "votes": 3, "cache_hits": 0, "errors": 0}
    votes = rubric_result(result).result.evidence["votes"]
    assert [vote["verdict"] for vote in votes] == ["pass", "fail", "pass"]
    # The judge is told the task: its goal reaches the prompt's context section.
    user = server.requests_to(CHAT)[0].body["messages"][1]["content"]
    assert "Get the lumbar MRI for Dana Whitfield authorised." in user


def test_a_failing_verdict_fails_the_task(server):
    server.script(CHAT, answer("fail"))
    result = score_task(task(), good_record(), judge_for(server, votes=1))
    assert result.outcome == "fail" and result.first_failing_subtask == "record"


def test_malformed_output_makes_the_check_an_error_never_a_pass(server):
    server.script(CHAT, json_reply(chat_completion("I think it passes.", model=MODEL)))
    result = score_task(task(), good_record(), judge_for(server, votes=1))
    check = rubric_result(result).result
    assert check.state == "error" and not check.passed and "malformed verdict" in check.error
    assert result.outcome == "error" and result.n_errors == 1 and result.judge.errors == 1
    # A deterministic failure still makes the task a plain fail.
    bad = good_record(answer="Still waiting.")
    server.script(CHAT, json_reply(chat_completion("nope", model=MODEL)))
    assert score_task(task(), bad, judge_for(server, votes=1)).outcome == "fail"


def test_an_unreachable_judge_is_an_error(server):
    server.script(CHAT, openai_error(500), openai_error(502))
    result = score_task(task(), good_record(), judge_for(server, votes=1))
    assert result.outcome == "error" and "HTTP 502" in rubric_result(result).result.error


def test_without_a_judge_the_rubric_is_unjudged_and_the_task_does_not_pass():
    result = score_task(task(), good_record())
    assert rubric_result(result).result.state == "unjudged"
    assert result.outcome == "unjudged" and result.judge is None and result.n_unjudged == 1


@pytest.fixture
def run_dir(tmp_path):
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks/pa-medium-01.yaml").write_text(yaml.safe_dump(task_data()), encoding="utf-8")
    (tmp_path / "run/ep-1").mkdir(parents=True)
    (tmp_path / "run/ep-1/record.json").write_text(good_record().model_dump_json(), encoding="utf-8")
    return tmp_path


def score_cli(run_dir, *options, env=None):
    return CliRunner(env=env).invoke(main, ["score", str(run_dir / "run"), "--tasks-dir", str(run_dir / "tasks"),
                                            *options])


def test_score_with_a_spec_records_the_judge_and_rescoring_costs_nothing(server, run_dir):
    server.script(CHAT, answer("pass"), answer("pass"), answer("pass"))
    options = ["--judge", f"openai-compatible:{server.url}/v1#qwen", "--judge-cache", str(run_dir / "cache")]
    first = score_cli(run_dir, *options)
    assert first.exit_code == 0, first.output
    scores = json.loads((run_dir / "run/ep-1/scores.json").read_text())
    assert scores["outcome"] == "pass"
    assert scores["judge"]["models"] == [MODEL] and scores["judge"]["cache_hits"] == 0
    again = score_cli(run_dir, *options)
    assert again.exit_code == 0, again.output
    rescored = json.loads((run_dir / "run/ep-1/scores.json").read_text())
    assert rescored["outcome"] == "pass" and rescored["judge"]["cache_hits"] == 3
    assert len(server.requests_to(CHAT)) == 3
    assert '"cache_hits": 3' in again.output


def test_score_with_a_missing_key_is_a_clear_error_and_writes_nothing(run_dir):
    result = score_cli(run_dir, "--judge", "anthropic:claude-opus-4-6", env={"ANTHROPIC_API_KEY": ""})
    assert result.exit_code != 0 and "set ANTHROPIC_API_KEY" in result.output
    assert not (run_dir / "run/ep-1/scores.json").exists()
