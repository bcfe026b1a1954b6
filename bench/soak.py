"""Soak the harness: N episodes of a scripted agent on the real apps with faults injected.

Each episode may (seeded coin) get one fault at a random step: an app killed (SIGKILL),
an app hung (SIGSTOP), or the page renderers killed. The Env must recover: a crashed page
is replaced mid-episode, a dead or hung app is restarted at the next reset, a record with
an app down is partial but returned. Prints episodes completed, infra errors recovered,
episodes lost (target 0) and snapshot mismatches (target 0: every fresh episode's state,
right after reset, equals the first episode's, minus the clock, audit and session logs).

With --mid-submit-resets it instead resets every episode while the form it just
submitted is still in flight (settle cap 0), and prints hangs (resets the watchdog had to
end by killing Chromium), stale audit rows (the submit's, in the next episode), HTTP 500s
in the apps and orphan database files left in their data folders (target 0 of each).

    python bench/soak.py [--episodes 30] [--seed 7] [--fault-rate 0.6]
    python bench/soak.py --mid-submit-resets [--episodes 50]
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT
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


# A search form: its submit is a navigation whose audit row names the search.
SEARCH_START = {"id": "mid-submit", "goal": "search", "max_steps": 50,
                "start": {"app": "ehr_web", "path": "/patients?q=a", "login": True}}
SEARCH_SUBMIT = "form[role=search] button[type=submit]"
SUBMITTED_MARK = "search=1"  # in the path of the submitted search (the start page has none)


@dataclass
class MidSubmitReport:
    """What resets landing mid-submit left behind (every count's target is 0)."""

    episodes: int = 0
    hangs: int = 0
    stale_rows: int = 0
    server_errors: int = 0
    orphan_files: int = 0
    reset_ms: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def orphan_database_files(env: Env) -> list[str]:
    """Database files in the apps' data folders beyond each app's one live database."""
    orphans = []
    for app in env.services.processes.values():
        live = sorted((app.data_dir / "live").glob("*.sqlite"))
        orphans += [str(path) for path in live[:-1]]  # the live one has the highest generation
        orphans += [str(path) for path in app.data_dir.rglob("*.building")]
    return orphans


def server_errors(env: Env, final_snapshots: dict[str, dict[str, Any]]) -> int:
    """HTTP 500s: the apps' logged exceptions plus audit rows that answered 5xx."""
    logged = sum(app.log_path.read_text(errors="replace").count("Exception on ")
                 for app in env.services.processes.values() if app.log_path.exists())
    answered = sum(1 for snapshot in final_snapshots.values()
                   for row in snapshot.get("audit_events", []) if (row.get("status_code") or 0) >= 500)
    return logged + answered


def run_mid_submit_resets(episodes: int) -> MidSubmitReport:
    """Reset right after clicking a form's submit, `episodes` times, and count what leaked."""
    report = MidSubmitReport()
    with Env("screenshot", settle_cap=0) as env:
        errors_before = server_errors(env, {})
        for index in range(episodes + 1):  # the last reset only ends the last submit
            expiries = env.browser.watchdog.expiries
            started = time.perf_counter()
            env.reset(SEARCH_START)
            report.reset_ms.append((time.perf_counter() - started) * 1000)
            report.hangs += env.browser.watchdog.expiries - expiries
            env.step({"type": "wait", "seconds": 0.3})  # a late write would land by now
            final = env.record().final_snapshots
            stale = [row["path"] for row in final["ehr_web"]["audit_events"]
                     if SUBMITTED_MARK in row["path"]]
            report.stale_rows += len(stale)
            report.notes += [f"episode {index}: stale row {path}" for path in stale]
            if index == episodes:
                report.server_errors = server_errors(env, final) - errors_before
                break
            # Clicked outside `step`: a step's screenshot taken while the submit's page
            # commits can itself hang (the step path has no deadline yet); this measures
            # the reset that follows.
            env.page_locator(SEARCH_SUBMIT).click(no_wait_after=True)
            report.episodes += 1
        time.sleep(1.0)  # requests of the last episode finish and give back their files
        orphans = orphan_database_files(env)
        report.orphan_files = len(orphans)
        report.notes += [f"orphan: {path}" for path in orphans]
    return report


def print_mid_submit(report: MidSubmitReport, verbose: bool) -> None:
    if verbose:
        print("\n".join(report.notes))
    times = sorted(report.reset_ms[1:])  # the first reset builds the context
    print(f"episodes reset mid-submit {report.episodes}")
    print(f"hangs                     {report.hangs}   (target 0; resets the watchdog ended)")
    print(f"stale audit rows          {report.stale_rows}   (target 0)")
    print(f"HTTP 500s                 {report.server_errors}   (target 0)")
    print(f"orphan database files     {report.orphan_files}   (target 0)")
    print(f"reset ms                  median {statistics.median(times):.0f}, "
          f"max {times[-1]:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=None,
                        help="episodes to run (default 30; 50 with --mid-submit-resets)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fault-rate", type=float, default=0.6,
                        help="chance that an episode gets one fault (0..1)")
    parser.add_argument("--mid-submit-resets", action="store_true",
                        help="reset right after a form submit, every episode (default 50)")
    parser.add_argument("--verbose", action="store_true", help="print each fault and event")
    args = parser.parse_args()
    if args.episodes is None:
        args.episodes = 50 if args.mid_submit_resets else 30
    if args.episodes < 1 or not 0 <= args.fault_rate <= 1:
        parser.error("--episodes must be at least 1 and --fault-rate within 0..1")
    if args.mid_submit_resets:
        print_mid_submit(run_mid_submit_resets(args.episodes), args.verbose)
        return
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
