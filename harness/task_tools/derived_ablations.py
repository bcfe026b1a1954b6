"""Ablations derived from the reference's phase ends, for `tasks check --ablate`.

An ablation takes the reference's own steps up to the skipped phase, and most then end at
once. While the reference runs, its solution's Env calls are logged (replay.Recording);
when it reaches a phase that is ablated, the ablated solution is replayed over that log with
no browser. If it would send nothing from there but its `done`, its episode is the
reference's so far: the record is taken there (every app's snapshot now, the downloads,
uploads and steps so far), that `done` is added, and it is scored as the live ablation's
record would be. The other ablations run live.

The derivation rests on the world's determinism, which the check proves on its own (the
reference's rerun must end in the same state); `tasks check --live-ablations` runs every
ablation live too and requires each derived one to end the same (CI does so every day).
"""
from __future__ import annotations

import time
from pathlib import Path

from admindesk.harness.agents.reference import ReferenceAgent
from admindesk.harness.agents.reference.replay import CallLog, PhaseEnd, Recording, replay_ablation
from admindesk.harness.env.environment import Env
from admindesk.harness.env.recorder import TrajectoryWriter
from admindesk.harness.running import local as runner_local
from admindesk.harness.running.local import EpisodeOutcome
from admindesk.harness.task_tools.folders import split_record
from admindesk.schema.task_model import Subtask, Task, order_subtasks
from admindesk.verifiers.records import EpisodeRecord


def ablated_subtasks(task: Task) -> list[Subtask]:
    """The subtasks `--ablate` skips one at a time, in order. Reading done on the way is not
    ablated: its checks, views of what the later work shows, cannot tell its steps from that
    work's (and the reference's later phases use what it read)."""
    return [subtask for subtask in order_subtasks(task.subtasks) if not subtask.read_on_the_way]


class DerivedAblations:
    """Follows one reference episode (a PhaseWatcher) and derives the ablations it can.

    `outcomes[subtask]` is the derived ablation's outcome; its run folder is written as a
    live one's would be, to `out_dir/skip:<subtask>`, or with `beside_live` (the live one is
    run too) to `out_dir/derived-skip:<subtask>`."""

    def __init__(self, task: Task, out_dir: Path, *, beside_live: bool = False) -> None:
        self.task, self.out_dir = task, out_dir
        self.prefix = "derived-" if beside_live else ""
        self.ablated = {subtask.id for subtask in ablated_subtasks(task)}
        self.log = CallLog()
        self.outcomes: dict[str, EpisodeOutcome] = {}
        self._reached: set[str] = set()
        self._env: Env | None = None

    def __str__(self) -> str:  # as run.json shows the reference's options
        return "derives the ablations that end at a phase end"

    def watch(self, env: Env) -> Recording:
        self._env = env
        return Recording(env, self.log)

    def reached(self, subtask: str) -> None:
        if subtask not in self.ablated or subtask in self._reached:
            return
        self._reached.add(subtask)
        started = time.perf_counter()
        derived = self._derive(subtask)
        if derived is not None:
            self._keep(subtask, *derived, started)

    def _derive(self, subtask: str) -> tuple[EpisodeRecord, str | None] | None:
        """The ablation's record and agent note, when it ends here; None when it must run live."""
        env = self._env
        last = env.trajectory[-1]
        end = PhaseEnd(over=env.episode_over, steps=last["step"], url=last["url"])
        agent = ReferenceAgent(skip=subtask)
        ending = replay_ablation(lambda replayed: runner_local.drive_agent(replayed, agent, self.task, None),
                                 list(self.log), end)
        if ending is None:
            return None
        record = env.record()
        if record.snapshot_errors:
            return None  # an app that gave no snapshot now: the live ablation says what it would have
        if ending.done_action is not None:
            record.answer = ending.answer
            record.trajectory.append({"step": end.steps + 1, "action": ending.done_action, "url": end.url,
                                      "error": None, "timing": {}})
        return record, ending.note

    def _keep(self, subtask: str, record: EpisodeRecord, note: str | None, started: float) -> None:
        """Score the derived record and write its run folder."""
        env = self._env
        run_dir = self.out_dir / f"{self.prefix}skip:{subtask}"
        folder = run_dir / f"{self.task.id}-t0"
        outcome = runner_local.score_and_keep(self.task, record, folder, 0, started, note)
        self.outcomes[subtask] = outcome
        writer = TrajectoryWriter(folder)
        for entry in record.trajectory:
            writer.write(entry, None)
        writer.close()
        options = {"skip": subtask, "derived": "the reference's state when it reached the phase"}
        runner_local.write_run_json(run_dir, "reference", options, env.observation_mode, [self.task],
                                    [outcome.summary], trials=1, split=split_record(env.tasks_dir, verify_files=False),
                                    wall_s=time.perf_counter() - started)


def same_end(derived: EpisodeOutcome, live: EpisodeOutcome) -> list[str]:
    """How a derived ablation's end differs from the live one's (nothing: the same)."""
    differences = []
    if derived.summary.final_snapshot_hashes != live.summary.final_snapshot_hashes:
        apps = sorted(app for app, digest in live.summary.final_snapshot_hashes.items()
                      if derived.summary.final_snapshot_hashes.get(app) != digest)
        differences.append(f"final state in {', '.join(apps) or 'the apps given'}")
    if derived.summary.steps != live.summary.steps:
        differences.append(f"{derived.summary.steps} steps, live {live.summary.steps}")
    if live.score is None or derived.score.model_dump(exclude={"judge"}) != live.score.model_dump(exclude={"judge"}):
        differences.append("the score")
    return differences
