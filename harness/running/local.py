"""A single-worker runner: every (task, trial) episode in turn on one Env, scored after
each episode, written to a run folder.

    DIR/run.json                    agent, tasks, versions, episodes, metrics
    DIR/<task>-t<trial>/record.json.gz the EpisodeRecord the verifiers read (gzip'd JSON)
    DIR/<task>-t<trial>/scores.json the TaskResult
    DIR/<task>-t<trial>/trajectory.jsonl and step-NNN.png (written by the Env)

`run.json` keeps the names other tools read: `episodes` [{task_id, trial, result,
subtask_pass_rate, first_failing_subtask, steps, wall_s}] and `metrics` {e2e_success,
subtask_pass_rate, n_episodes}. `result` is pass | unjudged | fail | error. `split` names the
split the tasks came from (task_folders.split_record).
"""
from __future__ import annotations

import hashlib
import json
import platform
import shutil
import time
import traceback
from importlib import metadata
from itertools import groupby
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, Field

from admindesk.harness.agents import AgentError, make_agent, registry
from admindesk.harness.agents.endpoint import ModelEndpointError
from admindesk.harness.agents.loop import attach_notes
from admindesk.harness.agents.scripted import ScriptFailed
from admindesk.harness.env.environment import Env
from admindesk.harness.running.metrics import deterministic_pass
from admindesk.harness.task_tools.folders import split_record
from admindesk.process_memory import limit_arenas, release_free_memory
from admindesk.schema.task_model import Task
from admindesk.verifiers.record_files import write_record
from admindesk.verifiers.records import EpisodeRecord
from admindesk.verifiers.scoring import TaskResult, score_task

# offload(fn, *args) -> fn(*args), run where waiting on it holds up no other episode.
Offload = Callable[..., Any]


class EpisodeSummary(BaseModel):
    """One episode's line in run.json."""

    task_id: str
    trial: int
    result: str  # pass | unjudged | fail | error
    subtask_pass_rate: float
    # Every deterministic check and guard passed (the result without the rubric checks);
    # None when unscored (an error), then read from the result (metrics.deterministic_pass).
    deterministic_pass: bool | None = None
    first_failing_subtask: str | None
    steps: int
    wall_s: float
    folder: str
    error: str | None = None
    agent_note: str | None = None  # e.g. why a scripted agent stopped early
    final_snapshot_hashes: dict[str, str] = Field(default_factory=dict)


class EpisodeOutcome(BaseModel):
    """An episode's summary with its full score (None when the episode errored)."""

    summary: EpisodeSummary
    score: TaskResult | None = None


def snapshot_hash(snapshot: dict[str, Any]) -> str:
    """A stable digest of one app's snapshot (keys sorted), for determinism checks.

    A page's sub-requests (a fax's page images) reach the app in whatever order the browser
    sends them, so the audit log is hashed with each run of consecutive events of one
    endpoint at one moment sorted, and without the ids that arrival order gave them."""
    canonical = dict(snapshot)
    if isinstance(snapshot.get("audit_events"), list):
        canonical["audit_events"] = [event for _, run in groupby(
            ({k: v for k, v in event.items() if k != "id"} for event in snapshot["audit_events"]),
            key=lambda event: (event.get("at"), event.get("endpoint")))
            for event in sorted(run, key=lambda event: json.dumps(event, sort_keys=True, default=str))]
    return hashlib.sha256(json.dumps(canonical, sort_keys=True, default=str).encode()).hexdigest()


def drive_agent(env: Env, agent: Any, task: Task, obs: Any, offload: Offload | None = None) -> str | None:
    """Run one episode with `agent` from the reset's `obs`; returns a note when a scripted
    agent stopped early. `offload` as for run_episode."""
    if hasattr(agent, "drive"):
        try:
            agent.drive(env, task)
        except ScriptFailed as exc:
            return f"stopped: {exc}"
        except RuntimeError:
            if not env.episode_over:
                raise
            return f"stopped: the step budget ({task.max_steps}) ran out"  # truncated, scored as it stands
        return None
    agent.reset(task.goal, task)
    for _ in range(task.max_steps):
        try:
            action = (offload or _call)(agent.act, obs)
        except ModelEndpointError:
            raise  # the endpoint's fault, not the agent's: the episode errors (an infra error)
        except AgentError as exc:
            return f"agent error: {exc}"
        obs, terminated, truncated, _info = env.step(action)
        if terminated or truncated:
            break
    return None


