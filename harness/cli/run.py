"""`admindesk run --agent NAME --tasks SEL --out DIR`: run an agent on a task selection
with one or more workers and write the run folder (see run_pool, run_folder).

SEL is `all`, task ids (comma separated), or filters `key=value[,key=value]` over task
fields (workflow, difficulty, challenge, template, feasible, skill), e.g.
`workflow=prior_auth,difficulty=hard`: a task matches when, for every key, it has one of
the values given (`template` by name or workflow/name; `skill`: one of its skills).
`--tasks-dir DIR` runs the tasks of another folder of task files (a split `admindesk tasks
generate --split` wrote) exactly like the public suite; run.json's `split` records which
split ran (see task_folders).
"""
from __future__ import annotations

import json
from pathlib import Path

import click

from admindesk.harness.agents import make_agent
from admindesk.harness.agents.endpoint import PreflightError
from admindesk.harness.agents.model_agent import ModelAgent
from admindesk.harness.agents.registry import AGENTS, API_CHANNEL_AGENTS, API_ONLY_AGENTS
from admindesk.harness.cli.judge import judge_from_options, judge_options
from admindesk.harness.cli.run_summary import JUDGE_SPECS, dry_run_lines, summary_lines
from admindesk.schema.skills import SKILLS
from admindesk.schema.task_model import Task

FILTER_FIELDS = ("workflow", "difficulty", "challenge", "template", "feasible", "skill", "channel")


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
            if key == "skill" and value not in SKILLS:
                raise ValueError(f"no skill {value!r}; skills: {', '.join(SKILLS)}")
            wanted.setdefault(key, set()).add(value)

        def matches(task: Task) -> bool:
            for key, values in wanted.items():
                if key in ("skill", "channel"):
                    if not values & set(task.skills if key == "skill" else task.channels):
                        return False
                    continue
                value = getattr(task, key)
                value = str(value).lower() if isinstance(value, bool) else (value or "")
                names = {value, value.rsplit("/", 1)[-1]} if key == "template" else {value}
                if not names & values:
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


def channel_tasks(chosen: list[Task], channel: str, agent_name: str) -> list[Task]:
    """The chosen tasks offered on `channel` (the rest are left out, with a line on stderr);
    ClickException when the agent does not work that channel or no chosen task is offered."""
    api_agent = agent_name in API_CHANNEL_AGENTS
    if channel == "api" and not api_agent:
        raise click.ClickException(f"agent {agent_name} works the screens; on --channel api use one of "
                                   f"{', '.join(API_CHANNEL_AGENTS)}")
    if channel == "screens" and agent_name in API_ONLY_AGENTS:
        raise click.ClickException(f"agent {agent_name} works the APIs: add --channel api")
    offered = [task for task in chosen if channel in task.channels]
    if not offered:
        raise click.ClickException(f"none of the {len(chosen)} selected task(s) is offered on the {channel} channel "
                                   f"(select them with channel={channel})")
    if len(offered) < len(chosen):
        click.echo(f"{len(chosen) - len(offered)} of the {len(chosen)} selected task(s) are not offered on the "
                   f"{channel} channel and are left out", err=True)
    return offered


@click.command("run")
@click.option("--agent", "agent_name", required=True, type=click.Choice(list(AGENTS)),
              help="The agent: reference (the reference solutions), controls (noop, random, notes-only, "
                   "wrong-patient, do-it-anyway) or a model agent (openai-cua, anthropic-cu, openai-compatible).")
@click.option("--tasks", "selection", default="all", show_default=True,
              help="all, ids (comma separated) or filters such as workflow=prior_auth,difficulty=hard.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Run folder (run.json and one folder per episode).")
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of task files to run, e.g. a generated held-out split (default: the public suite, tasks/).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Run only the first N tasks of the selection (in suite order).")
@click.option("--trials", default=1, show_default=True, type=click.IntRange(1, 100))
@click.option("--prompt-mode", type=click.Choice(["zero_shot", "general", "task_specific"]), default=None,
              help="Prompt mode for model agents.")
@click.option("--observation", type=click.Choice(["screenshot", "axtree", "both"]), default="screenshot",
              show_default=True)
@click.option("--channel", type=click.Choice(["screens", "api"]), default="screens", show_default=True,
              help="How the agent reaches the apps: a browser on their screens, or their FHIR and PAS APIs as "
                   "tools (the tasks that offer it; agents: " + ", ".join(API_CHANNEL_AGENTS) + ").")
@click.option("--max-steps", type=click.IntRange(1, 10_000), default=None,
              help="Override every task's step budget.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 256),
              help="Workers, each with its own four apps and browser (see run_pool).")
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Episodes in flight per worker, sharing its apps (a lane each) and its browser (a "
                   "context each): for model agents, whose episodes mostly wait on the model.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: worker processes on this machine; ray: Ray actors (pip install admindesk[ray]).")
