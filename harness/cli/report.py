"""`admindesk report RUN_DIR [RUN_DIR ...] [-o OUT]`: a static HTML report of a run (or a
comparison of several), and `admindesk leaderboard build|validate` for submissions.

Every input is read and checked before anything is written: a broken run folder or a
rejected submission is a clear error that writes nothing. With `--judge SPEC` (as for
`admindesk score`) the leaderboard commands re-judge rubric checks with the maintainers'
judge instead of replaying the submitter's verdicts.
"""
from __future__ import annotations

from pathlib import Path

import click

from admindesk.harness.cli.evaluate import evaluate
from admindesk.harness.cli.judge import judge_from_options, judge_options
from admindesk.schema.task_model import TASKS_ROOT

RUN_DIR = click.Path(exists=True, file_okay=False, path_type=Path)


def split_dirs_option(command):
    """`--split-dir DIR` (repeatable): the maintainers' copies of held-out splits."""
    return click.option(
        "--split-dir", "split_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="The maintainers' copy of a held-out split (a folder with split.json), or a folder of such "
             "folders; repeatable. A held-out submission is re-scored against its split's copy.")(command)


def _split_catalog(split_dirs: tuple[Path, ...]):
    from admindesk.harness.leaderboard.splits import SplitCatalog
    try:
        return SplitCatalog.from_dirs(split_dirs)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc


def _split_label(split: dict) -> str:
    """How validate names the split a submission ran."""
    if split["name"] == "public":
        return "public split"
    return f"held-out split {split['name']}" + (" (private seed)" if split.get("seed") is None else "")


def rejudge_option(command):
    """`--judge SPEC` plus the judge settings `admindesk score` takes."""
    command = judge_options(command)
    return click.option(
        "--judge", "judge_spec", default=None, metavar="SPEC",
        help="Re-judge rubric checks with this judge (openai:MODEL, openai-compatible:URL#MODEL, "
             "anthropic:MODEL, comma-separated for a jury, or module:attr; cached). Without one the "
             "submitter's own rubric verdicts are replayed, and the site says so.")(command)


def _review_summary(verdict) -> str:
    """What re-judging found, for the last line of `validate`."""
    if verdict.judge is None:
        return "rubric verdicts are the submitter's own (not re-judged; pass --judge to re-judge)"
    usage = verdict.judge_usage
    paid = f"; {usage.votes} votes, {usage.cache_hits} from the cache" if usage is not None else ""
    return (f"rubric checks re-judged by {verdict.judge}: {len(verdict.disagreements)} overturned, "
            f"{len(verdict.judge_errors)} judge error(s){paid}")


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=RUN_DIR)
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder (default: RUN_DIR/report for one run, ./comparison for several).")
def report(run_dirs: tuple[Path, ...], out_dir: Path | None) -> None:
    """Write an HTML report of RUN_DIR (with several, a side-by-side comparison)."""
    from admindesk.harness.report import RunFolderError, write_report

    out = out_dir or (run_dirs[0] / "report" if len(run_dirs) == 1 else Path("comparison"))
    try:
        index = write_report(list(run_dirs), out, warn=lambda text: click.echo(f"warning: {text}", err=True))
    except RunFolderError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"report: {index}")


@click.group("leaderboard")
def leaderboard() -> None:
    """Validate leaderboard submissions and build the leaderboard site."""


leaderboard.add_command(evaluate)


@leaderboard.command("validate")
@click.argument("submission", type=RUN_DIR)
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=TASKS_ROOT,
              show_default=True, help="Folder of task files the scores are re-computed against.")
@split_dirs_option
@rejudge_option
@click.option("--replay", is_flag=True,
              help="Re-execute every episode's recorded actions in a fresh Env and require the recorded "
                   "initial and final state, files and answer (the maintainers' verification).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Envs replaying at once (with --replay).")
@click.option("--ledger", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The maintainers' ledger of replayed submissions: a submission that replays is written "
                   "to it, and `leaderboard build --ledger` then lists it as verified (needs --replay).")
def validate(submission: Path, tasks_dir: Path, split_dirs: tuple[Path, ...], judge_spec: str | None,
             replay: bool, workers: int, ledger: Path | None, **judge_settings) -> None:
    """Check SUBMISSION (a run folder with submission.json) as the leaderboard would."""
    from importlib import metadata

    from admindesk.harness.leaderboard import validate_submission
    from admindesk.harness.leaderboard.ledger import LedgerError, add_replay

    if ledger is not None and not replay:
        raise click.UsageError("--ledger records a replay: add --replay")
    splits = _split_catalog(split_dirs)
    judge = judge_from_options(judge_spec, **judge_settings) if judge_spec else None
    verdict = validate_submission(submission, tasks_dir, judge, splits, replay_workers=workers if replay else None)
    for review in verdict.reviews:
        click.echo(f"~ {review.describe()}", err=True)
    if not verdict.accepted:
        for problem in verdict.problems:
            click.echo(f"- {problem}", err=True)
        raise click.ClickException(f"{submission}: rejected ({len(verdict.problems)} problem(s))")
    replayed = f"{verdict.replayed} episodes replayed to their records; " if replay else ""
    click.echo(f"{submission}: accepted ({verdict.n_episodes} episodes re-scored, every score matches; "
               f"{replayed}{_split_label(verdict.split)}; {_review_summary(verdict)})")
    if ledger is not None:
        try:
            add_replay(ledger, verdict.name, verdict.record_digests, metadata.version("admindesk"))
        except LedgerError as exc:
            raise click.ClickException(str(exc)) from exc
        click.echo(f"{ledger}: {verdict.name} recorded as verified")


@leaderboard.command("build")
@click.argument("submissions_dir", type=RUN_DIR)
@click.option("-o", "--out", "site_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Site folder (index.html, one report per accepted entry).")
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=TASKS_ROOT,
              show_default=True, help="Folder of task files the scores are re-computed against.")
@split_dirs_option
@rejudge_option
@click.option("--ledger", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The maintainers' ledger of replayed submissions (`leaderboard validate --replay --ledger`): "
                   "entries it holds are verified and ranked; without it every entry is self-reported.")
def build(submissions_dir: Path, site_dir: Path, tasks_dir: Path, split_dirs: tuple[Path, ...],
          judge_spec: str | None, ledger: Path | None, **judge_settings) -> None:
    """Validate every submission under SUBMISSIONS_DIR and build the site: public and held-out
    results side by side per agent; only replay-verified entries are ranked."""
    from admindesk.harness.leaderboard import build_site
    from admindesk.harness.leaderboard.ledger import load_ledger

    splits = _split_catalog(split_dirs)
    judge = judge_from_options(judge_spec, **judge_settings) if judge_spec else None
    try:
        replayed = load_ledger(ledger) if ledger is not None else None
        site = build_site(submissions_dir, site_dir, tasks_dir, judge, splits, replayed)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    for entry in site.accepted:
        for review in entry.reviews:
            click.echo(f"~ {entry.name}: {review.describe()}", err=True)
    for rejected in site.rejected:
        click.echo(f"rejected {rejected.name}: {'; '.join(rejected.problems)}", err=True)
    click.echo(f"{len(site.accepted)} listed, {len(site.rejected)} rejected -> {site.index}")
