"""One worker of a parallel run: its own Env (four app processes on their own ports with
their own databases, one Chromium) and one agent, running the episodes it is handed.

The same class runs in a local worker process (run_pool) and as a Ray actor (run_ray). An
episode's files come back to the driver as bytes, so the driver alone writes the run
folder, wherever the worker ran.

Failure kinds are told apart here: an episode during which an app died or the browser
went away is an infra error (the harness's fault, retried on a fresh worker by the
driver); an exception of the agent is an agent `error`; anything else is scored.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import BaseModel, Field

from admindesk.harness.agents import make_agent
from admindesk.harness.agents.base import total_usage
from admindesk.harness.agents.registry import agent_options
from admindesk.harness.env import faults
from admindesk.harness.env.api_env import make_env
from admindesk.harness.env.browser import Browser
from admindesk.harness.env.cooperative import Gate
from admindesk.harness.env.environment import Env
from admindesk.harness.env.services import Services
from admindesk.harness.running.folder import episode_name, read_episode_files
from admindesk.harness.running.local import _move_trajectory, run_episode
from admindesk.harness.running.rescore import subtask_categories
from admindesk.schema.task_model import Task

# Exception names (as run_episode records them) that mean the harness broke, not the agent.
# ModelEndpointError: the model endpoint failed (down, key refused, 429/5xx after retries).
INFRA_ERRORS = ("ServiceError", "AppUnreachable", "TargetClosedError", "BrowserClosed", "BrowserWedged",
                "ModelEndpointError")


class WorkerConfig(BaseModel):
    """Everything a worker needs to build its Env and agent (picklable, sent to workers)."""

    agent_name: str
    agent_options: dict[str, Any] = Field(default_factory=dict)
    observation: str = "screenshot"
    # screens: a browser on the apps' pages (Env); api: the apps' APIs as tools (ApiEnv).
    channel: Literal["screens", "api"] = "screens"
    prompt_mode: str | None = None
    max_steps: int | None = None
    keep_screenshots: bool = True
    frame_size: tuple[int, int] = (1280, 800)
    # The folder of task files the apps build cases from (None: the public suite, tasks/).
    tasks_dir: Path | None = None
    # Fault injection (tests, soak): episode name -> app killed right after that episode's
    # reset, on its first attempt only, as a crash of that app would.
    kill_app_at_start: dict[str, str] = Field(default_factory=dict)
    # Episodes in flight per worker (see running/inflight.py); 1: one at a time.
    concurrency: int = Field(default=1, ge=1, le=64)


class _KillAppAtStart:
    """An agent wrapper that kills one app as the episode starts, then acts as the agent."""

    def __init__(self, agent: Any, env: Env, app: str) -> None:
        self._agent, self._env, self._app = agent, env, app

    def _kill(self) -> None:
        faults.kill_app(self._env.services, self._app)
        self._env.services.processes[self._app].process.wait(timeout=10)

    def reset(self, *args: Any, **kwargs: Any) -> None:
        self._kill()
        self._agent.reset(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._agent, name)
        if name != "drive":
            return attribute

        def drive(env: Env, task: Task) -> Any:
            self._kill()
            return attribute(env, task)
        return drive


def make_run_agent(config: WorkerConfig) -> Any:
    """The configured agent (the prompt mode only goes to agents that take one)."""
    options = dict(config.agent_options)
    if config.prompt_mode is not None and "prompt_mode" in agent_options(config.agent_name):
        options["prompt_mode"] = config.prompt_mode
    return make_agent(config.agent_name, **options)


class EpisodeWorker:
    """An Env and an agent that run episodes one after another (see the module docstring)."""

    def __init__(self, config: WorkerConfig, *, lane: tuple[Services, Browser, Gate, Path] | None = None) -> None:
        """`lane`: run on one lane of shared services with a shared browser and reset gate (the
        episodes in flight of an InflightWorker), keeping files under the given folder; by
        default the worker starts an Env of its own."""
        self.config = config
        if config.tasks_dir is not None and not config.tasks_dir.is_dir():
            # A Ray actor on another node sees its own disk: the folder must be there too.
            raise FileNotFoundError(f"tasks folder {config.tasks_dir} does not exist on {os.uname().nodename}")
        self.agent = make_run_agent(config)
        self._scratch = Path(tempfile.mkdtemp(prefix="admindesk-worker-", dir=lane[3] if lane else None))
        self._episodes_dir = self._scratch / "episodes"
        try:
            if lane is None:
                self.env = make_env(config.channel, config.observation, frame_size=config.frame_size,
                                    record_dir=self._episodes_dir, tasks_dir=config.tasks_dir)
            else:
                services, browser, gate, _folder = lane
                self.env = Env(config.observation, frame_size=config.frame_size, record_dir=self._episodes_dir,
                               services=services, browser=browser, reset_gate=gate)
        except BaseException:
            shutil.rmtree(self._scratch, ignore_errors=True)
            raise

    def pids(self) -> list[int]:
        """This worker's process and everything below it (apps, Playwright, Chromium)."""
        return [os.getpid(), *faults.descendants(os.getpid())]

    def run(self, task: Task, trial: int, attempt: int,
            offload: Callable[..., Any] | None = None) -> dict[str, Any]:
        """Run one episode; returns {"episode", "summary", "files", "infra"} where `infra`
        names what broke (None when the episode counts) and `files` is the episode folder's
        content. `offload(fn, *args)` runs the agent's model calls and the scoring (see
        run_episode)."""
        if self.config.max_steps is not None:
            task = task.model_copy(update={"max_steps": self.config.max_steps})
        name = episode_name(task.id, trial)
        folder = self._scratch / name
        shutil.rmtree(folder, ignore_errors=True)
        agent = self.agent
        if attempt == 0 and name in self.config.kill_app_at_start:
            agent = _KillAppAtStart(self.agent, self.env, self.config.kill_app_at_start[name])
        started = time.perf_counter()
        outcome = run_episode(self.env, agent, task, folder, trial, offload=offload)
        _move_trajectory(self._episodes_dir, task.id, folder, self.config.keep_screenshots)
        summary = outcome.summary.model_dump()
        summary.update(workflow=task.workflow, difficulty=task.difficulty, challenge=task.challenge,
                       attempt=attempt, worker_pid=os.getpid(),
                       wall_s=round(time.perf_counter() - started, 2))
        if outcome.score is not None:
            summary["categories"] = subtask_categories(outcome.score)
        notes = getattr(self.agent, "notes", None)
        if notes:
            usage = total_usage(notes)
            summary.update(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                           cost_usd=usage.cost_usd)
        infra = self._infra_problem(summary.get("error"))
        files: dict[str, bytes] = {}
        if infra is None:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
            files = read_episode_files(folder)
        shutil.rmtree(folder, ignore_errors=True)
        return {"episode": name, "summary": summary, "files": files, "infra": infra}

    def _infra_problem(self, error: str | None) -> str | None:
        dead = [name for name, app in self.env.services.processes.items() if not app.alive()]
        if dead:
            return f"app process died: {', '.join(sorted(dead))}"
        # With episodes in flight, another lane's reset restarts an app it found dead or hung,
        # and this episode's state in it is gone.
        restarted = self.env.apps_restarted_since_reset()
        if restarted:
            return f"app restarted during the episode: {', '.join(sorted(restarted))}"
        browser = self.env.browser
        # The API channel's Env has no browser to lose.
        if getattr(self.env, "channel", "screens") == "screens" and (browser is None or not browser.chromium.is_connected()):
            return "browser crashed"
        if error and error.split(":", 1)[0] in INFRA_ERRORS:
            return error.splitlines()[0]
        return None

    def close(self) -> None:
        """Stop the Env (apps, browser) and drop the scratch folder."""
        try:
            self.env.close()
        finally:
            shutil.rmtree(self._scratch, ignore_errors=True)
