"""`admindesk run --agent NAME --tasks SEL --out DIR`: run an agent on a task selection
with the single-worker runner and write the run folder (see runner_local).

SEL is `all`, task ids (comma separated), or filters `key=value[,key=value]` over task
fields (workflow, difficulty, challenge, template, feasible), e.g.
`workflow=prior_auth,difficulty=hard`.
"""
from __future__ import annotations

from pathlib import Path

import click

from admindesk.verifiers.task_model import Task

FILTER_FIELDS = ("workflow", "difficulty", "challenge", "template", "feasible")


def select_tasks(selection: str, tasks: list[Task]) -> list[Task]:
    """The tasks SEL names, in suite order; ValueError on an unknown id or filter field."""
    selection = selection.strip()
    if selection in ("", "all"):
        return list(tasks)
    parts = [part.strip() for part in selection.split(",") if part.strip()]
    if all("=" in part for part in parts):
        wanted: dict[str, set[str]] = {}
        for part in parts:
            key, value = (piece.strip() for piece in part.split("=", 1))
            if key not in FILTER_FIELDS:
                raise ValueError(f"cannot filter on {key!r}; filters: {', '.join(FILTER_FIELDS)}")
            wanted.setdefault(key, set()).add(value)

        def matches(task: Task) -> bool:
            for key, values in wanted.items():
                value = getattr(task, key)
                value = str(value).lower() if isinstance(value, bool) else (value or "")
                if key == "template":
                    value = value.rsplit("/", 1)[-1]
                if value not in values:
                    return False
            return True
        return [task for task in tasks if matches(task)]
    if any("=" in part for part in parts):
        raise ValueError("mix of task ids and filters; give one or the other")
    by_id = {task.id: task for task in tasks}
    unknown = [part for part in parts if part not in by_id]
    if unknown:
        raise ValueError(f"no task {', '.join(unknown)}")
    return [by_id[part] for part in parts]


@click.command("run")
@click.option("--agent", "agent_name", required=True, help="Agent name (see harness/agents/registry.py).")
@click.option("--tasks", "selection", default="all", show_default=True,
              help="all, ids (comma separated) or filters such as workflow=prior_auth,difficulty=hard.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Run folder (run.json and one folder per episode).")
@click.option("--trials", default=1, show_default=True, type=click.IntRange(1, 100))
@click.option("--prompt-mode", type=click.Choice(["zero_shot", "general", "task_specific"]), default=None,
              help="Prompt mode for model agents.")
@click.option("--observation", type=click.Choice(["screenshot", "axtree", "both"]), default="screenshot",
              show_default=True)
@click.option("--max-steps", type=click.IntRange(1, 10_000), default=None,
              help="Override every task's step budget.")
def run(agent_name: str, selection: str, out_dir: Path, trials: int, prompt_mode: str | None,
        observation: str, max_steps: int | None) -> None:
    """Run an agent on a selection of tasks (one worker) and write DIR/run.json."""
    from admindesk.harness import runner_local
    from admindesk.verifiers.task_model import load_tasks

    try:
        chosen = select_tasks(selection, load_tasks())
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if not chosen:
        raise click.ClickException(f"the selection {selection!r} names no task")

    def report(outcome) -> None:
        summary = outcome.summary
        click.echo(f"{summary.task_id:<16} t{summary.trial} {summary.result:<9} "
                   f"subtasks {summary.subtask_pass_rate:.2f} steps {summary.steps:>3} {summary.wall_s:6.1f} s"
                   + (f"  ({summary.agent_note or summary.error})" if summary.agent_note or summary.error else ""))
    try:
        outcomes = runner_local.run(agent_name, chosen, out_dir, trials=trials, observation=observation,
                                    max_steps=max_steps, prompt_mode=prompt_mode, on_episode=report)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    metrics = runner_local.metrics([o.summary for o in outcomes])
    click.echo(f"e2e_success {metrics['e2e_success']:.2f}  subtask_pass_rate {metrics['subtask_pass_rate']:.2f}  "
               f"n_episodes {metrics['n_episodes']}  -> {out_dir / 'run.json'}")
