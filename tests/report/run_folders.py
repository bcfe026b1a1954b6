"""Run folders for the report and leaderboard tests, written the way `admindesk run` writes
them (run.json from the runner's own EpisodeSummary and metrics, scores.json from the real
scorer over a stored record), from the synthetic prior-auth episode of tests/unit/fixtures.

Two tasks (pa-medium-01, and the same case as a DME task dme-medium-01) x `trials`
(as `pa-medium-01@NAME`... in a held-out split NAME, with its split.json); an episode passes when `passes(task_id, trial)` says so, else it leaves the state untouched
(a noop). Each episode has a five-step trajectory with click / type / key / done actions,
the model's reasoning and a priced usage, the accessibility-tree text the model read, and a
PNG per step; its reset entry carries the task's goal. Step timings are drawn per
(agent, task, trial), so, as in real runs, no two runs' records are the same.
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Callable

import yaml
from PIL import Image, ImageDraw

from admindesk.harness.running import local as runner_local
from admindesk.harness.running.local import EpisodeSummary
from admindesk.harness.task_tools.folders import split_record
from admindesk.harness.task_tools.splits.manifest import SPLIT_FILE, seed_digest, tasks_digest
from admindesk.schema.task_model import Task
from admindesk.verifiers.record_files import write_record
from admindesk.verifiers.scoring import score_task
from tests.unit.fixtures.episodes import good_record, task_data, untouched_record
from tests.unit.fixtures.judges import KeywordJudge

TASK_IDS = ("pa-medium-01", "dme-medium-01")
SCREEN = (640, 400)
ACTIONS = [{"type": "click", "x": 320, "y": 120}, {"type": "type", "text": "Dana Whitfield"},
           {"type": "key", "keys": "Enter"}, {"type": "click", "x": 500, "y": 300},
           {"type": "done", "answer": "Approved: auth NWH2601234"}]
REASONING = ["The patient search box is at the top of the worklist; I click it first.",
             "Search by the patient's name from the goal.",
             "Submit the search.",
             "Two patients share the name; the one born 04/12/1961 is ours, so I open that row.",
             "The authorization is approved and recorded; I report the auth number."]
OBSERVATION = "main 'SVH Chart' [ref=e1]\n  textbox 'Patient name' [ref=e2]"
FIELDS = ["Patient name", "Date of birth", "Member ID", "Procedure code", "Diagnosis", "Auth number"]


def write_tasks(folder: Path, split: str | None = None, *, seed: int | None = 11) -> Path:
    """The two task files into `folder` (a tasks dir for load_tasks); returns it. With
    `split`, they are that held-out split's (ids `<id>@<split>`, a split.json beside them,
    without the seed when `seed` is None)."""
    folder.mkdir(parents=True, exist_ok=True)
    hashes = {}
    for task_id, workflow, challenge in (("pa-medium-01", "prior_auth", "lookalike_patient"),
                                         ("dme-medium-01", "dme", "none")):
        task_id = f"{task_id}@{split}" if split else task_id
        data = task_data(id=task_id, workflow=workflow, challenge=challenge)
        path = folder / f"{task_id}.yaml"
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
        hashes[task_id] = hashlib.sha256(path.read_bytes()).hexdigest()
    if split:
        manifest = {"split": split, "seed_sha256": seed_digest(seed if seed is not None else 99), "tasks": hashes,
                    "tasks_sha256": tasks_digest(hashes), "generator": "admindesk test"}
        if seed is not None:
            manifest["seed"] = seed
        (folder / SPLIT_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def tasks_by_id(tasks_dir: Path) -> dict[str, Task]:
    from admindesk.schema.task_model import load_tasks
    return {task.id: task for task in load_tasks(tasks_dir)}


def _screenshot(path: Path, step: int) -> None:
    image = Image.new("RGB", SCREEN, (236, 241, 246))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, SCREEN[0], 36), fill=(31, 78, 121))
    draw.text((12, 12), f"SVH Chart - prior authorization (screen {step})", fill="white")
    for row, name in enumerate(FIELDS):
        draw.text((40, 78 + row * 50), name, fill=(20, 20, 20))
        draw.rectangle((180, 70 + row * 50, 600, 100 + row * 50), outline=(90, 90, 90), fill="white")
    image.save(path, format="PNG")


def _write_trajectory(folder: Path, record_trajectory: list[dict], timings: random.Random) -> None:
    lines = []
    for step in range(len(ACTIONS) + 1):
        action = ACTIONS[step - 1] if step else None
        entry = {"step": step, "action": action, "url": f"http://127.0.0.1:5100/page/{step}",
                 "error": "element not found" if step == 4 else None,
                 "timing": {"action_s": round(timings.uniform(0.05, 0.5), 4)},
                 "screenshot": f"step-{step:03d}.png",
                 "axtree": f"{OBSERVATION} (screen {step})"}
        if not step:
            entry["goal"] = task_data()["goal"]
        if step:
            entry["agent"] = {"step": step - 1, "reasoning": REASONING[step - 1],
                              "usage": {"input_tokens": 1000, "output_tokens": 50, "cached_input_tokens": 0,
                                        "calls": 1, "cost_usd": 0.0125}, "error": None,
                              "details": {"response_id": f"resp_{step:04d}", "model": "model-a-2026-11-01"}}
        _screenshot(folder / f"step-{step:03d}.png", step)
        lines.append(json.dumps(entry))
        # As the Env does: the text the model read stays out of the record.
        record_trajectory.append({name: value for name, value in entry.items() if name != "axtree"})
    (folder / "trajectory.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_run(out: Path, tasks_dir: Path, *, trials: int = 2, agent: str = "model-a",
              observation: str = "screenshot", passes: Callable[[str, int], bool] = lambda t, n: n == 0,
              wall_s: float = 30.0) -> Path:
    """A run folder at `out` (see the module docstring); returns it."""
    tasks = tasks_by_id(tasks_dir)
    judge = KeywordJudge()
    summaries = []
    task_ids = [task_id for base in TASK_IDS for task_id in tasks if task_id.split("@")[0] == base]
    for task_id in task_ids:
        for trial in range(trials):
            folder = out / f"{task_id}-t{trial}"
            folder.mkdir(parents=True, exist_ok=True)
            record = (good_record(task_id=task_id) if passes(task_id, trial)
                      else untouched_record().model_copy(update={"task_id": task_id}))
            _write_trajectory(folder, record.trajectory, random.Random(f"{agent}/{task_id}/{trial}"))
            score = score_task(tasks[task_id], record, judge)
            write_record(folder, record)
            (folder / "scores.json").write_text(score.model_dump_json(indent=1), encoding="utf-8")
            summaries.append(EpisodeSummary(
                task_id=task_id, trial=trial, result=score.outcome, subtask_pass_rate=score.subtask_pass_rate,
                first_failing_subtask=score.first_failing_subtask, steps=len(record.trajectory) - 1,
                wall_s=wall_s, folder=folder.name))
    run_json = {"agent": agent, "agent_options": {"model": agent}, "observation": observation,
                "prompt_mode": None, "max_steps": None, "tasks": task_ids, "trials": trials,
                "versions": runner_local._versions(), "wall_s": wall_s * len(summaries),
                "episodes": [s.model_dump() for s in summaries], "metrics": runner_local.metrics(summaries)}
    if (tasks_dir / SPLIT_FILE).is_file():
        run_json["split"] = split_record(tasks_dir)
    (out / "run.json").write_text(json.dumps(run_json, indent=1), encoding="utf-8")
    return out
