"""What both channels' Envs (`Env` on the screens, `ApiEnv` on the APIs) do with the apps alike:
resolve a task (by id from the Env's folder of task files), tell the apps which task's case to
build, and fetch every app's final snapshot for the record."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from admindesk.harness.env.cooperative import wait_for
from admindesk.harness.env.services import ServiceError, Services
from admindesk.schema.task_model import Task, load_tasks


class EpisodeApps:
    """Mixed into an Env that has `services` and `tasks_dir`."""

    services: Services
    tasks_dir: Path | None
    _task_files: dict[str, Task] | None = None  # the folder's task files, read once
    # App name -> how many times its process had started when this episode's reset ended.
    _app_starts: dict[str, int] | None = None

    def _resolve_task(self, task: Task | str | dict) -> tuple[Task, str | None]:
        """The task, and the id the apps are told: only a task that gives them something to
        build (a case, raw seed rows, interruptions) is named, so an ad-hoc task never is."""
        if isinstance(task, dict):
            resolved = Task.model_validate(task)
        elif isinstance(task, Task):
            resolved = task
        else:
            if self._task_files is None:
                self._task_files = {candidate.id: candidate for candidate in load_tasks(self.tasks_dir)}
            if task not in self._task_files:
                raise KeyError(f"no task with id {task!r} under {self.tasks_dir or 'tasks/'}")
            resolved = self._task_files[task]
        builds_state = resolved.case is not None or bool(resolved.seed) or bool(resolved.interruptions)
        return resolved, resolved.id if builds_state else None

    def _note_app_starts(self) -> None:
        """Called when a reset ends: an app restarted after this (by another lane's reset, on
        finding it dead or hung) has lost this episode's state."""
        self._app_starts = {name: app.starts for name, app in self.services.processes.items()}

    def apps_restarted_since_reset(self) -> list[str]:
        """The apps whose process was restarted since this episode's reset ended."""
        starts = self._app_starts or {}
        return sorted(name for name, app in self.services.processes.items()
                      if name in starts and app.starts != starts[name])

    def _final_snapshots(self) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """Every app's snapshot now, and why an app that is down, hung or restarted since the
        reset gave none."""
        final, errors = {}, {}
        for name, future in self.services.snapshot_futures().items():
            try:
                final[name] = wait_for(future)
            except ServiceError as exc:
                errors[name] = str(exc)
        # Asked once every snapshot is in: a restart while they were taken counts too.
        for name in self.apps_restarted_since_reset():
            final.pop(name, None)
            errors[name] = (f"{name} was restarted during the episode (another episode in flight found it "
                            f"dead or hung), so this episode's state in it is gone")
        return final, errors
