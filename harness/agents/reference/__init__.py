"""The `reference` agent: one scripted solution per task template, parametrised by the
task's case, acting only through `Env.step` (see work.py). Template "workflow/name" is
solved by module `reference/<workflow>/<name>.py` or `reference/<workflow>/<group>/<name>.py`
(a subfolder groups one kind of work); gestures several workflows share sit beside this file,
a workflow's own beside its solutions.

`make_agent("reference", skip="<subtask id>")` leaves one subtask's actions out (ablation);
`route="<name>"` takes another route the task credits, where the solution offers one (its
module's ROUTES, e.g. pended_documents answers a pend by fax with `route="fax"`).
`phase_watcher` sees the solution's Env calls and each phase it reaches (`tasks check`
derives ablations from them; see replay.py); `resume` takes up the reference's episode where
it reached a phase, its calls until then answered from their log (an ablation acting past it).
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil

from admindesk.harness.agents.reference.api_work import ApiWork
from admindesk.harness.agents.reference.replay import PhaseWatcher, Resumption, handed_over
from admindesk.harness.agents.reference.work import SkippedPhase, Work
from admindesk.harness.env.environment import Env
from admindesk.schema.task_model import Task

PACKAGE = "admindesk.harness.agents.reference"


def solution_of_template(template: str):
    """The `solve` function of template "workflow/name": module `<workflow>/<name>.py` of this
    package, or `<workflow>/<group>/<name>.py` in one of the workflow's subfolders (templates
    grouped by kind of work, so that no folder outgrows the layout's limit). LookupError when
    the template has no solution yet."""
    workflow, _, name = template.partition("/")
    module = _solution_module(workflow, name) if workflow.isidentifier() and name.isidentifier() else None
    solve = getattr(importlib.import_module(module), "solve", None) if module else None
    if solve is None:
        raise LookupError(f"no reference solution for template {template!r} (no solve() in "
                          f"{PACKAGE}.{workflow}[.<group>].{name})")
    return solve


def _solution_module(workflow: str, name: str) -> str | None:
    try:
        package = importlib.import_module(f"{PACKAGE}.{workflow}")
    except ModuleNotFoundError:  # no such workflow folder
        return None
    groups = [info.name for info in pkgutil.iter_modules(package.__path__) if info.ispkg]
    for module in [f"{package.__name__}.{name}", *(f"{package.__name__}.{group}.{name}" for group in groups)]:
        if importlib.util.find_spec(module):
            return module
    return None


def solution_for(task: Task):
    """The `solve` function of the task's template; LookupError when there is none."""
    try:
        return solution_of_template(task.template or "")
    except LookupError as exc:
        raise LookupError(f"{exc}; task {task.id}") from None


def api_solution_for(task: Task):
    """The `solve_api` function of the task's template (its API-channel route); LookupError
    when the template has none."""
    solve = solution_for(task)
    solve_api = getattr(importlib.import_module(solve.__module__), "solve_api", None)
    if solve_api is None:
        raise LookupError(f"no API-channel reference for template {task.template!r} (no solve_api() in "
                          f"{solve.__module__}); task {task.id}")
    return solve_api


class ReferenceAgent:
    """Drives the Env through the task's template solution; `skip` ablates one subtask,
    `route` picks one of the solution's alternate routes, `resume` starts where the
    reference's episode reached a phase."""

    name = "reference"

    def __init__(self, skip: str | None = None, route: str | None = None,
                 phase_watcher: PhaseWatcher | None = None, resume: Resumption | None = None) -> None:
        self.skip, self.route, self.phase_watcher, self.resume = skip, route, phase_watcher, resume
        self.notes: list = []

    def drive(self, env: Env, task: Task) -> None:
        """Run the episode to its end (a `done` action).

        In an ablation, a step that needs what the skipped subtask would have read stops the
        work there, as a coordinator missing that fact would; the state so far is scored."""
        api = getattr(env, "channel", "screens") == "api"
        solve = api_solution_for(task) if api else solution_for(task)
        routes = getattr(importlib.import_module(solve.__module__), "ROUTES", ())
        if self.route is not None and self.route not in routes:
            raise ValueError(f"the reference of template {task.template!r} has no route {self.route!r} "
                             f"(routes: {', '.join(routes) or 'none'})")
        watcher = self.phase_watcher
        if (watcher is not None or self.resume is not None) and api:
            raise ValueError("phase watchers and resumptions follow the screens channel's reference, not the API's")
        if self.resume is not None:
            env.resume(self.resume.checkpoint)
            env = handed_over(self.resume.log, env)
        if watcher is None:
            work = (ApiWork if api else Work)(env, task, skip=self.skip, route=self.route)
        else:
            work = Work(watcher.watch(env), task, skip=self.skip, route=self.route, on_phase=watcher.reached)
        try:
            solve(work)
        except SkippedPhase as missing:
            if env.episode_over:
                raise
            work.finish(f"Stopped: {missing}")
