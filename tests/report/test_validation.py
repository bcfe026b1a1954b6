"""Leaderboard validation: a clean submission is accepted; each kind of tampering or gap is
rejected with a reason that names what is wrong (and the episode, where there is one)."""
from __future__ import annotations

import json
import shutil

import pytest

from admindesk.harness.leaderboard import validate_submission
from admindesk.harness.leaderboard.submission import compatible


def edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_clean_submission_is_accepted(submission, tasks_dir):
    verdict = validate_submission(submission, tasks_dir)
    assert verdict.accepted, verdict.problems
    assert verdict.n_episodes == 4 and verdict.meta.model == "alpha-model"


def test_one_edited_score_is_rejected_naming_the_episode(submission, tasks_dir):
    edit_json(submission / "pa-medium-01-t1/scores.json", lambda d: d.update(outcome="pass"))
    verdict = validate_submission(submission, tasks_dir)
    assert not verdict.accepted
    assert verdict.problems == ["pa-medium-01-t1: outcome claimed 'pass', re-scored 'fail'"]


def test_an_edited_check_result_is_rejected_naming_the_check(submission, tasks_dir):
    def flip(data):
        check = data["subtasks"][0]["checks"][0]["result"]
        check.update(passed=True, score=1.0)
    edit_json(submission / "dme-medium-01-t1/scores.json", flip)
    problems = validate_submission(submission, tasks_dir).problems
    assert any(p.startswith("dme-medium-01-t1: check review/") and "claimed pass" in p for p in problems), problems


def test_an_edited_rubric_verdict_changes_the_recomputed_outcome(submission, tasks_dir):
    """Rubric verdicts are replayed from the submission, but the outcome is recomputed:
    flipping a verdict alone no longer matches the claimed outcome."""
    def fail_rubric(data):
        for subtask in data["subtasks"]:
            for check in subtask["checks"]:
                if check["kind"] == "rubric":
                    check["result"].update(passed=False, score=0.0)
    edit_json(submission / "pa-medium-01-t0/scores.json", fail_rubric)
    problems = validate_submission(submission, tasks_dir).problems
    assert "pa-medium-01-t0: outcome claimed 'pass', re-scored 'fail'" in problems


def test_an_edited_run_json_line_is_rejected(submission, tasks_dir):
    edit_json(submission / "run.json", lambda d: d["episodes"][1].update(result="pass"))
    problems = validate_submission(submission, tasks_dir).problems
    assert "pa-medium-01-t1: run.json result 'pass', re-scored 'fail'" in problems
    assert any(p.startswith("run.json metrics.e2e_success") for p in problems)


def test_edited_headline_metrics_are_rejected(submission, tasks_dir):
    edit_json(submission / "run.json", lambda d: d["metrics"].update(e2e_success=0.9))
    assert validate_submission(submission, tasks_dir).problems == [
        "run.json metrics.e2e_success is 0.9, the episodes give 0.5000"]


def test_a_missing_episode_is_rejected(submission, tasks_dir):
    edit_json(submission / "run.json", lambda d: d.update(episodes=d["episodes"][:-1]))
    problems = validate_submission(submission, tasks_dir).problems
    assert "missing episode(s): dme-medium-01-t1" in problems


def test_a_missing_record_is_rejected(submission, tasks_dir):
    (submission / "dme-medium-01-t0/record.json.gz").unlink()
    assert validate_submission(submission, tasks_dir).problems == ["dme-medium-01-t0: record.json.gz is missing"]


def test_an_unknown_task_is_rejected(submission, tasks_dir, tmp_path):
    fewer = tmp_path / "fewer-tasks"
    fewer.mkdir()
    shutil.copy(tasks_dir / "pa-medium-01.yaml", fewer)
    problems = validate_submission(submission, fewer).problems
    assert "unknown task(s): dme-medium-01" in problems


@pytest.mark.parametrize("change, message", [
    ({"sponsor": "x"}, "sponsor: Extra inputs are not permitted"),
    ({"observation": "video"}, "observation: Input should be"),
    ({"contact": "nobody"}, "contact: String should match pattern"),
])
def test_submission_metadata_is_checked_against_its_schema(submission, tasks_dir, change, message):
    edit_json(submission / "submission.json", lambda d: d.update(change))
    problems = validate_submission(submission, tasks_dir).problems
    assert len(problems) == 1 and message in problems[0], problems


def test_metadata_must_agree_with_the_run(submission, tasks_dir):
    edit_json(submission / "submission.json", lambda d: d.update(observation="axtree"))
    assert validate_submission(submission, tasks_dir).problems == [
        "submission.json says observation 'axtree', run.json 'screenshot'"]


def test_an_incompatible_version_is_rejected(submission, tasks_dir):
    edit_json(submission / "run.json", lambda d: d["versions"].update(admindesk="0.0.9"))
    problems = validate_submission(submission, tasks_dir).problems
    assert len(problems) == 1 and problems[0].startswith("made with admindesk 0.0.9, not compatible")


