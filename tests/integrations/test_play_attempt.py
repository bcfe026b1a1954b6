"""Play mode for a human baseline (docs/human_baseline.md): the card shows the time on task,
the first Done writes the attempt as the protocol's JSON, and the printed result lines show
the values a check's query ran with, never its `{{...}}` placeholders."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from admindesk.harness.cli.main import main
from admindesk.harness.env.services import free_port
from admindesk.harness.integrations.human_attempt import HumanAttempt, Participant
from admindesk.harness.integrations.play import PlaySession, find_task, result_lines
from admindesk.verifiers.scoring import score_task
from tests.harness.conftest import fixture_services
from tests.integrations.comment_task import write_comment_task
from tests.unit.fixtures.episodes import MEMBER_ID, task, untouched_record

PROTOCOL_FIELDS = {"task_id", "task_revision", "participant", "experience_years", "role", "started_at",
                   "finished_at", "seconds", "outcome", "subtasks", "checks", "answer", "judge", "notes"}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attempt-tasks")
    write_comment_task(folder, "attempt-comment-01", "ORD-1")
    attempt_file = tmp_path_factory.mktemp("attempts") / "attempt-comment-01-P07.json"
    printed: list[str] = []
    with PlaySession(find_task("attempt-comment-01", folder), card_port=free_port(), services=fixture_services(),
                     echo=printed.append, attempt_file=attempt_file,
                     participant=Participant(id="P07", role="PA coordinator", experience_years=3),
                     judge_spec=None) as session:
        card_before = session.card_html()
        session.done("  Commented on the order.  ")
        first = attempt_file.read_text(encoding="utf-8")
        session.done("a second try")
        yield {"session": session, "file": attempt_file, "first": first, "printed": printed,
               "card_before": card_before, "card_after": session.card_html()}


def test_the_first_done_writes_the_attempt_with_the_protocols_fields(played):
    data = json.loads(played["file"].read_text(encoding="utf-8"))
    assert set(data) == PROTOCOL_FIELDS
    attempt = HumanAttempt.model_validate(data)
    session = played["session"]
    assert (attempt.task_id, attempt.participant, attempt.role, attempt.experience_years) == (
        "attempt-comment-01", "P07", "PA coordinator", 3)
    assert attempt.answer == "Commented on the order." and attempt.judge is None
    assert attempt.outcome == "fail"  # nobody commented on the order
    assert [s.id for s in attempt.subtasks] == ["review_order", "comment"]
    assert {c.state for c in attempt.checks} == {"fail"} and len(attempt.checks) == 2
    assert attempt.finished_at >= attempt.started_at and attempt.seconds == round(session.seconds_on_task, 1)


def test_the_card_shows_the_apps_guidance_an_agent_reads(played):
    card = played["card_before"]
    assert "How the applications work, and the desk's conventions</summary>" in card
    assert "The desk&#x27;s conventions (every work item)" in card  # tasks/guidance/ehr_web.md


def test_only_the_first_done_counts(played):
    assert played["file"].read_text(encoding="utf-8") == played["first"]
    assert any("kept as the first Done wrote it" in line for line in played["printed"])


def test_the_card_counts_the_time_until_done_then_shows_the_time_done_gave(played):
    assert 'id="timer"' in played["card_before"] and 'data-stopped="false"' in played["card_before"]
    assert "setInterval" in played["card_before"]
    after = played["card_after"]
    seconds = int(played["session"].seconds_on_task)
    assert 'data-stopped="true"' in after and f'data-seconds="{seconds}"' in after
    assert f"{seconds // 60}:{seconds % 60:02d}" in after and "setInterval" not in after


def test_result_lines_show_the_value_a_query_ran_with_not_its_placeholder():
    pa_task = task()
    lines = result_lines(score_task(pa_task, untouched_record()), pa_task)
    assert not any("{{" in line or "}}" in line for line in lines)
    assert any(f'member_id=="{MEMBER_ID}"' in line for line in lines)


@pytest.mark.parametrize("options, message", [
    (["--attempts-dir", "{tmp}", "--participant", "Jane Smith", "--role", "coder", "--experience-years", "2"],
     "not an opaque id"),
    (["--attempts-dir", "{tmp}", "--participant", "P07"], "--attempts-dir needs --role, --experience-years"),
    (["--participant", "P07"], "give --attempts-dir too"),
])
def test_play_refuses_an_incomplete_or_named_participant_before_starting(tmp_path, options, message):
    write_comment_task(tmp_path, "attempt-comment-02", "ORD-1")
    options = [option.replace("{tmp}", str(tmp_path / "attempts")) for option in options]
    result = CliRunner().invoke(main, ["play", "attempt-comment-02", "--tasks-dir", str(tmp_path), "--no-open",
                                       *options])
    assert result.exit_code == 2 and message in result.output, result.output


def test_play_refuses_a_participants_second_attempt_at_a_task(tmp_path):
    write_comment_task(tmp_path, "attempt-comment-03", "ORD-1")
    (tmp_path / "attempts").mkdir()
    (tmp_path / "attempts" / "attempt-comment-03-P07.json").write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(main, ["play", "attempt-comment-03", "--tasks-dir", str(tmp_path), "--no-open",
                                       "--attempts-dir", str(tmp_path / "attempts"), "--participant", "P07",
                                       "--role", "coder", "--experience-years", "2"])
    assert result.exit_code == 1 and "already exists" in result.output and "P07" in result.output
