"""New scores written back into a run folder: after `admindesk score RUN --judge SPEC` (or
`admindesk run --judge SPEC`) re-scored its records, each episode's summary.json and
run.json line take the new result and run.json's metrics are recomputed, so the report
and the leaderboard read the judged results rather than the run's unjudged ones.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from admindesk.harness.running.folder import episode_name, write_json_atomic
from admindesk.harness.running.metrics import run_metrics
from admindesk.verifiers.scoring import TaskResult


def subtask_categories(result: TaskResult) -> dict[str, list[int]]:
    """{category: [subtasks passed, subtasks]} of one scored episode."""
    categories: dict[str, list[int]] = {}
    for subtask in result.subtasks:
        tally = categories.setdefault(subtask.category, [0, 0])
        tally[0] += subtask.outcome == "pass"
        tally[1] += 1
    return categories


def score_fields(result: TaskResult) -> dict[str, Any]:
    """What an episode's run.json line says about its score."""
    return {"result": result.outcome, "subtask_pass_rate": result.subtask_pass_rate,
            "first_failing_subtask": result.first_failing_subtask,
            "deterministic_pass": result.deterministic_pass, "categories": subtask_categories(result)}


def write_scores_back(run_dir: Path, results: dict[str, TaskResult], judge: str | None) -> dict[str, Any] | None:
    """Put `results` (episode folder name -> its new score) into run.json and the episodes'
    summary.json; returns the new run.json (None when `run_dir` has none: a lone record)."""
    run_path = run_dir / "run.json"
    if not run_path.is_file():
        return None
    run_json = json.loads(run_path.read_text(encoding="utf-8"))
    for line in run_json.get("episodes", []):
        folder = line.get("folder") or episode_name(line["task_id"], line["trial"])
        if folder not in results:
            continue
        fields = score_fields(results[folder])
        line.update(fields)
        summary_path = run_dir / folder / "summary.json"
        if summary_path.is_file():
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
            write_json_atomic(summary_path, {**summary, **fields})
    run_json.setdefault("versions", {})["judge"] = judge
    run_json["metrics"] = run_metrics(run_json.get("episodes", []))
    write_json_atomic(run_path, run_json)
    return run_json
