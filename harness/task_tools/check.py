"""`admindesk tasks check`: prove a task selection's verifiers right with real episodes.

For every task: the reference must pass every deterministic check and guard (`pass` or
`unjudged`); noop, notes-only and wrong-patient must fail it; do-it-anyway must fail the
tasks where the right move is to file nothing. With ablation, the reference runs once
per subtask with that subtask's actions skipped: the subtask must fail, and so must the
task (a subtask read on the way, whose pages the later work shows anyway, is not ablated).
An ablation that would end where the reference reached the skipped phase is taken from
the reference's state there, not run again; one that acts past it starts from that state
(derived_ablations.py).
Everything runs on one Env, one episode at a time (or on one Env per worker). The agents
here read the page themselves, so by default their Env draws no frames (observation
"none"); "screenshot" keeps what each episode showed, to look at.

A task's verdict is kept in its folder (verdict.json, with the task's digest and the
commit that checked it); checking into the same folder again reuses a verdict without
problems for an unchanged task (and no fewer reruns or ablations), so a long check can be
stopped and resumed, and a rerun only repeats what failed. A deeper check of a task whose
shallower verdict has no problems builds on it: its reference and controls stand, and only
the rerun (against the kept reference episode's final state) and the ablations run.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import multiprocessing
import random
import time
from collections.abc import Collection
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from admindesk.harness.agents.controls import FILING_TEMPLATE
from admindesk.harness.env.environment import Env
from admindesk.harness.env.observation import ObservationMode
from admindesk.harness.running import local as runner_local
from admindesk.harness.running.folder import git_commit
from admindesk.harness.task_tools.derived_ablations import DerivedAblations, ablated_subtasks, same_end
from admindesk.schema.task_model import Task, order_subtasks
from admindesk.verifiers.scoring import TaskResult

CONTROLS = ("noop", "notes-only", "wrong-patient")
FILE_NOTHING_GUARD = "no_submission"
BUDGET_SLACK = 1.25  # a task's max_steps must leave an agent this much over the reference's step count
VERDICT_FILE = "verdict.json"


def files_nothing(task: Task) -> bool:
    """True when the right work files no request anywhere (every submission table guarded);
    never for a template whose own work is the filing do-it-anyway would do."""
    if task.template in FILING_TEMPLATE.values():
        return False
    # A recipient guard bound to what the payer's own letter allows (`allowed_from`) keeps a
    # channel closed to anything else, as a no-submission guard does.
    closed = sum(guard.kind == FILE_NOTHING_GUARD
                 or (guard.kind == "recipient" and guard.allowed_from is not None) for guard in task.guards)
    return closed >= 3 or not task.feasible


def dependents(task: Task, subtask_id: str) -> set[str]:
    """Subtasks depending on `subtask_id`, directly or through others."""
    found: set[str] = set()
    for subtask in order_subtasks(task.subtasks):
        if subtask_id in subtask.depends_on or found & set(subtask.depends_on):
            found.add(subtask.id)
    return found


@dataclass
class TaskCheck:
    """One task's verdicts: agent (or `reference-skip:<subtask>`) -> outcome, and problems."""

    task_id: str
    outcomes: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)  # subtasks whose ablation ended at the reference's phase end
    resumed: list[str] = field(default_factory=list)  # subtasks whose ablation started from the reference's state there
    reused_from: str | None = None  # the commit of an earlier check whose verdict was reused
    deepened_from: str | None = None  # the commit of an earlier, shallower check this one built on


def task_digest(task: Task) -> str:
    """A digest of everything the task file says (a changed task is checked again)."""
    return hashlib.sha256(task.model_dump_json().encode()).hexdigest()


