"""`admindesk tasks ...`: list, show, validate and generate task files, `tasks stats` (the
suite's shape), and `tasks case ID`, which prints what a task's case puts in each app
without starting any app: it builds the task's templates the way a reset does (or takes
them from the cache) and lists the rows they add to the world's."""
from __future__ import annotations

import re
import tempfile
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from admindesk.schema.task_model import TASKS_ROOT

if TYPE_CHECKING:  # the apps' kit is imported only by `tasks case` itself
    from admindesk.envs.case_rows import TableRows

MAIN_FIELDS = 6
VALUE_WIDTH = 40


@click.group()
def tasks() -> None:
    """Task files: list, show, validate, generate, and what they put in the apps."""


TASKS_DIR_OPTION = click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=TASKS_ROOT,
                                show_default=True, help="Folder of task files.")


def _load(tasks_dir: Path):
    from admindesk.schema.task_model import TaskFileError, load_tasks
    try:
        return load_tasks(tasks_dir)
    except TaskFileError as exc:
        raise click.ClickException(str(exc)) from exc


def _selected(selection: str, tasks_dir: Path):
    """The tasks of `tasks_dir` that SELECTION names (the grammar of `admindesk run --tasks`)."""
    from admindesk.harness.cli.run import select_tasks
    try:
        return select_tasks(selection, _load(tasks_dir))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc


SELECTION_ARGUMENT = click.argument("selection", default="all")


@tasks.command("list")
@SELECTION_ARGUMENT
@TASKS_DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help="One JSON document: the tasks and a summary.")
def list_tasks(selection: str, tasks_dir: Path, as_json: bool) -> None:
    """One line per task of SELECTION (all, ids, or filters as `admindesk run --tasks` takes them,
    e.g. skill=cob,workflow=appeals): workflow, difficulty, challenge, feasibility, apps,
    checks and skills."""
    import json

    from admindesk.harness.task_tools.suite import suite_summary, task_row
    rows = [task_row(task) for task in _selected(selection, tasks_dir)]
    if as_json:
        click.echo(json.dumps({"tasks": rows, "summary": suite_summary(rows)}, indent=2))
        return
    for row in rows:
        click.echo(f"{row['id']:<16} {row['workflow']:<10} {row['difficulty'] or '-':<7} {row['challenge']:<22} "
                   f"{'feasible' if row['feasible'] else 'INFEASIBLE':<10} {','.join(row['apps']):<44} "
                   f"{row['n_checks']:>3} checks ({row['n_rubric']} rubric)  {','.join(row['skills'])}")
    summary = suite_summary(rows)
    click.echo(f"{summary['tasks']} task(s), {summary['checks']} checks "
               f"({summary['deterministic']} deterministic, {summary['rubric']} rubric), "
               f"{summary['infeasible']} infeasible")


@tasks.command("stats")
@SELECTION_ARGUMENT
@TASKS_DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help="The figures as one JSON document.")
def stats(selection: str, tasks_dir: Path, as_json: bool) -> None:
    """The suite's shape over SELECTION: templates and tasks per template, tasks per skill,
    prior auth's MRI share and service categories (see harness/task_tools/suite_stats.py)."""
    import json

    from admindesk.harness.task_tools.suite_stats import format_stats, suite_stats
    figures = suite_stats(_selected(selection, tasks_dir))
    if as_json:
        click.echo(json.dumps(figures, indent=2))
        return
    for line in format_stats(figures):
        click.echo(line)


@tasks.command("show")
@click.argument("task_id")
@TASKS_DIR_OPTION
def show(task_id: str, tasks_dir: Path) -> None:
    """Print task TASK_ID's file."""
    from admindesk.schema.task_model import read_task_yaml
    for path in sorted(tasks_dir.rglob("*.yaml")):
        if read_task_yaml(path).get("id") == task_id:
            click.echo(path.read_text(encoding="utf-8"), nl=False)
            return
    raise click.ClickException(f"no task {task_id!r} under {tasks_dir}")


@tasks.command("validate")
@TASKS_DIR_OPTION
def validate(tasks_dir: Path) -> None:
    """Load every task and validate its checks statically; exit 1 on any problem."""
    from admindesk.harness.task_tools.suite import suite_problems
    tasks_found = _load(tasks_dir)
    problems = suite_problems(tasks_found)
    for problem in problems:
        click.echo(problem, err=True)
    if problems:
        raise click.ClickException(f"{len(problems)} problem(s) in {len(tasks_found)} task(s)")
    click.echo(f"{len(tasks_found)} task(s) valid")


@tasks.command("new")
@TASKS_DIR_OPTION
@click.option("--template", "template", required=True, metavar="WORKFLOW/NAME",
              help="Template to draft from, e.g. prior_auth/no_auth_lookup.")
