"""Ablations derived from the reference's phase ends, for `tasks check --ablate`.

An ablation takes the reference's own steps up to the skipped phase, and most then end at
once. While the reference runs, its solution's Env calls are logged (replay.Recording);
when it reaches a phase that is ablated, the ablated solution is replayed over that log with
no browser. If it would send nothing from there but its `done`, its episode is the
reference's so far: the record is taken there (every app's snapshot now, the downloads,
uploads and steps so far), that `done` is added, and it is scored as the live ablation's
record would be. An ablation that acts past the phase (the replay does more than a `done`)
starts from the reference's state instead: the Env's state is kept at every phase the
reference reaches where it can be taken up again (Env.checkpoint), and the ablation's own
episode takes up the last one kept at or before its phase and goes on live, its solution's
calls until then answered from the log (ReferenceAgent's `resume`). The ablated solution does
what the reference did until it reaches the skipped phase, so it may start before it. The
other ablations run live.

The derivation rests on the world's determinism, which the check proves on its own (the
reference's rerun must end in the same state); `tasks check --live-ablations` runs every
ablation live too and requires each derived one to end the same (CI does so every day).
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from admindesk.harness.agents.reference import ReferenceAgent
from admindesk.harness.agents.reference.replay import (
    CallLog,
    Ending,
    GoesOn,
    PhaseEnd,
    Recording,
    Resumption,
    replay_ablation,
)
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
    run too) to `out_dir/derived-skip:<subtask>`. `resumptions[subtask]` is where an ablation
    that acts past its phase starts (its files under `out_dir/.checkpoints`, see `discard`)."""

    def __init__(self, task: Task, out_dir: Path, *, beside_live: bool = False) -> None:
        self.task, self.out_dir = task, out_dir
        self.prefix = "derived-" if beside_live else ""
        self.ablated = {subtask.id for subtask in ablated_subtasks(task)}
        self.log = CallLog()
        self.outcomes: dict[str, EpisodeOutcome] = {}
        self.resumptions: dict[str, Resumption] = {}
        self.checkpoints_dir = out_dir / ".checkpoints"
        self._last_kept: Resumption | None = None  # the reference's state at its last phase that can be taken up
        self._reached: set[str] = set()
        self._env: Env | None = None

    def __str__(self) -> str:  # as run.json shows the reference's options
        return "derives the ablations that end at a phase end"

    def watch(self, env: Env) -> Recording:
        self._env = env
        return Recording(env, self.log)

    def reached(self, subtask: str) -> None:
        if subtask in self._reached:
            return
        self._reached.add(subtask)
        started = time.perf_counter()
        env, log = self._env, list(self.log)
        # A state kept here serves the ablations of this phase and later ones: none past the last.
        ablations_ahead = subtask in self.ablated or bool(self.ablated - self._reached)
        checkpoint = env.checkpoint(self.checkpoints_dir / subtask) if ablations_ahead else None
        if checkpoint is not None:
            self._last_kept = Resumption(subtask, checkpoint, log)
        if subtask not in self.ablated:
            return
        last = env.trajectory[-1]
        end = PhaseEnd(over=env.episode_over, steps=last["step"], url=last["url"])
        agent = ReferenceAgent(skip=subtask)
        replayed = replay_ablation(lambda replay: runner_local.drive_agent(replay, agent, self.task, None), log, end)
        if isinstance(replayed, Ending):
            derived = self._derive(replayed, end)
            if derived is not None:
                self._keep(subtask, *derived, started)
        elif isinstance(replayed, GoesOn) and self._last_kept is not None:
            self.resumptions[subtask] = self._last_kept

    def discard(self) -> None:
        """Remove the checkpoints' files (the ablations that start from them have run)."""
        shutil.rmtree(self.checkpoints_dir, ignore_errors=True)
        self.resumptions.clear()

    def _derive(self, ending: Ending, end: PhaseEnd) -> tuple[EpisodeRecord, str | None] | None:
        """The ablation's record and agent note, ending here; None when it must run live."""
        record = self._env.record()
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