def test_versions_are_compatible_within_a_minor_release():
    assert compatible("0.1.3", "0.1.0") and not compatible("0.2.0", "0.1.0") and not compatible(None, "0.1.0")


def test_a_run_on_part_of_the_suite_is_rejected(submission, tasks_dir, tmp_path):
    more = tmp_path / "more-tasks"
    shutil.copytree(tasks_dir, more)
    text = (more / "pa-medium-01.yaml").read_text().replace("id: pa-medium-01", "id: pa-medium-02")
    (more / "pa-medium-02.yaml").write_text(text)
    assert validate_submission(submission, more).problems == [
        "the run leaves out 1 task(s) of the suite: pa-medium-02"]


def test_an_episode_stopped_before_recording_counts_as_not_passed(submission, tasks_dir):
    """A timed-out episode (its worker was killed) has no record: nothing to re-score, and
    the headline metrics must count it as a failure."""
    shutil.rmtree(submission / "pa-medium-01-t0")

    def time_out(data):
        data["episodes"][0].update(result="timeout", subtask_pass_rate=0.0, first_failing_subtask=None)
        data["metrics"].update(e2e_success=0.25, subtask_pass_rate=0.25)
    edit_json(submission / "run.json", time_out)
    assert validate_submission(submission, tasks_dir).problems == []
    edit_json(submission / "run.json", lambda d: d["metrics"].update(e2e_success=0.5))
    assert validate_submission(submission, tasks_dir).problems == [
        "run.json metrics.e2e_success is 0.5, the episodes give 0.2500"]


def test_a_run_losing_more_than_two_percent_to_infra_errors_is_refused(submission, tasks_dir):
    """Failures relabelled infra errors with their records deleted: the scores still add up
    (run_metrics leaves infra errors out), but 1 of 4 episodes is over the 2% a run may lose."""
    shutil.rmtree(submission / "pa-medium-01-t1")

    def relabel(data):
        data["episodes"][1].update(result="infra_error", subtask_pass_rate=None, first_failing_subtask=None)
        data["metrics"].update(e2e_success=2 / 3, subtask_pass_rate=2 / 3, n_episodes=3)
    edit_json(submission / "run.json", relabel)
    problems = validate_submission(submission, tasks_dir).problems
    assert len(problems) == 1 and problems[0].startswith("1 of 4 episodes ended as infra errors"), problems
    assert "--retry-errors" in problems[0] and "pa-medium-01 t1" in problems[0]


def test_the_board_counts_an_infra_error_as_a_failure():
    from admindesk.harness.leaderboard.site import board_row

    assert board_row({"task_id": "pa-easy-01", "result": "infra_error"})["result"] == "fail"
    assert board_row({"task_id": "pa-easy-01", "result": "pass"})["result"] == "pass"


def test_a_scripted_agent_or_a_trajectory_without_model_calls_is_refused(submission, tasks_dir):
    """The reference relabelled as a model: its trajectories show no model call."""
    import gzip

    folder = submission / "pa-medium-01-t0"
    record = json.loads(gzip.decompress((folder / "record.json.gz").read_bytes()))
    for entry in record["trajectory"][1:]:
        entry.pop("agent", None)
    (folder / "record.json.gz").write_bytes(gzip.compress(json.dumps(record).encode()))
    problems = validate_submission(submission, tasks_dir).problems
    assert len(problems) == 1 and problems[0].startswith(
        "pa-medium-01-t0: step 1 does not show the model call that chose its action (no agent note"), problems
    edit_json(submission / "run.json", lambda d: d.update(agent="reference"))
    assert any("agent 'reference' is scripted" in p for p in validate_submission(submission, tasks_dir).problems)


def test_a_step_without_a_response_id_is_refused():
    from admindesk.harness.leaderboard.model_calls import model_call_problems

    call = {"usage": {"input_tokens": 900, "output_tokens": 40},
            "details": {"response_id": "resp_1", "model": "m-2026"}}
    steps = [{"step": 0, "action": None},
             {"step": 1, "action": {"type": "click", "x": 1, "y": 2}, "agent": call},
             {"step": 2, "action": {"type": "click", "x": 3, "y": 4}, "agent": {"details": {"batched": True}}},
             {"step": 3, "action": {"type": "wait", "seconds": 0},
              "agent": {"details": {"raw_reply": "???"}, "usage": {"input_tokens": 5, "output_tokens": 1}}}]
    assert model_call_problems("e", steps) == []
    steps.append({"step": 4, "action": {"type": "click", "x": 1, "y": 1},
                  "agent": {**call, "details": {"model": "m-2026"}}})
    assert "(no response id;" in model_call_problems("e", steps)[0]
    steps[-1] = {"step": 4, "action": {"type": "click", "x": 1, "y": 1},
                 "agent": {"details": {"raw_reply": "x"}}}
    assert "a malformed reply that acted" in model_call_problems("e", steps)[0]
