"""`admindesk judge calibrate --judge SPEC`, and the judge options `score` shares.

Model judges are named by spec strings (`openai:MODEL`, `openai-compatible:URL#MODEL`,
`anthropic:MODEL`, comma-separated for a jury); API keys come from the environment.
Settings resolve once: option > environment variable > default.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from admindesk.verifiers.judge import Judge, JudgeSpecError, load_judge
from admindesk.verifiers.judge.calibration import (
    BAR_AGREEMENT,
    BAR_FALSE_PASS,
    BAR_KAPPA,
    CALIBRATION_ROOT,
    Agreement,
    CalibrationError,
    agreement,
    by_family,
    by_hardness,
    load_calibration,
    run_calibration,
    shortfalls,
)
from admindesk.verifiers.judge.spec import JudgeSettings, default_cache_dir


def judge_options(command):
    """Add the model-judge settings (votes, cache, timeout, retries) to a click command."""
    options = [
        click.option("--judge-votes", type=click.IntRange(1, 15), default=3, show_default=True,
                     help="Votes per model judge for each rubric item (majority; ties fail)."),
        click.option("--judge-cache", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Verdict cache folder [default: $ADMINDESK_JUDGE_CACHE or ~/.cache/admindesk/judge]."),
        click.option("--no-judge-cache", is_flag=True, help="Ask the models even for verdicts already cached."),
        click.option("--judge-timeout", type=click.FloatRange(min=1.0), default=60.0, show_default=True,
                     help="Seconds one model call may take."),
        click.option("--judge-retries", type=click.IntRange(0, 10), default=4, show_default=True,
                     help="Retries (with backoff) after a rate limit (429), a 5xx or a timeout."),
    ]
    return functools.reduce(lambda wrapped, option: option(wrapped), reversed(options), command)


def judge_from_options(spec: str, *, judge_votes: int, judge_cache: Path | None, no_judge_cache: bool,
                       judge_timeout: float, judge_retries: int) -> Judge:
    """The judge `spec` names with these settings; a bad spec or missing key is a ClickException."""
    settings = JudgeSettings(votes=judge_votes, timeout=judge_timeout, max_retries=judge_retries,
                             cache_dir=None if no_judge_cache else (judge_cache or default_cache_dir()))
    try:
        return load_judge(spec, settings)
    except JudgeSpecError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group("judge")
def judge() -> None:
    """LLM judges for rubric checks: calibration against human labels."""


@judge.command()
@click.option("--judge", "judge_spec", required=True, metavar="SPEC",
              help="openai:MODEL, openai-compatible:URL#MODEL, anthropic:MODEL (comma-separated: a jury), "
                   "or module:attr.")
@click.option("--set", "set_dir", type=click.Path(file_okay=False, path_type=Path), default=CALIBRATION_ROOT,
              show_default=True, help="Folder of calibration files (*.yml).")
@click.option("--family", "families", multiple=True, help="Only these families (repeatable).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the figures and every disagreement here.")
@judge_options
def calibrate(judge_spec: str, set_dir: Path, families: tuple[str, ...], json_out: Path | None,
              **judge_settings) -> None:
    """Judge every labelled item; print agreement, kappa, false-pass and false-fail per family and
    for the easy and the hard items."""
    try:
        items = load_calibration(set_dir)
    except CalibrationError as exc:
        raise click.ClickException(str(exc)) from exc
    known = sorted({item.family for item in items})
    unknown = sorted(set(families) - set(known))
    if unknown:
        raise click.ClickException(f"no family {', '.join(unknown)} in {set_dir} (families: {', '.join(known)})")
    if families:
        items = [item for item in items if item.family in families]
    model_judge = judge_from_options(judge_spec, **judge_settings)
    outcomes = run_calibration(model_judge, items)
    figures = by_family(outcomes)
    hardness = by_hardness(outcomes)
    overall = agreement(outcomes)
    _print(f"Judge calibration: {model_judge.name}", "family", figures, overall)
    _print("By hardness", "hardness", hardness, overall)
    missing = shortfalls(overall, figures)
    if missing:
        click.echo(f"leaderboard bar NOT met: {'; '.join(missing)}")
    else:
        click.echo(f"leaderboard bar met (agreement >= {BAR_AGREEMENT:.0%}, kappa >= {BAR_KAPPA:.2f}, "
                   f"false-pass <= {BAR_FALSE_PASS:.0%})")
    if json_out is not None:
        disagreements = [{"id": o.item.id, "family": o.item.family, "hardness": o.item.hardness,
                          "human": o.item.human, "flaw": o.item.flaw,
                          "judged": "pass" if o.judged_pass else "fail", "error": o.error}
                         for o in outcomes if (o.item.human == "pass") != o.judged_pass or o.error]
        json_out.write_text(json.dumps({"judge": model_judge.name, "overall": overall.model_dump(),
                                        "families": {k: v.model_dump() for k, v in figures.items()},
                                        "hardness": {k: v.model_dump() for k, v in hardness.items()},
                                        "meets_bar": not missing, "shortfalls": missing,
                                        "disagreements": disagreements}, indent=1), encoding="utf-8")


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _print(title: str, group_name: str, figures: dict[str, Agreement], overall: Agreement) -> None:
    table = Table(title=title)
    for column in (group_name, "items", "agreement", "kappa", "false-pass", "false-fail", "errors"):
        table.add_column(column, no_wrap=True)
    rows = list(figures.items()) + [("all", overall)]
    for group, row in rows:
        table.add_row(group, str(row.items), _rate(row.agreement),
                      "n/a" if row.kappa is None else f"{row.kappa:.2f}",
                      _rate(row.false_pass_rate), _rate(row.false_fail_rate), str(row.errors))
    Console(width=120).print(table)
