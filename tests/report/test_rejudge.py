"""Leaderboard `--judge`: rubric checks re-judged by the maintainers' judge, here a model
judge over loopback HTTP (tests.unit.protocol_servers) rather than replayed from the
submission. Agreeing verdicts are accepted and listed as re-judged; an overturned verdict
that changes a result rejects the submission naming the episode; a judge error leaves the
check unjudged (never passed); without a judge the site marks the verdicts as the
submitter's own. The submissions' claimed verdicts come from tests' KeywordJudge (both
passing episodes per submission, pa-medium-01-t0 and dme-medium-01-t0, claim a pass)."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.leaderboard import build_site, validate_submission
from admindesk.verifiers.judge import load_judge
from admindesk.verifiers.judge.spec import JudgeSettings
from tests.report.conftest import write_submission
from tests.unit.protocol_servers import ProtocolServer, Reply, chat_completion, json_reply, openai_error

CHAT = "/v1/chat/completions"
RUBRIC = "record/record.2"


def verdicts(**by_task: str):
    """A responder: the verdict word for the task the prompt is about ('error': HTTP 500)."""
    def answer(request) -> Reply:
        prompt = request.body["messages"][1]["content"]
        word = next(word for task_id, word in by_task.items() if task_id.replace("_", "-") in prompt)
        if word == "error":
            return openai_error(500, "judge overloaded", fast_retry=True)
        return json_reply(chat_completion(json.dumps({"verdict": word, "reason": f"judged {word}"})))
    return answer


@pytest.fixture
def server():
    with ProtocolServer() as running:
        yield running


def spec_of(server) -> str:
    return f"openai-compatible:{server.url}/v1#qwen"


def judge_for(server, cache_dir):
    return load_judge(spec_of(server), JudgeSettings(votes=1, timeout=5, max_retries=0, cache_dir=cache_dir,
                                                     env={}))


def row_of(page: str, name: str) -> str:
    return re.search(rf'<tr data-observation="[^"]*" data-scores="[^"]*" data-name="{name}"[^>]*>(.*?)</tr>',
                     page, re.S).group(1)


def test_agreeing_verdicts_are_accepted_listed_as_rejudged_and_cached(server, submission, tasks_dir, tmp_path):
    server.respond(CHAT, verdicts(pa_medium_01="pass", dme_medium_01="pass"))
    judge = judge_for(server, tmp_path / "cache")
    verdict = validate_submission(submission, tasks_dir, judge)
    assert verdict.accepted, verdict.problems
    assert verdict.judge == spec_of(server) and verdict.reviews == []
    assert sorted(verdict.rejudged) == ["dme-medium-01-t0", "dme-medium-01-t1", "pa-medium-01-t0",
                                        "pa-medium-01-t1"]
    # Only the two episodes with a note to judge reach the model; the rest fail on no text.
    assert len(server.requests_to(CHAT)) == 2 and verdict.judge_usage.votes == 2
    # A rebuild does not pay twice: every vote now comes from the judge cache.
    again = validate_submission(submission, tasks_dir, judge_for(server, tmp_path / "cache"))
    assert again.accepted and len(server.requests_to(CHAT)) == 2 and again.judge_usage.cache_hits == 2


def test_an_overturned_verdict_that_changes_the_result_is_rejected_naming_the_episode(server, submission,
                                                                                       tasks_dir):
    server.respond(CHAT, verdicts(pa_medium_01="fail", dme_medium_01="pass"))
    verdict = validate_submission(submission, tasks_dir, judge_for(server, None))
    assert verdict.problems == [f"pa-medium-01-t0: result claimed 'pass', re-judged 'fail' "
                                f"(the judge overturned {RUBRIC})"]
    assert [(r.episode, r.check, r.claimed, r.judged) for r in verdict.disagreements] == [
        ("pa-medium-01-t0", RUBRIC, "pass", "fail")]


def test_a_judge_error_leaves_the_check_unjudged_and_the_entry_lists_it(server, tasks_dir, tmp_path):
    server.respond(CHAT, verdicts(pa_medium_01="error", dme_medium_01="pass"))
    subs = tmp_path / "subs"
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="screenshot",
                     passes=lambda task_id, trial: trial == 0)
    site = build_site(subs, tmp_path / "site", tasks_dir, judge_for(server, None))
    assert site.rejected == []  # the maintainers' judge failing is no reason to reject
    [entry] = site.accepted
    [review] = entry.reviews
    assert (review.episode, review.check, review.claimed, review.judged) == ("pa-medium-01-t0", RUBRIC,
                                                                             "pass", "error")
    assert "judge overloaded" in review.judge_error and not review.disagrees
    # Listed with the re-judged results: the claimed pass is not counted (2 -> 1 of 4 pass).
    assert entry.scores["all"]["value"] == 0.25
    # The entry's report is of the re-judged results too.
    assert "judge overloaded" in (tmp_path / "site/entries/alpha/episodes/pa-medium-01-t0.html").read_text()
    page = site.index.read_text()
    assert "re-judged</span> by " + spec_of(server) in row_of(page, "alpha")
    assert "pa-medium-01-t0: check record/record.2 claimed pass, judge error (left unjudged)" in page
    assert "submitter's own" not in row_of(page, "alpha")


def test_without_a_judge_the_site_marks_the_verdicts_as_the_submitters_own(tmp_path, tasks_dir):
    subs = tmp_path / "subs"
    write_submission(subs / "alpha", tasks_dir, agent="alpha", observation="screenshot", passes=lambda t, n: True)
    site = build_site(subs, tmp_path / "site", tasks_dir)
    row = row_of(site.index.read_text(), "alpha")
    assert "⚠ submitter's own</span> not re-judged" in row
    assert ">report (submitter's rubric verdicts)</a>" in row and "re-judged</span> by" not in row


def test_the_cli_re_judges_with_the_same_spec_and_settings_as_score(server, submission, tasks_dir, tmp_path):
    server.respond(CHAT, verdicts(pa_medium_01="pass", dme_medium_01="fail"))
    result = CliRunner().invoke(main, ["leaderboard", "validate", str(submission), "--tasks-dir", str(tasks_dir),
                                       "--judge", spec_of(server), "--judge-votes", "1", "--judge-retries", "0",
                                       "--judge-cache", str(tmp_path / "cache")])
    assert result.exit_code != 0
    assert (f"~ dme-medium-01-t0: check {RUBRIC} claimed pass, judged fail, which changes the result"
            in result.output)
    assert f"- dme-medium-01-t0: result claimed 'pass', re-judged 'fail' (the judge overturned {RUBRIC})" \
        in result.output
    result = CliRunner().invoke(main, ["leaderboard", "build", str(submission.parent), "-o", str(tmp_path / "site"),
                                       "--tasks-dir", str(tasks_dir), "--judge", "anthropic:claude-test"],
                                env={"ANTHROPIC_API_KEY": ""})
    assert result.exit_code != 0 and "needs an API key: set ANTHROPIC_API_KEY" in result.output
    assert not (tmp_path / "site").exists()
