"""Soak the harness: N episodes of a scripted agent on the real apps with faults injected.

Each episode may (seeded coin) get one fault at a random step: an app killed (SIGKILL),
an app hung (SIGSTOP), or the page renderers killed. The Env must recover: a crashed page
is replaced mid-episode, a dead or hung app is restarted at the next reset, a record with
an app down is partial but returned. Prints episodes completed, infra errors recovered,
episodes lost (target 0) and snapshot mismatches (target 0: every fresh episode's state,
right after reset, equals the first episode's, minus the clock, audit and session logs).

    python bench/soak.py [--episodes 30] [--seed 7] [--fault-rate 0.6]
"""
from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field
from typing import Any

from admindesk.harness.env.chrome import CHROME_HEIGHT
from admindesk.harness.env.environment import PAGE_CRASHED, Env
from admindesk.harness.env.faults import kill_app, kill_renderers, stop_app
from admindesk.harness.env.services import ServiceError

FAULTS = ("app_killed", "app_stopped", "renderer_killed")
START = {"id": "soak", "goal": "wander", "max_steps": 50,
         "start": {"app": "ehr_web", "path": "/", "login": True}}
STEPS_PER_EPISODE = 6
# Written by the act of looking (page views, sign-ins) or by the clock: not episode state.
VOLATILE_TABLES = ("_meta", "bench_state", "audit_events", "session_activity")


@dataclass
class SoakReport:
    """What a soak run counted."""

    completed: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    recovered: int = 0  # app restarts, replaced crashed pages, partial records
    lost: int = 0
    mismatches: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def comparable(snapshots: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Snapshots without the tables that change by merely opening a page."""
    return {app: {table: rows for table, rows in snapshot.items() if table not in VOLATILE_TABLES}
            for app, snapshot in snapshots.items()}


def inject(env: Env, fault: str, rng: random.Random) -> str:
    """Apply `fault` from outside the agent; returns what was done."""
    if fault == "renderer_killed":
        return f"renderers killed: {kill_renderers()}"
    app = rng.choice(sorted(env.services.processes))
    (kill_app if fault == "app_killed" else stop_app)(env.services, app)
    return f"{fault}: {app}"


def scripted_action(env: Env, step: int, rng: random.Random) -> dict:
    """A person wandering: follow a link, open an app, a new tab, scroll, switch tabs."""
    apps = sorted(env.services.processes)
    kind = ("link", "goto", "new_tab", "scroll", "switch", "link")[step % STEPS_PER_EPISODE]
    if kind == "goto":
        return {"type": "goto", "url": env.app_url(rng.choice(apps), "/")}
    if kind == "new_tab":
        return {"type": "new_tab", "url": env.app_url(rng.choice(apps), "/")}
    if kind == "scroll":
        return {"type": "scroll", "x": 640, "y": 500, "dx": 0, "dy": 400}
    if kind == "switch":
        return {"type": "switch_tab", "index": 0}
    try:
        links = env.page_locator("a[href^='/']:visible:not([href*='logout'])")
        count = min(links.count(), 20)
        if count:
            box = links.nth(rng.randrange(count)).bounding_box(timeout=2_000)
            if box and box["width"] and box["height"]:
                x = round(box["x"] + box["width"] / 2)
                y = round(box["y"] + box["height"] / 2) + CHROME_HEIGHT
                if 0 <= x < env.frame_size[0] and CHROME_HEIGHT <= y < env.frame_size[1]:
                    return {"type": "click", "x": x, "y": y}
    except Exception:  # noqa: BLE001 - a crashed or hung page has no links to read
        pass
    return {"type": "wait", "seconds": 0.2}


def run_episode(env: Env, report: SoakReport, fault: str | None, rng: random.Random,
                baseline: list) -> None:
    """One episode; counts into `report`. Raises only when the episode is lost."""
    starts = sum(app.starts for app in env.services.processes.values())
    try:
        env.reset(START)
    except (ServiceError, RuntimeError) as exc:  # recovered if a second reset works
        report.notes.append(f"reset retried after: {exc}".splitlines()[0])
        env.reset(START)
    report.recovered += sum(app.starts for app in env.services.processes.values()) - starts
    fresh = comparable(env.services.snapshot_all())
    if not baseline:
        baseline.append(fresh)
    elif fresh != baseline[0]:
        report.mismatches += 1
        report.notes.append("mismatch in " + ", ".join(
            app for app in fresh if fresh[app] != baseline[0].get(app)))
    fault_step = rng.randrange(STEPS_PER_EPISODE)
    for step in range(STEPS_PER_EPISODE):
        if fault is not None and step == fault_step:
            report.faults[fault] = report.faults.get(fault, 0) + 1
            report.notes.append(inject(env, fault, rng))
        obs, terminated, truncated, _ = env.step(scripted_action(env, step, rng))
        if obs.last_action_error == PAGE_CRASHED:
            report.recovered += 1
    record = env.record()
    report.recovered += len(record.snapshot_errors)
    report.completed += 1


def run_soak(episodes: int, seed: int = 7, fault_rate: float = 0.6,
             schedule: list[str | None] | None = None) -> SoakReport:
    """Run the soak; `schedule` (one fault or None per episode) overrides the random draw."""
    rng = random.Random(seed)
    report, baseline = SoakReport(), []
    started = time.monotonic()
    with Env("screenshot") as env:
        for index in range(episodes):
            if schedule is not None:
                fault = schedule[index % len(schedule)]
            else:
                fault = rng.choice(FAULTS) if rng.random() < fault_rate else None
            try:
                run_episode(env, report, fault, rng, baseline)
            except Exception as exc:  # noqa: BLE001 - counted as lost, the soak goes on
                report.lost += 1
                report.notes.append(f"episode {index + 1} lost: {exc!r}"[:300])
    report.seconds = time.monotonic() - started
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fault-rate", type=float, default=0.6,
                        help="chance that an episode gets one fault (0..1)")
    parser.add_argument("--verbose", action="store_true", help="print each fault and event")
    args = parser.parse_args()
    if args.episodes < 1 or not 0 <= args.fault_rate <= 1:
        parser.error("--episodes must be at least 1 and --fault-rate within 0..1")
    report = run_soak(args.episodes, args.seed, args.fault_rate)
    if args.verbose:
        print("\n".join(report.notes))
    faults = ", ".join(f"{kind} {count}" for kind, count in sorted(report.faults.items()))
    print(f"episodes completed       {report.completed} / {args.episodes}")
    print(f"faults injected          {sum(report.faults.values())} ({faults or 'none'})")
    print(f"infra errors recovered   {report.recovered}   (app restarts, crashed pages "
          "replaced, partial records)")
    print(f"episodes lost            {report.lost}   (target 0)")
    print(f"snapshot mismatches      {report.mismatches}   (target 0)")
    print(f"wall time                {report.seconds:.0f} s")


if __name__ == "__main__":
    main()
