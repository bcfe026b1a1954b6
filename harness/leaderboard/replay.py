"""Replay verification: a record proves nothing about how it was made, so the maintainers
re-execute every episode's recorded actions in a fresh Env and require the same state.

For each episode: a reset for the task must give every app the initial snapshot the record
holds (so nothing was hidden from the guards), and the recorded actions, replayed one by
one, must end in the recorded final snapshots, downloads, uploads and answer. A mismatch
names the episode, the app and the step where state first differs: the apps' audit trail
is replayed step by step against the recorded one to find it.

The recorded actions' URLs carry the recording Env's ports; the reset entry of the
trajectory lists its apps' origins, and each is mapped onto the replaying Env's.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from itertools import groupby
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from admindesk.verifiers.record_files import load_record, record_file
from admindesk.verifiers.records import EpisodeRecord

AUDIT_TABLE = "audit_events"
_ORIGIN = re.compile(r"\b(127\.0\.0\.1|localhost):(\d{2,5})\b")


class ReplaySettings(BaseModel):
    """What the replaying Env must share with the recording one (run.json says it)."""

    observation: str = "screenshot"
    frame_size: tuple[int, int] = (1280, 800)
    tasks_dir: Path | None = None


class ReplayFinding(BaseModel):
    """One way a replayed episode differs from its record."""

    episode: str
    what: str
    app: str | None = None
    step: int | None = None

    def describe(self) -> str:
        where = ", ".join(part for part in (f"app {self.app}" if self.app else "",
                                            f"step {self.step}" if self.step is not None else "") if part)
        return f"{self.episode}: replay differs{f' ({where})' if where else ''}: {self.what}"


class ReplayJob(BaseModel):
    """One episode to replay: its folder name, task and record file."""

    episode: str
    task_id: str
    record_path: Path


class ReplayOutcome(BaseModel):
    episode: str
    findings: list[ReplayFinding] = Field(default_factory=list)
    steps: int = 0


def snapshot_digest(snapshot: dict[str, Any]) -> str:
    """The sha256 of a snapshot's canonical bytes (the apps' own canonical form)."""
    canonical = json.dumps(snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _load_moment(index: int, row: Any) -> tuple[str, Any]:
    """A page-image audit row's group: the moment it was made; every other row is its own."""
    if isinstance(row, dict) and str(row.get("endpoint", "")).endswith("page_image"):
        return "page_images", row.get("at")
    return "row", index


