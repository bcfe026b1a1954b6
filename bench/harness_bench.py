"""Harness speed and memory, measured in one run on the same page.

Prints the median Env reset (all apps reset + fresh context + logged-in start page + first
observation), the median step of a click (action + settle + framed screenshot) and of a page
load (a `goto`: the page, its styles and scripts), a bare Playwright click or page load +
screenshot on the same page as the reference for each, their ratios, and the peak memory of
one Env (harness + Chromium + app processes). Targets: reset <= 300 ms, step <= 1.2x the bare
reference.

    python bench/harness_bench.py [--resets 15] [--clicks 30] [--tasks pa-easy-01,dme-easy-02]

`--tasks`: the resets go round these suite tasks (each reset a different task's case, as in a
run) instead of the ad-hoc start page, and print the median of each reset's parts. Each reset
follows the last episode's `record()`, as in a run (the Env fetches an episode's initial
snapshots once its start page is up, and the record awaits them).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from admindesk.harness.env.drawing.chrome import CHROME_HEIGHT
from admindesk.harness.env.environment import Env
from admindesk.harness.env.login import submit_login_form

START = {"id": "bench", "goal": "bench", "max_steps": 1000, "start": {"app": "ehr_web", "path": "/patients",
                                                    "login": True}}
TARGET = "input[name=mrn]"  # a click that focuses a field: no navigation, a visible change


def tree_rss_mb(root: int) -> float:
    """Resident memory of `root` and all its descendants, in MB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


class BareReference:
    """Plain Playwright on the same page in its own context: a click, then a screenshot.

    `point` is in page pixels; the viewport is the Env's page area.
    """

    def __init__(self, env: Env, point: tuple[int, int]):
        self.point = point
        self.context = env.browser.chromium.new_context(viewport={
            "width": env.frame_size[0], "height": env.frame_size[1] - CHROME_HEIGHT})
        submit_login_form(self.context.request, env.app_url("ehr_web", "/login?next=/patients"),
                          *env.credentials)
        self.page = self.context.new_page()
        self.page.goto(env.app_url("ehr_web", "/patients"))

    def click(self) -> float:
        started = time.perf_counter()
        self.page.mouse.click(*self.point)
        self.page.screenshot()
        return (time.perf_counter() - started) * 1000

    def load(self, url: str) -> float:
        started = time.perf_counter()
        self.page.goto(url, wait_until="load")
        self.page.screenshot()
        return (time.perf_counter() - started) * 1000


def timed_step(env: Env, action: dict) -> float:
    started = time.perf_counter()
    obs, *_ = env.step(action)
    elapsed = (time.perf_counter() - started) * 1000
    assert obs.last_action_error is None, obs.last_action_error
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resets", type=int, default=15)
    parser.add_argument("--clicks", type=int, default=30)
    parser.add_argument("--tasks", default=None, help="suite tasks (comma-separated) the resets go round")
    args = parser.parse_args()
    if args.resets < 1 or args.clicks < 1:
        parser.error("--resets and --clicks must be at least 1")
    rounds = args.tasks.split(",") if args.tasks else [START]
    peak = 0.0
    with Env("screenshot") as env:
        for task in rounds:
            env.reset(task)  # warm-up: each task's template built, first copies made
        resets, parts = [], {}
        for number in range(args.resets):
            env.record()  # untimed, as every episode ends: it awaits the last reset's initial snapshots
            _, info = env.reset(rounds[number % len(rounds)])
            resets.append(info["reset_ms"])
            for part, ms in info.get("reset_parts_ms", {}).items():
                parts.setdefault(part, []).append(ms)
            peak = max(peak, tree_rss_mb(os.getpid()))
        env.reset(START)
        x, y = env.element_center(TARGET)
        bare = BareReference(env, (x, y - CHROME_HEIGHT))
        steps, bares, loads, bare_loads = [], [], [], []
        page_url = env.app_url("ehr_web", "/patients")
        # Interleaved, so that the ratio is taken pair by pair on a machine whose speed drifts.
        for _ in range(args.clicks):
            steps.append(timed_step(env, {"type": "click", "x": x, "y": y}))
            bares.append(bare.click())
        for _ in range(args.clicks):
            loads.append(timed_step(env, {"type": "goto", "url": page_url}))
            bare_loads.append(bare.load(page_url))
        peak = max(peak, tree_rss_mb(os.getpid()))
        bare.context.close()
    reset_ms, step_ms, bare_ms, load_ms, bare_load_ms = (statistics.median(v) for v in (
        resets, steps, bares, loads, bare_loads))
    ratio = statistics.median(s / b for s, b in zip(steps, bares))
    load_ratio = statistics.median(s / b for s, b in zip(loads, bare_loads))
    load = os.getloadavg()[0]
    print(f"apps: {', '.join(env.services.ports) or '-'}   load average (1 min): {load:.2f} "
          f"on {os.cpu_count()} cores")
    print(f"median Env reset           {reset_ms:7.1f} ms   (target <= 300 ms, n={len(resets)}"
          f"{', tasks ' + args.tasks if args.tasks else ''})")
    for part, values in parts.items():
        print(f"  {part:<24}{statistics.median(values):7.1f} ms")
    print(f"median click step          {step_ms:7.1f} ms   (action + settle + framed screenshot)")
    print(f"bare click + screenshot    {bare_ms:7.1f} ms   (Playwright, same page)")
    print(f"step / bare (pairwise)     {ratio:7.2f} x    (target <= 1.2x)")
    print(f"median page-load step      {load_ms:7.1f} ms   (goto + settle + framed screenshot)")
    print(f"bare page load + screenshot{bare_load_ms:7.1f} ms   (Playwright, same page)")
    print(f"load step / bare (pairwise){load_ratio:7.2f} x    (target <= 1.2x)")
    print(f"peak memory of one Env     {peak:7.0f} MB   (harness + Chromium + apps, RSS)")


if __name__ == "__main__":
    main()
