"""`admindesk score RECORD_OR_RUN_DIR`: re-score stored episode records offline.

A record file (or every episode's record under a run folder) is scored against its task
(by `task_id`, from tasks/ or --tasks-dir); scores.json is written beside each record
and a table is printed. Every input is checked before anything is written, so bad
input (a missing file, bad JSON, an unknown task, a bad judge spec or a missing API key)
is an error that writes nothing. With `--judge SPEC` rubric checks are judged (model
judges vote and cache their verdicts; see cli_judge); scores.json records the judge's
spec, model versions and cache hits. In a run folder, run.json and each episode's
summary.json take the new results too (see rescore), so reports show them.
"""
from __future__ import annotations

import json
from pathlib import Path

import click
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from admindesk.harness.cli.judge import judge_from_options, judge_options
from admindesk.harness.running.rescore import write_scores_back
from admindesk.schema.task_model import TASKS_ROOT, TaskFileError, load_tasks
from admindesk.schema.values import CaseReferenceError
from admindesk.verifiers.episode import QueryError
from admindesk.verifiers.judge import Judge
from admindesk.verifiers.record_files import PLAIN_RECORD_FILE, RECORD_FILE, RecordFileError, load_record, record_file
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import TaskResult, score_task, summarise


def find_records(target: Path) -> list[Path]:
    """The record files `target` names: itself, or the record of every episode folder in it
    (or its own record)."""
    if target.is_file():
        return [target]
    if target.is_dir():
        records = [record_file(folder) for folder in sorted(target.iterdir()) if folder.is_dir()]
        records = records if any(records) else [record_file(target)]
        found = [path for path in records if path is not None]
        if not found:
            raise click.ClickException(f"{target}: no {RECORD_FILE} (or {PLAIN_RECORD_FILE}) in it "
                                       "or its episode folders")
        return found
    raise click.ClickException(f"{target}: no such file or folder")


def read_record(path: Path) -> EpisodeRecord:
    """One stored record; a clear error for unreadable text, bad JSON or a wrong shape."""
    try:
        return load_record(path)
    except RecordFileError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot read the record ({exc.strerror})") from exc
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"]) or "(top level)"
        raise click.ClickException(f"{path}: not an episode record ({where}: {problem['msg']})") from exc


@click.command("score")
@click.argument("target", type=click.Path(path_type=Path))
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=TASKS_ROOT,
              show_default=True, help="Folder of task files.")
@click.option("--judge", "judge_spec", default=None, metavar="SPEC",
              help="Judge for rubric checks: openai:MODEL, openai-compatible:URL#MODEL, anthropic:MODEL "
                   "(comma-separated for a jury) or module:attr. Without one they are reported unjudged.")
@judge_options
def score(target: Path, tasks_dir: Path, judge_spec: str | None, **judge_settings) -> None:
    """Score RECORD_OR_RUN_DIR: writes scores.json beside each record and prints a table."""
    judge = judge_from_options(judge_spec, **judge_settings) if judge_spec else None
    _print(score_target(target, tasks_dir, judge))


def score_target(target: Path, tasks_dir: Path, judge: Judge | None) -> list[tuple[Path, TaskResult]]:
    """Score the record(s) `target` names with `judge` and write the scores back (scores.json
    beside each record; run.json and summary.json in a run folder); ClickException on bad input,
    before anything is written."""
    paths = find_records(target)
    records = [(path, read_record(path)) for path in paths]
    try:
        tasks = {task.id: task for task in load_tasks(tasks_dir)}
    except TaskFileError as exc:
        raise click.ClickException(str(exc)) from exc
    unknown = sorted({record.task_id for _, record in records} - set(tasks))
    if unknown:
        raise click.ClickException(f"no task {', '.join(unknown)} in {tasks_dir}")
    scored: list[tuple[Path, TaskResult]] = []
    for path, record in records:
        try:
            scored.append((path, score_task(tasks[record.task_id], record, judge)))
        except (QueryError, CaseReferenceError) as exc:
            raise click.ClickException(f"task {record.task_id} cannot be scored: {exc}") from exc
    for path, result in scored:
        (path.parent / "scores.json").write_text(result.model_dump_json(indent=1), encoding="utf-8")
    if target.is_dir():
        write_scores_back(target, {path.parent.name: result for path, result in scored},
                          judge.name if judge is not None else None)
    return scored


def _print(scored: list[tuple[Path, TaskResult]]) -> None:
    table = Table(title="Scores")
    for column in ("record", "task", "result", "subtasks", "checks", "unjudged", "judge errors",
                   "guards failed", "first failing"):
        table.add_column(column, no_wrap=column in ("record", "task", "result"))
    colours = {"pass": "green", "unjudged": "yellow", "error": "magenta", "fail": "red"}
    for path, result in scored:
        failed_guards = [g.kind for g in result.guards if not g.result.passed]
        table.add_row(str(path.parent.name), result.task_id,
                      f"[{colours[result.outcome]}]{result.outcome}[/]",
                      f"{result.subtask_pass_rate:.0%}", f"{result.n_checks_passed}/{result.n_checks}",
                      str(result.n_unjudged), str(result.n_errors), ", ".join(failed_guards) or "-",
                      result.first_failing_subtask or "-")
    console = Console()
    console.print(table)
    summary = summarise([result for _, result in scored])
    line = {"tasks": summary.tasks.model_dump(), "subtask_pass_rate": round(summary.subtask_pass_rate, 3)}
    usages = [result.judge for _, result in scored if result.judge is not None]
    if usages:
        line["judge"] = {"spec": usages[0].spec,
                         "models": sorted({model for usage in usages for model in usage.models}),
                         "votes": sum(usage.votes for usage in usages),
                         "cache_hits": sum(usage.cache_hits for usage in usages),
                         "errors": sum(usage.errors for usage in usages)}
    click.echo(json.dumps(line))
