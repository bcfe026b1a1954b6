"""The task prompt an agent is given, by prompt mode, as the task suite defines them:

- `zero_shot`: the goal text only, as a coordinator would receive it.
- `general`: the goal plus how each app works (tasks/guidance/<app>.md; never an answer).
- `task_specific`: `general` plus the task's own step-by-step plan (`Task.guidance`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from admindesk.schema.task_model import TASKS_ROOT, Task

PromptMode = Literal["zero_shot", "general", "task_specific"]
PROMPT_MODES: tuple[str, ...] = ("zero_shot", "general", "task_specific")
GUIDED_APPS: tuple[str, ...] = ("ehr_web", "payer_portal_a", "payer_portal_b", "fax")


def app_guidance(guidance_dir: Path | None = None) -> str:
    """Every app's guidance file, in app order, as one text (ValueError if one is missing)."""
    folder = guidance_dir if guidance_dir is not None else TASKS_ROOT / "guidance"
    parts = []
    for app in GUIDED_APPS:
        path = folder / f"{app}.md"
        if not path.is_file():
            raise ValueError(f"the general prompt mode needs {path}, which does not exist")
        parts.append(path.read_text(encoding="utf-8").strip())
    return "\n\n".join(parts)


def task_prompt(goal: str, task: Task | None, mode: PromptMode,
                guidance_dir: Path | None = None) -> str:
    """The text that opens an episode for the agent in prompt mode `mode`."""
    if mode not in PROMPT_MODES:
        raise ValueError(f"prompt mode must be one of {', '.join(PROMPT_MODES)}, not {mode!r}")
    text = f"Your task:\n{goal.strip()}"
    if mode == "zero_shot":
        return text
    text += "\n\nHow the applications work:\n\n" + app_guidance(guidance_dir)
    if mode == "task_specific":
        steps = task.guidance if task is not None else []
        if not steps:
            task_id = task.id if task is not None else "(no task given)"
            raise ValueError(f"task {task_id} has no guidance for the task_specific prompt mode")
        text += "\n\nSuggested steps:\n" + "\n".join(
            f"{number}. {step}" for number, step in enumerate(steps, start=1))
    return text