def run_episode(env: Env, agent: Any, task: Task, folder: Path, trial: int,
                offload: Offload | None = None) -> EpisodeOutcome:
    """One episode of `agent` on `task`, recorded into `folder` and scored.

    `offload(fn, *args)` makes the calls that wait on a model (a model agent's `act`, the
    scoring's judge) and returns their result; an episode in flight beside others passes one
    that runs them on a thread and lets the other episodes go on meanwhile. By default they
    are plain calls. A scripted agent's `drive` acts on the browser and is never offloaded.

    Runs keep a process for many episodes: its threads share few malloc arenas (set before
    the Env's snapshot threads first allocate), and each episode's garbage (its record,
    every app's snapshot twice) goes back to the system when it is scored."""
    limit_arenas()
    outcome = _play_and_score(env, agent, task, folder, trial, offload or _call)
    release_free_memory()
    return outcome


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


def _play_and_score(env: Env, agent: Any, task: Task, folder: Path, trial: int, offload: Offload) -> EpisodeOutcome:
    started = time.perf_counter()
    try:
        obs, _info = env.reset(task)
        note = drive_agent(env, agent, task, obs, offload)
        record = env.record()
        attach_notes(record, agent)
    except Exception as exc:  # an episode that breaks is recorded as `error`, the run goes on
        summary = EpisodeSummary(task_id=task.id, trial=trial, result="error", subtask_pass_rate=0.0,
                                 first_failing_subtask=None, steps=0,
                                 wall_s=round(time.perf_counter() - started, 2), folder=folder.name,
                                 error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")
        return EpisodeOutcome(summary=summary)
    return score_and_keep(task, record, folder, trial, started, note, offload)


def score_and_keep(task: Task, record: EpisodeRecord, folder: Path, trial: int, started: float, note: str | None,
                   offload: Offload | None = None) -> EpisodeOutcome:
    """Score an episode's record and write it and its score into `folder`; `started` is when
    the episode began (perf_counter), `note` why a scripted agent stopped early."""
    score = (offload or _call)(score_task, task, record)
    folder.mkdir(parents=True, exist_ok=True)
    write_record(folder, record)
    (folder / "scores.json").write_text(score.model_dump_json(indent=1), encoding="utf-8")
    summary = EpisodeSummary(
        task_id=task.id, trial=trial, result=score.outcome, subtask_pass_rate=score.subtask_pass_rate,
        deterministic_pass=score.deterministic_pass, first_failing_subtask=score.first_failing_subtask, steps=len(record.trajectory) - 1,
        wall_s=round(time.perf_counter() - started, 2), folder=folder.name, agent_note=note,
        final_snapshot_hashes={app: snapshot_hash(snap) for app, snap in sorted(record.final_snapshots.items())})
    return EpisodeOutcome(summary=summary, score=score)


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("admindesk", "playwright", "pydantic"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return versions


def metrics(summaries: list[EpisodeSummary]) -> dict[str, Any]:
    """e2e_success (share of episodes that pass), subtask_pass_rate (mean), n_episodes."""
    n = len(summaries)
    return {"e2e_success": sum(s.result == "pass" for s in summaries) / n if n else 0.0,
            "e2e_success_or_unjudged": sum(s.result in ("pass", "unjudged") for s in summaries) / n if n else 0.0,
            "deterministic_success": sum(deterministic_pass(s.model_dump()) for s in summaries) / n if n else 0.0,
            "subtask_pass_rate": sum(s.subtask_pass_rate for s in summaries) / n if n else 0.0,
            "n_episodes": n,
            "results": {r: sum(s.result == r for s in summaries) for r in ("pass", "unjudged", "fail", "error")}}


def run(agent_name: str, tasks: list[Task], out_dir: Path, *, trials: int = 1,
        agent_options: dict[str, Any] | None = None, observation: str = "screenshot",
        max_steps: int | None = None, prompt_mode: str | None = None, env: Env | None = None,
        keep_screenshots: bool = True, tasks_dir: Path | None = None,
        on_episode: Callable[[EpisodeOutcome], None] | None = None) -> list[EpisodeOutcome]:
    """Run `agent_name` on every task `trials` times, one episode at a time; write the run
    folder and return the outcomes. An Env passed in is reused (and left open); else one is
    started over `tasks_dir` (the task files the tasks come from; None: the public suite)."""
    if trials < 1:
        raise ValueError("trials must be at least 1")
    # None is left to the agent's default, as make_agent does; run.json lists what was set.
    options = {name: value for name, value in (agent_options or {}).items() if value is not None}
    if prompt_mode is not None and "prompt_mode" in registry.agent_options(agent_name):
        options["prompt_mode"] = prompt_mode  # scripted agents take no prompt
    agent = make_agent(agent_name, **options)
    out_dir.mkdir(parents=True, exist_ok=True)
    episodes_dir = out_dir / "episodes"
    owned = env is None
    if env is not None and tasks_dir is not None and env.tasks_dir != tasks_dir.resolve():
        raise ValueError(f"the Env given reads tasks from {env.tasks_dir or 'tasks/'}, not {tasks_dir}")
    # Not re-verified per call: `tasks check` runs this for every episode, and may check
    # task files edited after generation; `admindesk run` (run_pool) verifies them.
    split = split_record(tasks_dir if tasks_dir is not None else env.tasks_dir if env is not None else None,
                         verify_files=False)
    env = env or Env(observation, record_dir=episodes_dir, tasks_dir=tasks_dir)
    env.record_dir = episodes_dir
    outcomes: list[EpisodeOutcome] = []
    started = time.perf_counter()
    try:
        for task in tasks:
            if max_steps is not None:
                task = task.model_copy(update={"max_steps": max_steps})
            for trial in range(trials):
                folder = out_dir / f"{task.id}-t{trial}"
                shutil.rmtree(folder, ignore_errors=True)
                outcome = run_episode(env, agent, task, folder, trial)
                _move_trajectory(episodes_dir, task.id, folder, keep_screenshots)
                outcomes.append(outcome)
                if on_episode is not None:
                    on_episode(outcome)
    finally:
        if owned:
            env.close()
    shutil.rmtree(episodes_dir, ignore_errors=True)
    write_run_json(out_dir, agent_name, options, env.observation_mode, tasks, [o.summary for o in outcomes],
                   trials=trials, split=split, wall_s=time.perf_counter() - started, prompt_mode=prompt_mode,
                   max_steps=max_steps)
    return outcomes


def write_run_json(out_dir: Path, agent_name: str, options: dict[str, Any], observation: str, tasks: list[Task],
                   summaries: list[EpisodeSummary], *, trials: int, split: Any, wall_s: float,
                   prompt_mode: str | None = None, max_steps: int | None = None) -> None:
    """DIR/run.json: what ran (agent, options, tasks, versions) and its episodes and metrics."""
    run_json = {"agent": agent_name, "agent_options": {k: str(v) for k, v in options.items()},
                "observation": observation, "prompt_mode": prompt_mode, "max_steps": max_steps,
                "tasks": [t.id for t in tasks], "trials": trials, "split": split, "versions": _versions(),
                "wall_s": round(wall_s, 2),
                "episodes": [s.model_dump() for s in summaries], "metrics": metrics(summaries)}
    (out_dir / "run.json").write_text(json.dumps(run_json, indent=1), encoding="utf-8")


def _move_trajectory(episodes_dir: Path, task_id: str, folder: Path, keep_screenshots: bool) -> None:
    """Move the Env's episode folder (trajectory, screenshots, Downloads) into `folder`."""
    produced = sorted(episodes_dir.glob(f"{task_id}-*"), key=lambda p: p.stat().st_mtime)
    if not produced:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for item in produced[-1].iterdir():
        if item.suffix == ".png" and not keep_screenshots:
            continue
        shutil.move(str(item), folder / item.name)
    shutil.rmtree(produced[-1], ignore_errors=True)

