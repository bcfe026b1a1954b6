"""`tasks check --out DIR` again: verdicts without problems of unchanged tasks are reused."""
from __future__ import annotations

import contextlib

import pytest

from admindesk.harness.task_tools import check as task_check
from admindesk.harness.task_tools.check import TaskCheck, check_tasks
from admindesk.schema.task_model import load_tasks


@pytest.fixture
def checked(monkeypatch):
    """Fake episodes: every call is recorded; tasks named in `failing` get a problem."""
    calls: list[tuple[str, bool, bool]] = []
    failing: set[str] = set()

    def fake_check(env, task, out_dir, *, ablate, rerun=False):
        calls.append((task.id, ablate, rerun))
        return TaskCheck(task.id, {"reference": "unjudged", "noop": "fail"},
                         ["noop was not failed"] if task.id in failing else [])

    monkeypatch.setattr(task_check, "check_task", fake_check)
    monkeypatch.setattr(task_check, "Env", lambda *args, **kwargs: contextlib.nullcontext())
    return calls, failing


def test_a_second_check_repeats_only_what_failed_or_changed(checked, tmp_path):
    calls, failing = checked
    first, second = load_tasks()[:2]
    failing.add(second.id)
    verdicts, _ = check_tasks([first, second], tmp_path, echo=lambda line: None)
    assert [bool(v.problems) for v in verdicts] == [False, True] and len(calls) == 2

    failing.clear()
    rows: list[str] = []
    verdicts, _ = check_tasks([first, second], tmp_path, echo=rows.append)
    assert calls[2:] == [(second.id, False, False)]  # the first task's verdict is reused
    assert [v.reused_from is not None for v in verdicts] == [True, False]
    assert any(first.id in row and "verdict of an earlier check" in row for row in rows)

    changed = first.model_copy(update={"max_steps": first.max_steps + 1})
    check_tasks([changed], tmp_path, echo=lambda line: None)
    assert calls[-1] == (first.id, False, False)  # a changed task file is checked again
    check_tasks([changed], tmp_path, ablate={first.id}, echo=lambda line: None)
    assert calls[-1] == (first.id, True, False)  # a deeper check than the stored one runs
