"""`inspect eval admindesk/admindesk --model PROVIDER/MODEL`: the AdminDesk task for Inspect.

Task arguments (`-T name=value`):

    tasks=SEL             the tasks to run, as `admindesk run --tasks` (ids, or
                          workflow=...,difficulty=... filters; default all)
    tasks_dir=DIR         another folder of task files, e.g. a held-out split
    prompt_mode=MODE      zero_shot | general (default) | task_specific
    observation=OBS       screenshot (default) | axtree | both
    action_space=SPACE    coordinate (default) | element (needs axtree or both)
    judge=SPEC            rubric judge: a provider spec as `admindesk score --judge`, or
                          `inspect` (the grader role's model); default: none (rubrics unjudged)
    judge_votes=N         votes per rubric item (default 3)
    max_steps=N           override every task's step budget
    keep_screenshots=N    screenshots kept in the model's context (default 3)

Each sample is one task episode (id = task id); its score is our outcome (see scoring.py).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from inspect_ai import Task as InspectTask, task
from inspect_ai.dataset import Sample

from admindesk.harness.agents.prompting import PROMPT_MODES, task_prompt
from admindesk.harness.integrations.inspect.host import HostConfig
from admindesk.harness.integrations.inspect.sandbox import SANDBOX_NAME
from admindesk.harness.task_tools.folders import TaskFolderError, load_task_folder
from admindesk.schema.task_model import TASKS_ROOT, Task

OBSERVATIONS = ("screenshot", "axtree", "both")
ACTION_SPACES = ("coordinate", "element")


@lru_cache(maxsize=8)
def _folder_tasks(folder: str | None) -> dict[str, Task]:
    return {one.id: one for one in load_task_folder(Path(folder) if folder else TASKS_ROOT)}


def task_files(tasks_dir: str | None, max_steps: int | None = None) -> dict[str, Task]:
    """The task files of `tasks_dir` (None: the public suite) by id, read once per folder,
    with `max_steps` (when given) as every task's step budget. Solver and scorer look their
    sample's task up here: passed as arguments, whole tasks would fill the log."""
    tasks = _folder_tasks(tasks_dir)
    if max_steps is None:
        return tasks
    return {task_id: one.model_copy(update={"max_steps": max_steps}) for task_id, one in tasks.items()}


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"-T {name}={value!r}: must be one of {', '.join(allowed)}")
    return value


def _count(name: str, value: int | str | None, low: int = 1) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"-T {name}={value!r}: must be a whole number") from None
    if number < low:
        raise ValueError(f"-T {name}={value!r}: must be at least {low}")
    return number


@task
def admindesk(tasks: str = "all", tasks_dir: str | None = None, prompt_mode: str = "general",
              observation: str = "screenshot", action_space: str = "coordinate", judge: str | None = None,
              judge_votes: int = 3, max_steps: int | None = None, keep_screenshots: int = 3) -> InspectTask:
    """AdminDesk tasks as Inspect samples, played in our Env and scored by our verifiers."""
    from admindesk.harness.cli.run import select_tasks
    from admindesk.harness.integrations.inspect.scoring import admindesk_scorer
    from admindesk.harness.integrations.inspect.solver import admindesk_agent

    _choice("prompt_mode", prompt_mode, PROMPT_MODES)
    _choice("observation", observation, OBSERVATIONS)
    _choice("action_space", action_space, ACTION_SPACES)
    if action_space == "element" and observation == "screenshot":
        raise ValueError("-T action_space=element needs the accessibility tree: -T observation=axtree or both")
    steps, keep, votes = _count("max_steps", max_steps), _count("keep_screenshots", keep_screenshots), \
        _count("judge_votes", judge_votes)
    folder = str(Path(tasks_dir).resolve()) if tasks_dir else None
    try:
        chosen = select_tasks(str(tasks), list(task_files(folder, steps).values()))
    except (TaskFolderError, ValueError) as exc:
        raise ValueError(f"-T tasks={tasks!r}" + (f" -T tasks_dir={tasks_dir}" if tasks_dir else "") + f": {exc}") from exc
    if not chosen:
        raise ValueError(f"-T tasks={tasks!r} names no task")
    samples = [Sample(id=one.id, input=task_prompt(one.goal, one, prompt_mode),  # type: ignore[arg-type]
                      metadata={"workflow": one.workflow, "difficulty": one.difficulty, "challenge": one.challenge,
                                "max_steps": one.max_steps, "revision": one.revision})
               for one in chosen]
    config = HostConfig(observation=observation, tasks_dir=folder)
    return InspectTask(
        dataset=samples,
        solver=admindesk_agent(folder, steps, action_space=action_space, observation=observation,
                               keep_screenshots=keep),
        scorer=admindesk_scorer(folder, steps, judge=judge, judge_votes=votes),
        sandbox=(SANDBOX_NAME, config),
        metadata={"admindesk": {"tasks": str(tasks), "tasks_dir": folder,
                                "prompt_mode": prompt_mode, "observation": observation,
                                "action_space": action_space, "judge": judge, "max_steps": steps}})
