"""An AdminDesk run folder from an Inspect eval log (`admindesk import-inspect LOG --out DIR`).

Each sample (task x epoch) becomes the episode folder `<task>-t<epoch - 1>` with what
`admindesk run` writes: record.json.gz (decoded from the score's metadata), scores.json
(the scorer's TaskResult), trajectory.jsonl (the record's trajectory) and step-NNN.png (the
screenshots the model was shown, read back from the conversation); run.json lists them
with the runner's metrics, so reports, `leaderboard validate` and its replay read the
folder as any other. A sample that errored has a line (`error`) and no record.
"""
from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from pydantic import ValidationError

from admindesk.harness.integrations.inspect.scoring import RECORD_KEY, RESULT_KEY, USAGE_KEY, decode_record
from admindesk.harness.integrations.inspect.tools import step_screenshots
from admindesk.harness.running.folder import episode_name, install_episode, run_versions, write_json_atomic
from admindesk.harness.running.local import snapshot_hash
from admindesk.harness.running.metrics import run_metrics
from admindesk.harness.task_tools.folders import split_record
from admindesk.schema.task_model import Task
from admindesk.verifiers.record_files import RECORD_FILE, write_record
from admindesk.verifiers.scoring import TaskResult

TASK_NAME = "admindesk/admindesk"
SCORER_NAME = "admindesk_scorer"
AGENT_NAME = "inspect"


class InspectLogError(ValueError):
    """The log cannot become a run folder (unreadable, not an AdminDesk eval, a broken sample)."""


def read_admindesk_log(path: Path) -> EvalLog:
    """The eval log at `path`, if it is a finished AdminDesk eval's."""
    try:
        log = read_eval_log(str(path), resolve_attachments=True)  # the screenshots are attachments
    except FileNotFoundError as exc:
        raise InspectLogError(f"{path}: no such log") from exc
    except Exception as exc:  # Inspect raises what its readers raise on a damaged file
        raise InspectLogError(f"{path}: not a readable Inspect eval log ({type(exc).__name__}: {exc})") from exc
    if log.eval.task not in (TASK_NAME, TASK_NAME.split("/")[1]):
        raise InspectLogError(f"{path}: an eval of task {log.eval.task!r}, not {TASK_NAME}")
    if not log.samples:
        raise InspectLogError(f"{path}: the log holds no samples (status {log.status})")
    return log


def _episode(sample: EvalSample, task: Task, trial: int) -> tuple[dict[str, Any], dict[str, bytes] | None, str]:
    """The sample's run.json line, its episode files (None when it has no record), its folder."""
    name = episode_name(task.id, trial)
    line: dict[str, Any] = {"task_id": task.id, "trial": trial, "folder": name, "workflow": task.workflow,
                            "difficulty": task.difficulty, "challenge": task.challenge, "attempt": 0,
                            "wall_s": round(sample.total_time or 0.0, 2), "steps": 0, "subtask_pass_rate": 0.0,
                            "first_failing_subtask": None}
    score = (sample.scores or {}).get(SCORER_NAME)
    if sample.error is not None or score is None or not score.metadata:
        reason = sample.error.message if sample.error is not None else "the sample was not scored"
        return {**line, "result": "error", "error": reason.splitlines()[0][:500]}, None, name
    try:
        record = decode_record(score.metadata[RECORD_KEY])
        result = TaskResult.model_validate(score.metadata[RESULT_KEY])
    except (KeyError, ValueError, ValidationError) as exc:
        raise InspectLogError(f"sample {sample.id} epoch {sample.epoch}: its score holds no AdminDesk record "
                              f"and result ({exc})") from exc
    if record.task_id != task.id or result.task_id != task.id:
        raise InspectLogError(f"sample {sample.id}: the record or result is of task {record.task_id}")
    screenshots = step_screenshots(sample.messages)
    files: dict[str, bytes] = {}
    lines = []
    for entry in record.trajectory:
        step = entry.get("step")
        if isinstance(step, int) and step in screenshots:
            entry = {**entry, "screenshot": f"step-{step:03d}.png"}  # the file's line, as the Env writes it
            files[entry["screenshot"]] = screenshots[step]
        lines.append(json.dumps(entry, default=str))
    files["trajectory.jsonl"] = ("\n".join(lines) + "\n").encode("utf-8")
    files["scores.json"] = result.model_dump_json(indent=1).encode("utf-8")
    categories: dict[str, list[int]] = {}
    for subtask in result.subtasks:
        tally = categories.setdefault(subtask.category, [0, 0])
        tally[0] += subtask.outcome == "pass"
        tally[1] += 1
    usage = score.metadata.get(USAGE_KEY) or {}
    line.update(result=result.outcome, subtask_pass_rate=result.subtask_pass_rate,
                first_failing_subtask=result.first_failing_subtask, steps=len(record.trajectory) - 1,
                categories=categories, input_tokens=usage.get("input_tokens"),
                output_tokens=usage.get("output_tokens"), cost_usd=usage.get("cost_usd"),
                final_snapshot_hashes={app: snapshot_hash(snap) for app, snap in sorted(record.final_snapshots.items())})
    return line, _with_record(files, record), name


def _with_record(files: dict[str, bytes], record: Any) -> dict[str, bytes]:
    """The files plus the record as `write_record` stores it."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="admindesk-import-") as scratch:
        files[RECORD_FILE] = write_record(Path(scratch), record).read_bytes()
    return files


def import_log(log_path: Path, out_dir: Path) -> dict[str, Any]:
    """Write the run folder of the eval log at `log_path` into `out_dir`; returns run.json."""
    from admindesk.harness.integrations.inspect.task import task_files

    log = read_admindesk_log(log_path)
    settings = (log.eval.metadata or {}).get("admindesk") or {}
    tasks_dir = settings.get("tasks_dir")
    try:
        tasks = task_files(tasks_dir, settings.get("max_steps"))
    except ValueError as exc:
        raise InspectLogError(f"the log's task files cannot be read: {exc}") from exc
    out_dir.mkdir(parents=True, exist_ok=True)
    episodes = []
    for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch)):
        if str(sample.id) not in tasks:
            raise InspectLogError(f"sample {sample.id}: no such task under {tasks_dir or 'tasks/'}")
        line, files, name = _episode(sample, tasks[str(sample.id)], sample.epoch - 1)
        if files is not None:
            install_episode(out_dir, name, files)
        episodes.append(line)
    task_ids = list(dict.fromkeys(str(sample.id) for sample in log.samples or []))
    chosen = [tasks[task_id] for task_id in task_ids]
    versions = run_versions(chosen, (1280, 800))
    versions["inspect_ai"] = log.eval.packages.get("inspect_ai") or metadata.version("inspect_ai")
    versions["judge"] = settings.get("judge")
    run_json = {"agent": AGENT_NAME, "agent_options": {"model": log.eval.model},
                "observation": settings.get("observation", "screenshot"), "prompt_mode": settings.get("prompt_mode"),
                "action_space": settings.get("action_space"), "max_steps": settings.get("max_steps"),
                "tasks": task_ids, "trials": log.eval.config.epochs or 1, "backend": "inspect",
                "split": split_record(Path(tasks_dir) if tasks_dir else None), "versions": versions,
                "inspect_log": str(log_path), "wall_s": round(sum(e["wall_s"] for e in episodes), 2),
                "resumed_episodes": [], "infra_retries": [], "episodes": episodes,
                "metrics": run_metrics(episodes)}
    write_json_atomic(out_dir / "run.json", run_json)
    return run_json