@click.option("--id", "task_id", required=True, help="The new task's id (lowercase letters, digits, dashes).")
def new(tasks_dir: Path, template: str, task_id: str) -> None:
    """Draft a task from a template: a case row to edit (copied from one that works) and its file."""
    from admindesk.harness.task_tools.authoring import new_task
    from admindesk.harness.task_tools.generation import GenerationError
    try:
        table, task_file = new_task(tasks_dir, template, task_id)
    except GenerationError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"case row {task_id} added to {table}\ntask file {task_file}\n"
               f"edit the row's case, then: admindesk tasks generate && admindesk tasks validate "
               f"&& admindesk tasks check {task_id}")


@tasks.command("generate")
@TASKS_DIR_OPTION
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a task file differs from its template.")
@click.option("--split", "split", default=None, metavar="NAME",
              help="Draw a held-out split NAME (new cases of the templates) into --out instead.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="The split's seed (same seed, same files).")
@click.option("--per-template", type=click.IntRange(min=1), default=None,
              help="Tasks per template (default: one new case per public task).")
@click.option("--private-seed", is_flag=True, help="Record only the seed's sha256 in split.json.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The split's complete folder, which the maintainers keep (new, empty, or an earlier split "
                   "it replaces).")
@click.option("--public-out", "public_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The split's public copy for submitters, without checks (default: OUT-public beside OUT).")
def generate(tasks_dir: Path, check: bool, split: str | None, seed: int | None, per_template: int | None,
             private_seed: bool, out_dir: Path | None, public_dir: Path | None) -> None:
    """Render task files from tasks/templates (templates + case tables), or with --split a
    held-out split of fresh cases (see harness/task_tools/splits/)."""
    from admindesk.harness.task_tools.generation import GenerationError, Generator
    split_options = {"--seed": seed, "--per-template": per_template, "--out": out_dir,
                     "--private-seed": private_seed or None, "--public-out": public_dir}
    if split is None:
        given = [name for name, value in split_options.items() if value is not None]
        if given:
            raise click.UsageError(f"{', '.join(given)}: only with --split NAME")
    else:
        _generate_split(tasks_dir, check, split, seed, per_template, private_seed, out_dir, public_dir)
        return
    generator = Generator(tasks_dir)
    try:
        if check:
            differences = generator.differences()
            for line in differences:
                click.echo(line, err=True)
            if differences:
                raise click.ClickException(f"{len(differences)} task file(s) out of date")
            click.echo("task files match their templates and case tables")
            return
        changed = generator.write()
    except GenerationError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{len(changed)} task file(s) written" + "".join(f"\n  {path}" for path in changed))


def _generate_split(tasks_dir: Path, check: bool, split: str, seed: int | None, per_template: int | None,
                    private_seed: bool, out_dir: Path | None, public_dir: Path | None) -> None:
    from admindesk.harness.task_tools.generation import GenerationError
    from admindesk.harness.task_tools.splits.generate import write_split
    from admindesk.harness.task_tools.splits.sampler import SamplingError
    from admindesk.harness.task_tools.splits.withheld import write_public_copy
    if check:
        raise click.UsageError("--check compares the public task files; it does not go with --split")
    if seed is None or out_dir is None:
        raise click.UsageError("--split NAME needs --seed N and --out DIR")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", split):
        raise click.BadParameter("lower-case letters, digits and dashes, starting with a letter or digit",
                                 param_hint="--split")
    public_dir = public_dir or out_dir.with_name(out_dir.name + "-public")
    if public_dir.exists() and any(public_dir.iterdir()) and not (public_dir / "split.json").is_file():
        raise click.ClickException(f"{public_dir}: not empty and not a split's public copy; choose a new --public-out")
    try:
        info = write_split(out_dir, split, seed, per_template, private_seed=private_seed, tasks_dir=tasks_dir)
        public = write_public_copy(out_dir, public_dir)
    except (GenerationError, SamplingError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{len(info.tasks)} task file(s) of split {split} written to {out_dir}, the maintainers' complete "
               f"copy (tasks sha256 {info.tasks_sha256[:12]}; seed sha256 {info.seed_sha256[:12]}), and without "
               f"their checks to {public_dir}, the copy submitters run (tasks sha256 {public.tasks_sha256[:12]})")


def _value(value) -> str:
    if isinstance(value, (date, datetime)):
        value = value.isoformat()
    elif isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = " ".join(str(value).split())
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 3] + "..."


def describe_rows(table: TableRows) -> list[str]:
    """One line per row: table, key, and the row's first few filled fields."""
    lines = []
    for row in table.rows:
        key = "/".join(_value(row[k]) for k in table.key_columns)
        fields = [f"{name}={_value(value)}" for name, value in row.items()
                  if name not in table.key_columns and value not in (None, "", b"")][:MAIN_FIELDS]
        lines.append(f"  {table.table:<22} {key:<18} {' '.join(fields)}")
    return lines


@tasks.command("affected")
@click.option("--by", "changed", required=True, type=click.Path(path_type=Path),
              help="The changed file (a task, template, case table, reference solution, app or world file).")
@TASKS_DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the ids and the reason as JSON.")
@click.option("--selection", "as_selection", is_flag=True,
              help="Print the ids comma-separated, as `tasks check` and `run --tasks` take them.")