def save_verdict(folder: Path, task: Task, verdict: TaskCheck, *, ablate: bool, rerun: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    record = {"task_id": task.id, "task_sha256": task_digest(task), "ablate": ablate, "rerun": rerun,
              "outcomes": verdict.outcomes, "derived": verdict.derived, "resumed": verdict.resumed,
              "problems": verdict.problems,
              "commit": git_commit()}
    (folder / VERDICT_FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")


def _stored_record(folder: Path, task: Task) -> dict | None:
    """The earlier verdict's record on this very task, if it found no problem."""
    try:
        record = json.loads((folder / VERDICT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("task_sha256") != task_digest(task) or record.get("problems"):
        return None
    return record


def stored_verdict(folder: Path, task: Task, *, ablate: bool, rerun: bool) -> TaskCheck | None:
    """An earlier verdict without problems on this very task, at least as deep as asked."""
    record = _stored_record(folder, task)
    if record is None or (ablate and not record.get("ablate")) or (rerun and not record.get("rerun")):
        return None
    return TaskCheck(task.id, dict(record["outcomes"]), [], reused_from=record.get("commit") or "unknown")


@dataclass
class EarlierCheck:
    """A shallower earlier check without problems, to deepen: its outcomes stand, the reference's
    final state (kept in its episode folder) is what a rerun must reproduce."""

    outcomes: dict[str, str]
    reference_hashes: dict[str, str]
    ablated: bool
    rerun: bool
    commit: str


def earlier_check(folder: Path, task: Task) -> EarlierCheck | None:
    """The check a deeper one can build on: a verdict without problems whose reference episode is kept."""
    record = _stored_record(folder, task)
    try:
        reference = json.loads((folder / "reference" / "run.json").read_text(encoding="utf-8"))["episodes"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    if record is None or not reference.get("final_snapshot_hashes"):
        return None
    return EarlierCheck(dict(record["outcomes"]), reference["final_snapshot_hashes"], bool(record.get("ablate")),
                        bool(record.get("rerun")), record.get("commit") or "unknown")


def _outcome(result: runner_local.EpisodeOutcome) -> str:
    return result.summary.result


def check_task(env: Env, task: Task, out_dir: Path, *, ablate: bool, rerun: bool = False,
               earlier: EarlierCheck | None = None, live_ablations: bool = False) -> TaskCheck:
    """Run the reference, the controls and (if asked) the ablations and a second reference
    run, whose final state must hash the same as the first's. Given an `earlier` shallower
    check of the task, only what it did not run is run.

    An ablation that would end where the reference reached its phase is derived from the
    reference (derived_ablations.py); `live_ablations` runs it live as well and requires both
    to end the same."""
    if earlier is not None:
        verdict = TaskCheck(task.id, dict(earlier.outcomes), deepened_from=earlier.commit)
        _deepen(env, task, out_dir, verdict, earlier.reference_hashes, ablate=ablate and not earlier.ablated,
                rerun=rerun and not earlier.rerun, live_ablations=live_ablations)
        return verdict
    verdict = TaskCheck(task.id)
    derived = DerivedAblations(task, out_dir, beside_live=live_ablations) if ablate else None
    reference = run_episode(env, task, out_dir, verdict, "reference", phase_watcher=derived)
    if reference.summary.result not in ("pass", "unjudged"):
        note = reference.summary.agent_note or reference.summary.error or ""
        verdict.problems.append(f"reference {reference.summary.result} at "
                                f"{reference.summary.first_failing_subtask} {note[:200]}".strip())
    if reference.summary.steps * BUDGET_SLACK > task.max_steps:
        verdict.problems.append(f"the reference used {reference.summary.steps} of {task.max_steps} steps: the "
                                f"budget leaves an agent less than {BUDGET_SLACK - 1:.0%} over the reference")
    controls = list(CONTROLS) + (["do-it-anyway"] if files_nothing(task) else [])
    for control in controls:
        if run_episode(env, task, out_dir, verdict, control).summary.result != "fail":
            verdict.problems.append(f"{control} was not failed")
    _deepen(env, task, out_dir, verdict, reference.summary.final_snapshot_hashes, ablate=ablate, rerun=rerun,
            live_ablations=live_ablations, derived=derived)
    return verdict


def run_episode(env: Env, task: Task, out_dir: Path, verdict: TaskCheck, agent: str, label: str | None = None,
                **options) -> runner_local.EpisodeOutcome:
    """One episode of `agent` on the task, its outcome recorded in the verdict under `label`."""
    label = label or agent
    for _attempt in range(2):
        # Frames are drawn only with --screenshots (observation "screenshot"), to be kept.
        outcome = runner_local.run(agent, [task], out_dir / label, agent_options=options, env=env)[0]
        # A first reset that builds a case's world can outlast the reset timeout on a loaded
        # machine; the build finishes anyway, so one retry tells the app from the agent.
        if "failed to reset" not in (outcome.summary.error or ""):
            break
    verdict.outcomes[label] = _outcome(outcome)
    return outcome


def _deepen(env: Env, task: Task, out_dir: Path, verdict: TaskCheck, reference_hashes: dict[str, str], *,
            ablate: bool, rerun: bool, live_ablations: bool, derived: DerivedAblations | None = None) -> None:
    """The second reference run (same final state as `reference_hashes`) and the ablations,
    derived from the first run (`derived`) or else from the rerun where they can be."""
    if rerun:
        if ablate and derived is None:
            derived = DerivedAblations(task, out_dir, beside_live=live_ablations)
        again = run_episode(env, task, out_dir, verdict, "reference", "reference-rerun", phase_watcher=derived)
        if again.summary.final_snapshot_hashes != reference_hashes:
            changed = sorted(app for app, digest in again.summary.final_snapshot_hashes.items()
                             if reference_hashes.get(app) != digest)
            verdict.problems.append(f"the reference's rerun ended in a different state in {', '.join(changed)}")
    if not ablate:
        return
    # Reading done on the way is not ablated: its checks, views of what the later work shows,
    # cannot tell its steps from that work's (and the reference's later phases use what it read).
    for subtask in ablated_subtasks(task):
        label = f"skip:{subtask.id}"
        outcome = _ablation(env, task, out_dir, verdict, subtask.id, derived, live_ablations)
        score: TaskResult | None = outcome.score
        if score is None or score.outcome != "fail":
            verdict.problems.append(f"{label}: the task was not failed")
            continue
        by_id = {s.id: s.outcome for s in score.subtasks}
        if by_id[subtask.id] == "pass":
            verdict.problems.append(f"{label}: the skipped subtask still passed")
        still = sorted(d for d in dependents(task, subtask.id) if by_id[d] == "pass")
        if still:
            verdict.problems.append(f"{label}: subtasks depending on it still passed: {', '.join(still)}")
    if derived is not None:
        derived.discard()


def check_tasks(tasks: list[Task], out_dir: Path, *, ablate: Collection[str] = (), rerun: Collection[str] = (),
                workers: int = 1, tasks_dir: Path | None = None, observation: ObservationMode = "none",
                live_ablations: bool = False, echo=print) -> tuple[list[TaskCheck], float]:
    """Check every task, ablating and rerunning the tasks whose ids are in `ablate` and
    `rerun`; with several workers each has its own Env (apps and browser). The apps build
    the tasks' cases from `tasks_dir` (None: the public suite). Returns the verdicts in
    suite order and the wall time in seconds."""
    started = time.perf_counter()
    verdicts: list[TaskCheck] = []
    to_check: list[tuple[Task, EarlierCheck | None]] = []
    for task in tasks:
        stored = stored_verdict(out_dir / task.id, task, ablate=task.id in ablate, rerun=task.id in rerun)
        if stored is None:
            to_check.append((task, earlier_check(out_dir / task.id, task)))
        else:
            verdicts.append(stored)
            echo(format_row(stored))

    def finished(task: Task, earlier: EarlierCheck | None, verdict: TaskCheck) -> None:
        # A deepened check is as deep as what it asked plus what the earlier check had run.
        save_verdict(out_dir / task.id, task, verdict, ablate=task.id in ablate or bool(earlier and earlier.ablated),
                     rerun=task.id in rerun or bool(earlier and earlier.rerun))
        verdicts.append(verdict)
        echo(format_row(verdict))

    if workers == 1 and to_check:
        with Env(observation, tasks_dir=tasks_dir) as env:
            for task, earlier in to_check:
                finished(task, earlier, check_task(env, task, out_dir / task.id, ablate=task.id in ablate,
                                                   rerun=task.id in rerun, earlier=earlier,
                                                   live_ablations=live_ablations))
    elif to_check:
        spawn = multiprocessing.get_context("spawn")  # a clean interpreter per worker: no inherited browser threads
        with ProcessPoolExecutor(workers, mp_context=spawn, initializer=_start_worker_env,
                                 initargs=(tasks_dir, observation)) as pool:
            pending = {pool.submit(_check_in_worker, task, out_dir / task.id, task.id in ablate, task.id in rerun,
                                   earlier, live_ablations): (task, earlier)
                       for task, earlier in to_check}
            for future in as_completed(pending):
                finished(*pending[future], future.result())
    order = {task.id: n for n, task in enumerate(tasks)}
    return sorted(verdicts, key=lambda verdict: order[verdict.task_id]), time.perf_counter() - started


_worker_env: Env | None = None  # the Env of a check worker process


def _start_worker_env(tasks_dir: Path | None, observation: ObservationMode) -> None:
    global _worker_env
    _worker_env = Env(observation, tasks_dir=tasks_dir)
    atexit.register(_worker_env.close)


def _check_in_worker(task: Task, out_dir: Path, ablate: bool, rerun: bool, earlier: EarlierCheck | None,
                     live_ablations: bool) -> TaskCheck:
    return check_task(_worker_env, task, out_dir, ablate=ablate, rerun=rerun, earlier=earlier,
                      live_ablations=live_ablations)


# How an ablation was had without replaying the reference's steps, as a problem names it.
TAKEN = {"derived": "derived from the reference's phase end",
         "resumed": "resumed from the reference's state at the phase"}


def _ablation(env: Env, task: Task, out_dir: Path, verdict: TaskCheck, subtask: str, derived: DerivedAblations | None,
              live_ablations: bool) -> runner_local.EpisodeOutcome:
    """The ablation of `subtask`: derived from the reference's phase end, or resumed from its
    state there, where the reference's run allows (a resumption that fails runs live), else
    run live; `live_ablations` runs it live as well and requires both to end the same."""
    label = f"skip:{subtask}"
    taken: tuple[str, runner_local.EpisodeOutcome] | None = None
    if derived is not None and subtask in derived.outcomes:
        taken = ("derived", derived.outcomes[subtask])
        verdict.derived.append(subtask)
    elif derived is not None and subtask in derived.resumptions:
        resumed_label = f"resumed-{label}" if live_ablations else label
        resumed = run_episode(env, task, out_dir, verdict, "reference", resumed_label, skip=subtask,
                              resume=derived.resumptions[subtask])
        if resumed.summary.result == "error":  # its run folder says why; the live run stands in
            verdict.outcomes.pop(resumed_label)
        else:
            taken = ("resumed", resumed)
            verdict.resumed.append(subtask)
    if taken is not None and not live_ablations:
        verdict.outcomes[label] = _outcome(taken[1])
        return taken[1]
    live = run_episode(env, task, out_dir, verdict, "reference", label, skip=subtask)
    differences = same_end(taken[1], live) if taken is not None else []
    if differences:
        verdict.problems.append(f"{label}: the ablation {TAKEN[taken[0]]} differs from the live one in "
                                f"{'; '.join(differences)}")
    return live


def format_row(verdict: TaskCheck) -> str:
    """One table line: the task, each agent's outcome, OK or the problems."""
    cells = "  ".join(f"{label}={outcome}" for label, outcome in verdict.outcomes.items())
    status = "OK" if not verdict.problems else "PROBLEM: " + "; ".join(verdict.problems)
    earlier = f"  (verdict of an earlier check at {verdict.reused_from[:12]})" if verdict.reused_from else ""
    if verdict.deepened_from:
        earlier = f"  (reference and controls of an earlier check at {verdict.deepened_from[:12]})"
    taken = [f"{len(verdict.derived)} ablation(s) ended at the reference's phase end"] if verdict.derived else []
    taken += [f"{len(verdict.resumed)} resumed from the reference's state there"] if verdict.resumed else []
    shown = f"  ({'; '.join(taken)})" if taken else ""
    return f"{verdict.task_id:<14} {cells}  {status}{shown}{earlier}"


def stratified_sample(tasks: list[Task], size: int, day: date) -> list[Task]:
    """`size` tasks (at least one per workflow x difficulty cell), drawn afresh each `day`.

    Within a cell the draw prefers templates not drawn yet, so the sample spreads over the
    solutions too; the result keeps suite order."""
    rng = random.Random(day.toordinal())
    cells: dict[tuple[str, str], list[Task]] = {}
    for task in tasks:
        cells.setdefault((task.workflow, task.difficulty), []).append(task)
    chosen: list[Task] = []

    def draw(key: tuple[str, str]) -> None:
        left = [task for task in cells[key] if task not in chosen]
        fresh = [task for task in left if task.template not in {c.template for c in chosen}]
        if left:
            chosen.append(rng.choice(fresh or left))

    for key in sorted(cells):  # every cell once, even when that is more than `size`
        draw(key)
    keys = sorted(cells)
    rng.shuffle(keys)
    while len(chosen) < min(size, len(tasks)):
        for key in keys:
            if len(chosen) < size:
                draw(key)
    order = {task.id: n for n, task in enumerate(tasks)}
    return sorted(chosen, key=lambda task: order[task.id])


def one_per_workflow(tasks: list[Task], day: date) -> list[Task]:
    """One task of each workflow among `tasks`, drawn by `day` (the ablation sample)."""
    rng = random.Random(day.toordinal() + 1)
    workflows = sorted({task.workflow for task in tasks})
    return [rng.choice([t for t in tasks if t.workflow == workflow]) for workflow in workflows]