def comparable(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot as a replay compares it. A document viewer's page images load at once, and
    the app serves them in whatever order they arrive, so each run of page-image audit rows made
    at the same moment is compared as a set (ordered by content, ids left out); every other row
    keeps its place and id."""
    audit = snapshot.get(AUDIT_TABLE)
    if not isinstance(audit, list):
        return snapshot
    rows: list[Any] = []
    for (kind, _), group in groupby(enumerate(audit), key=lambda pair: _load_moment(*pair)):
        members = [row for _, row in group]
        if kind == "page_images":
            members = sorted(({key: value for key, value in row.items() if key != "id"} for row in members),
                             key=lambda row: json.dumps(row, sort_keys=True, default=str))
        rows.extend(members)
    return {**snapshot, AUDIT_TABLE: rows}


def recorded_actions(record: EpisodeRecord) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The recording Env's app origins and the actions after the reset, in order."""
    if not record.trajectory or record.trajectory[0].get("action") is not None:
        raise ValueError("the trajectory does not start with its reset entry")
    origins = record.trajectory[0].get("apps")
    if not isinstance(origins, dict):
        raise ValueError("the trajectory's reset entry does not list the apps' origins (recorded by "
                         "an AdminDesk too old to replay)")
    actions = []
    for entry in record.trajectory[1:]:
        action = entry.get("action")
        if not isinstance(action, dict):
            raise ValueError(f"trajectory step {entry.get('step')} has no action")
        actions.append(action)
    return origins, actions


def port_map(recorded: dict[str, str], current: dict[str, str]) -> dict[str, str]:
    """Recorded port -> the replaying Env's port of the same app."""
    mapping = {}
    for app, origin in recorded.items():
        if app in current:
            mapping[origin.rsplit(":", 1)[-1]] = current[app].rsplit(":", 1)[-1]
    return mapping


def rewrite_origins(action: dict[str, Any], ports: dict[str, str]) -> dict[str, Any]:
    """The action with every app origin in its text fields moved to the replay's ports (a
    typed URL or a goto); the final answer is left as written."""
    if action.get("type") == "done":
        return action

    def moved(text: str) -> str:
        return _ORIGIN.sub(lambda m: f"{m.group(1)}:{ports.get(m.group(2), m.group(2))}", text)
    return {key: moved(value) if isinstance(value, str) else value for key, value in action.items()}


def compare_records(episode: str, recorded: EpisodeRecord, replayed: EpisodeRecord) -> list[ReplayFinding]:
    """Every difference between the recorded and the replayed episode that scoring could see."""
    findings = []
    for app in sorted(set(recorded.final_snapshots) | set(replayed.final_snapshots)):
        mine, theirs = recorded.final_snapshots.get(app), replayed.final_snapshots.get(app)
        if mine is None or theirs is None:
            findings.append(ReplayFinding(episode=episode, app=app, what="the final snapshot is missing on one side"))
        elif snapshot_digest(mine := comparable(mine)) != snapshot_digest(theirs := comparable(theirs)):
            findings.append(ReplayFinding(episode=episode, app=app, what=_first_difference(mine, theirs)))
    for kind in ("downloads", "uploads"):
        mine = sorted((f.name, f.sha256) for f in getattr(recorded, kind))
        theirs = sorted((f.name, f.sha256) for f in getattr(replayed, kind))
        if mine != theirs:
            findings.append(ReplayFinding(episode=episode, what=f"{kind} recorded {mine}, replayed {theirs}"))
    if recorded.answer != replayed.answer:
        findings.append(ReplayFinding(episode=episode, what=f"answer recorded {recorded.answer!r}, "
                                                             f"replayed {replayed.answer!r}"))
    return findings


def _first_difference(recorded: dict[str, Any], replayed: dict[str, Any]) -> str:
    """The first table (and row) where two snapshots of one app differ."""
    for table in sorted(set(recorded) | set(replayed)):
        mine, theirs = recorded.get(table), replayed.get(table)
        if mine == theirs:
            continue
        if not isinstance(mine, list) or not isinstance(theirs, list):
            return f"table {table} differs"
        for index, (left, right) in enumerate(zip(mine, theirs)):
            if left != right:
                return f"table {table}, row {index + 1}: recorded {_short(left)}, replayed {_short(right)}"
        return f"table {table}: {len(mine)} rows recorded, {len(theirs)} replayed"
    return "the snapshots differ"


def _short(row: Any, limit: int = 240) -> str:
    text = json.dumps(row, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def diverging_step(recorded_audit: list[Any], audits_after_steps: list[list[Any]]) -> int | None:
    """The first step after which the replay's audit trail is no longer the start of the
    recorded one (None: it never strays, the recorded trail has rows the replay never made
    or the difference is outside the audit trail)."""
    for step, audit in enumerate(audits_after_steps, start=1):
        if audit != recorded_audit[:len(audit)]:
            return step
    return None


class EpisodeReplayer:
    """A fresh Env that replays recorded episodes one after another."""

    def __init__(self, settings: ReplaySettings) -> None:
        from admindesk.harness.env.environment import Env  # the browser loads only for a replay

        self.env = Env(settings.observation, frame_size=settings.frame_size,  # type: ignore[arg-type]
                       tasks_dir=settings.tasks_dir)

    def replay(self, job: ReplayJob) -> ReplayOutcome:
        """Replay one recorded episode and say how it differs from its record."""
        outcome = ReplayOutcome(episode=job.episode)
        try:
            record = load_record(job.record_path)
            origins, actions = recorded_actions(record)
        except ValueError as exc:
            outcome.findings.append(ReplayFinding(episode=job.episode, what=f"cannot be replayed: {exc}"))
            return outcome
        self.env.reset(job.task_id)
        for app, snapshot in sorted(self.env.initial_snapshots.items()):
            claimed = record.initial_snapshots.get(app)
            if claimed is None or snapshot_digest(claimed) != snapshot_digest(snapshot):
                outcome.findings.append(ReplayFinding(
                    episode=job.episode, app=app, step=0,
                    what="the recorded initial snapshot is not a fresh reset's"
                    + (f" ({_first_difference(claimed, snapshot)})" if claimed is not None else " (missing)")))
        ports = port_map(origins, self._origins())
        self._run(actions, ports)
        outcome.steps = len(actions)
        replayed = self.env.record()
        differences = compare_records(job.episode, record, replayed)
        for finding in differences:
            if finding.app is not None and finding.step is None:
                finding.step = self._locate(job.task_id, actions, ports, finding.app,
                                            record.final_snapshots.get(finding.app, {}).get(AUDIT_TABLE, []))
        outcome.findings.extend(differences)
        return outcome

    def _origins(self) -> dict[str, str]:
        return {name: self.env.app_url(name).rstrip("/") for name in self.env.services.processes}

    def _run(self, actions: list[dict[str, Any]], ports: dict[str, str], after_step: Any = None) -> None:
        for action in actions:
            if self.env.episode_over:
                break
            invalid = action.get("invalid")
            self.env.step(invalid if isinstance(invalid, str) else rewrite_origins(action, ports))
            if after_step is not None:
                after_step()

    def _locate(self, task_id: str, actions: list[dict[str, Any]], ports: dict[str, str], app: str,
                recorded_audit: list[Any]) -> int | None:
        """Replay again, reading `app`'s audit trail after every step, to find the step
        where it first strays from the recorded trail."""
        self.env.reset(task_id)
        trails: list[list[Any]] = []
        bench_api = self.env.services.processes[app]

        def read_trail() -> None:
            trails.append(bench_api.bench("GET", "/_bench/snapshot").get(AUDIT_TABLE, []))
        self._run(actions, ports, read_trail)
        return diverging_step(recorded_audit, trails)

    def close(self) -> None:
        self.env.close()


_REPLAYER: EpisodeReplayer | None = None


def _start_replayer(settings: ReplaySettings) -> None:
    global _REPLAYER
    _REPLAYER = EpisodeReplayer(settings)
    atexit.register(_REPLAYER.close)


def _replay_in_worker(job: ReplayJob) -> ReplayOutcome:
    assert _REPLAYER is not None, "the worker's replayer did not start"
    return _REPLAYER.replay(job)


def replay_jobs(jobs: list[ReplayJob], settings: ReplaySettings, workers: int = 1) -> list[ReplayOutcome]:
    """Replay every job (in `workers` processes, each with its own Env); outcomes in job order."""
    if workers <= 1 or len(jobs) <= 1:
        replayer = EpisodeReplayer(settings)
        try:
            return [replayer.replay(job) for job in jobs]
        finally:
            replayer.close()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context,
                             initializer=_start_replayer, initargs=(settings,)) as pool:
        return list(pool.map(_replay_in_worker, jobs))


def replay_settings(run: dict[str, Any], tasks_dir: Path) -> ReplaySettings:
    """The Env a run's episodes replay in: its observation mode and frame, the task files."""
    viewport = (run.get("versions") or {}).get("viewport") or {}
    frame = (viewport.get("width", 1280), viewport.get("height", 800))
    return ReplaySettings(observation=run.get("observation") or "screenshot", frame_size=frame,
                          tasks_dir=tasks_dir)


def replay_submission(run: dict[str, Any], episodes: dict[str, tuple[str, Path]], tasks_dir: Path,
                      workers: int = 1) -> list[ReplayFinding]:
    """Replay every episode with a record (episode name -> (task id, folder)) of a run whose
    run.json is `run`; the findings of all of them, in episode order."""
    jobs = []
    for episode, (task_id, folder) in sorted(episodes.items()):
        path = record_file(folder)
        if path is not None:
            jobs.append(ReplayJob(episode=episode, task_id=task_id, record_path=path))
    if not jobs:
        return []
    outcomes = replay_jobs(jobs, replay_settings(run, tasks_dir), workers)
    return [finding for outcome in outcomes for finding in outcome.findings]