def affected(changed: Path, tasks_dir: Path, as_json: bool, as_selection: bool) -> None:
    """The tasks a change to FILE could affect: the ones to re-check (`admindesk tasks check IDS`)."""
    import json

    from admindesk.harness.task_tools.affected import AffectedError, affected_tasks
    try:
        found = affected_tasks(changed, _load(tasks_dir), tasks_dir)
    except AffectedError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps({"tasks": found.task_ids, "reason": found.reason}))
        return
    if as_selection:
        click.echo(",".join(found.task_ids))
        return
    click.echo(f"{len(found.task_ids)} task(s): {found.reason}")
    for task_id in found.task_ids:
        click.echo(task_id)


@tasks.command("case")
@click.argument("task_id")
@TASKS_DIR_OPTION
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Template cache (default: ADMINDESK_CACHE_DIR or the user's cache folder).")
def case(task_id: str, tasks_dir: Path, cache_dir: Path | None) -> None:
    """Print the rows task TASK_ID's case (and raw seed) adds to each app."""
    from admindesk.envs.case_rows import CaseRowsError, case_rows

    try:
        by_app = case_rows(task_id, tasks_dir, cache_dir)
    except CaseRowsError as exc:
        raise click.ClickException(str(exc)) from exc
    for name, tables in by_app.items():
        count = sum(len(table.rows) for table in tables)
        click.echo(f"{name}: {count} row(s)" + ("" if count else " (the task does not touch this app)"))
        for table in tables:
            for line in describe_rows(table):
                click.echo(line)


@tasks.command("check")
@click.argument("selection", default="all")
@click.option("--ablate", is_flag=True, help="Also run the reference once per subtask with that subtask skipped.")
@click.option("--rerun/--no-rerun", default=True, show_default=True,
              help="Run the reference twice and require the same final state.")
@click.option("--sample", "sample_size", type=click.IntRange(1, None), default=None,
              help="Check a stratified sample of N tasks of SELECTION (every workflow x difficulty), drawn by "
                   "--day; then only one task per workflow of the sample is rerun (and ablated, with --ablate).")
@click.option("--day", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="The day that draws the sample (YYYY-MM-DD; default today).")
@click.option("--workers", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Tasks checked at once, each worker with its own apps and browser.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the episodes and each task's verdict are kept (default: a temporary folder); "
                   "checking into it again reuses the verdicts without problems of unchanged tasks, and a "
                   "deeper check (--ablate, a rerun) builds on a shallower one's reference and controls.")
@click.option("--live-ablations", is_flag=True,
              help="Run every ablation live, also those that end where the reference reached the skipped phase "
                   "(by default derived from the reference's state there), and require both to end the same.")
@click.option("--screenshots", is_flag=True,
              help="Draw every step's frame and keep it in the episode folders (slower; the agents here "
                   "read the page, not the frame).")
@TASKS_DIR_OPTION
def check(selection: str, ablate: bool, rerun: bool, sample_size: int | None, day, workers: int,
          out_dir: Path | None, live_ablations: bool, screenshots: bool, tasks_dir: Path) -> None:
    """Run reference, noop and the controls on SELECTION; exit 1 unless the reference passes
    every task and every control fails every task (see harness/task_tools/check.py)."""
    from admindesk.harness.cli.run import select_tasks
    from admindesk.harness.task_tools.check import check_tasks, one_per_workflow, stratified_sample
    from admindesk.harness.task_tools.folders import load_task_folder
    try:
        chosen = select_tasks(selection, load_task_folder(tasks_dir))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if not chosen:
        raise click.ClickException(f"no task matches {selection!r}")
    deep = chosen
    if sample_size is not None:
        draw_day = (day or datetime.now()).date()
        chosen = stratified_sample(chosen, sample_size, draw_day)
        deep = one_per_workflow(chosen, draw_day)
        click.echo(f"sample of {draw_day}: {', '.join(t.id for t in chosen)}; ablated: {', '.join(t.id for t in deep)}")
    deep_ids = {task.id for task in deep}
    with tempfile.TemporaryDirectory(prefix="admindesk-check-") as scratch:
        verdicts, wall = check_tasks(chosen, out_dir or Path(scratch), ablate=deep_ids if ablate else (),
                                     rerun=deep_ids if rerun else (), workers=workers, tasks_dir=tasks_dir,
                                     observation="screenshot" if screenshots else "none",
                                     live_ablations=live_ablations, echo=click.echo)
    bad = [v for v in verdicts if v.problems]
    reused = [v for v in verdicts if v.reused_from]
    deepened = [v for v in verdicts if v.deepened_from]
    earlier = [f"{len(reused)} verdict(s) reused"] * bool(reused) + [f"{len(deepened)} deepened"] * bool(deepened)
    click.echo(f"{len(verdicts) - len(bad)}/{len(verdicts)} task(s) proven in {wall:.0f} s"
               + (f" ({', '.join(earlier)} from earlier checks in {out_dir})" if earlier else ""))
    if bad:
        raise click.ClickException(f"{len(bad)} task(s) with problems: {', '.join(v.task_id for v in bad)}")