@click.option("--ray-address", default=None, help="Ray cluster to join (default: start a local Ray).")
@click.option("--episode-timeout", default=1800.0, show_default=True, type=click.FloatRange(1.0),
              help="Wall-time seconds after which an episode is stopped and scored `timeout`.")
@click.option("--model", default=None, help="Model agents: the model (else $ADMINDESK_MODEL).")
@click.option("--base-url", default=None, help="Model agents: the endpoint (else $ADMINDESK_BASE_URL).")
@click.option("--api-key-env", default=None, help="Model agents: the variable holding the key.")
@click.option("--action-space", type=click.Choice(["coordinate", "element"]), default=None,
              help="Model agents: act on pixels or on the accessibility tree's element ids.")
@click.option("--temperature", type=click.FloatRange(0.0, 2.0), default=None,
              help="Model agents that take one (openai-compatible, anthropic-cu): the sampling temperature.")
@click.option("--seed", type=int, default=None,
              help="Agents that take one: the seed (openai-compatible sends it with each request; random).")
@click.option("--judge", "judge_spec", default=None, metavar="SPEC",
              help=f"Judge the rubric checks when the run ends ({JUDGE_SPECS}; comma-separated for a jury). "
                   "Without one they are reported unjudged.")
@judge_options
@click.option("--retry-errors", is_flag=True,
              help="Also rerun the episodes of DIR that errored (an error result, an infra error, an agent error).")
@click.option("--dry-run", is_flag=True, help="List the episodes the run would run or keep, and start nothing.")
def run(agent_name: str, selection: str, out_dir: Path, tasks_dir: Path | None, limit: int | None, trials: int,
        prompt_mode: str | None, observation: str, channel: str, max_steps: int | None, workers: int, concurrency: int,
        backend: str, ray_address: str | None, episode_timeout: float, model: str | None, base_url: str | None,
        api_key_env: str | None, action_space: str | None, temperature: float | None, seed: int | None,
        judge_spec: str | None, retry_errors: bool, dry_run: bool, **judge_settings) -> None:
    """Run an agent on a selection of tasks and write DIR/run.json; a rerun into the same DIR
    skips the episodes already finished there (errored ones too, unless --retry-errors).

    A model agent's endpoint is checked first (reachable, key taken, model known), before any
    app starts."""
    from admindesk.harness.running.folder import episode_name, plan_episodes
    from admindesk.harness.running.progress import run_with_progress
    from admindesk.harness.running.worker import WorkerConfig
    from admindesk.harness.task_tools.folders import load_task_folder, refuse_other_split, split_record
    from admindesk.schema.task_model import TASKS_ROOT

    try:
        chosen = select_tasks(selection, load_task_folder(tasks_dir or TASKS_ROOT))
        # Refused here already (run_parallel refuses too), before the progress bar is drawn.
        refuse_other_split(out_dir, split_record(tasks_dir))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if not chosen:
        raise click.ClickException(f"the selection {selection!r} names no task")
    chosen = channel_tasks(chosen, channel, agent_name)[:limit]

    agent_options = {key: value for key, value in (("model", model), ("base_url", base_url),
                                                   ("api_key_env", api_key_env), ("action_space", action_space),
                                                   ("temperature", temperature), ("seed", seed))
                     if value is not None}
    try:  # a wrong agent or option is refused here, before any app starts
        agent = make_agent(agent_name, **agent_options)
    except (ValueError, TypeError) as exc:
        raise click.ClickException(str(exc)) from exc
    if dry_run:
        names = [episode_name(task.id, trial) for task in chosen for trial in range(trials)]
        done, _ = plan_episodes(out_dir, names, retry_errors=retry_errors)
        click.echo("\n".join(dry_run_lines(names, done, out_dir)))
        return
    judge = judge_from_options(judge_spec, **judge_settings) if judge_spec else None
    if isinstance(agent, ModelAgent):
        try:
            agent.preflight()
        except PreflightError as exc:
            raise click.ClickException(str(exc)) from exc
    config = WorkerConfig(agent_name=agent_name, agent_options=agent_options, observation=observation,
                          channel=channel, prompt_mode=prompt_mode, max_steps=max_steps, concurrency=concurrency,
                          tasks_dir=tasks_dir.resolve() if tasks_dir is not None else None)
    try:
        run_json = run_with_progress(config, chosen, out_dir, trials=trials, workers=workers,
                                     backend=backend, ray_address=ray_address,
                                     episode_timeout_s=episode_timeout, retry_errors=retry_errors)
    except (ValueError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from exc
    if judge is not None:
        from admindesk.harness.cli.score import score_target
        click.echo(f"judging the rubric checks with {judge.name}", err=True)
        score_target(out_dir, tasks_dir or TASKS_ROOT, judge)
        run_json = json.loads((out_dir / "run.json").read_text(encoding="utf-8"))
    click.echo("\n".join(summary_lines(run_json, out_dir)))
