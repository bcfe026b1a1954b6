"""Rubric checks judge only text the episode wrote: parts of the source's selection that
the initial snapshot already held are dropped, and nothing new is a failure (judge or not)."""
from admindesk.verifiers.scoring import score_task
from tests.unit.fixtures.episodes import PATIENT_MRN, good_record, task, untouched_record
from tests.unit.fixtures.judges import KeywordJudge

SEEDED = {"id": 7, "mrn": PATIENT_MRN, "text": "Prior auth pending: auth request under review since 11/10."}


def rubric(result):
    return next(check for subtask in result.subtasks for check in subtask.checks if check.kind == "rubric")


def with_seeded_note(record):
    for snapshots in (record.initial_snapshots, record.final_snapshots):
        snapshots["ehr_web"]["notes"].insert(0, dict(SEEDED))
    return record


def test_seeded_text_left_in_place_fails_as_nothing_written():
    for judge in (None, KeywordJudge("auth")):
        result = score_task(task(), with_seeded_note(untouched_record()), judge)
        check = rubric(result).result
        assert check.state == "fail"
        assert "no text was written in the episode" in check.explanation
        assert "1 part(s) it selects were there before the episode" in check.explanation
        if judge is not None:
            assert judge.requests == []


def test_only_the_new_note_reaches_the_judge():
    judge = KeywordJudge("auth")
    result = score_task(task(), with_seeded_note(good_record()), judge)
    assert rubric(result).result.state == "pass"
    (request,) = judge.requests
    assert "NWH2601234" in request.text and "under review" not in request.text


def test_a_changed_note_is_judged_whole():
    record = with_seeded_note(good_record())
    record.final_snapshots["ehr_web"]["notes"][0]["text"] = SEEDED["text"] + " Approved, auth NWH2601234."
    judge = KeywordJudge("auth")
    score_task(task(), record, judge)
    assert judge.requests[0].text.startswith(SEEDED["text"] + " Approved")


def test_the_same_text_written_again_counts_once_as_new():
    record = with_seeded_note(untouched_record())
    record.final_snapshots["ehr_web"]["notes"].append(dict(SEEDED, id=8))
    judge = KeywordJudge("auth")
    score_task(task(), record, judge)
    assert judge.requests[0].text == SEEDED["text"]


def test_without_an_initial_snapshot_everything_selected_is_judged():
    record = with_seeded_note(good_record())
    del record.initial_snapshots["ehr_web"]
    judge = KeywordJudge("auth")
    score_task(task(), record, judge)
    assert "under review" in judge.requests[0].text and "NWH2601234" in judge.requests[0].text
