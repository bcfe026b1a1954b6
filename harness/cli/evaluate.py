"""`admindesk leaderboard evaluate SPLIT_DIR --base-url URL --model M --out DIR`: the
maintainers run a submitter's agent on a held-out split whose checks never leave them.

The submitter serves their agent over HTTP, speaking the OpenAI-compatible chat protocol
the `openai-compatible` agent speaks (their model and scaffold behind one endpoint: it
gets the task prompt and the screenshots, and answers with the next action). The
maintainers run it over the split's public copy (no checks), score the run with their
complete copy, and write submission.json beside run.json, so the folder validates and
replays like any submission.
"""
from __future__ import annotations

import datetime
import json
from pathlib import Path

import click

from admindesk.harness.cli.judge import judge_from_options, judge_options

EXISTING_DIR = click.Path(exists=True, file_okay=False, path_type=Path)


def public_copy_of(split_dir: Path, public_dir: Path) -> None:
    """ClickException unless `public_dir` is the public copy made from `split_dir`."""
    from admindesk.harness.task_tools.folders import TaskFolderError, verified_split

    try:
        complete, public = verified_split(split_dir), verified_split(public_dir)
    except TaskFolderError as exc:
        raise click.ClickException(str(exc)) from exc
    if complete is None or complete.checks_withheld or complete.public_tasks_sha256 is None:
        raise click.ClickException(f"{split_dir}: not a held-out split's complete copy (generate it with "
                                   "`admindesk tasks generate --split`)")
    if public is None or public.tasks_sha256 != complete.public_tasks_sha256:
        raise click.ClickException(f"{public_dir}: not the public copy of {split_dir} (its tasks_sha256 is not "
                                   "the public_tasks_sha256 the complete copy records)")


@click.command("evaluate")
@click.argument("split_dir", type=EXISTING_DIR)
@click.option("--public-copy", "public_dir", type=EXISTING_DIR, default=None,
              help="The split's public copy the agent runs (default: SPLIT_DIR-public beside it).")
@click.option("--base-url", required=True, help="The submitter's agent endpoint (OpenAI-compatible, ending in /v1).")
@click.option("--model", required=True, help="The model name the endpoint answers to (and the entry's model).")
@click.option("--api-key-env", default=None, help="Environment variable holding the endpoint's key, if it needs one.")
@click.option("--observation", type=click.Choice(["screenshot", "axtree", "both"]), default="screenshot",
              show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--trials", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--contact", required=True, help="The submitter's e-mail address (submission.json).")
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--judge", "judge_spec", default=None, metavar="SPEC",
              help="The maintainers' judge for rubric checks (as `admindesk score --judge`).")
@judge_options
@click.pass_context
def evaluate(ctx: click.Context, split_dir: Path, public_dir: Path | None, base_url: str, model: str,
             api_key_env: str | None, observation: str, workers: int, trials: int, contact: str, out_dir: Path,
             judge_spec: str | None, **judge_settings) -> None:
    """Run a submitter's agent, served over HTTP, on the held-out split SPLIT_DIR (the
    maintainers' complete copy): over its public copy, then scored with SPLIT_DIR."""
    from admindesk.harness.cli.run import run
    from admindesk.harness.cli.score import score_target

    public_dir = public_dir or split_dir.with_name(split_dir.name + "-public")
    if not public_dir.is_dir():
        raise click.ClickException(f"{public_dir}: no such folder (pass the public copy with --public-copy)")
    public_copy_of(split_dir, public_dir)
    judge = judge_from_options(judge_spec, **judge_settings) if judge_spec else None
    ctx.invoke(run, agent_name="openai-compatible", selection="all", out_dir=out_dir, tasks_dir=public_dir,
               trials=trials, observation=observation, workers=workers, model=model, base_url=base_url,
               api_key_env=api_key_env)
    click.echo(f"scoring with the maintainers' copy {split_dir}", err=True)
    score_target(out_dir, split_dir, judge)
    meta = {"model": model, "agent": "openai-compatible", "observation": observation,
            "date": datetime.date.today().isoformat(), "contact": contact,
            "description": f"served agent at {base_url}, run by the maintainers on {split_dir.name}"}
    (out_dir / "submission.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    click.echo(f"{out_dir}: scored with {split_dir}; validate it with "
               f"`admindesk leaderboard validate {out_dir} --split-dir {split_dir} --replay`")
