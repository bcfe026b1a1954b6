"""Harness speed and memory, measured in one run on the same page.

Prints the median Env reset (all apps reset + fresh context + logged-in start page + first
observation), the median step of a click (action + settle + framed screenshot) and of a page
load (a `goto`: the page, its styles and scripts) and of typing a note into a chart's note
field, a bare Playwright click, page load or keyboard.type + screenshot on the same page as
the reference for each, their ratios, and the peak memory of one Env (harness + Chromium + app
processes). Targets: reset <= 300 ms, step <= 1.2x the bare reference.

    python bench/harness_bench.py [--resets 15] [--clicks 30] [--notes 10] [--tasks pa-easy-01,dme-easy-02]

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
NOTE_FIELD = "textarea[name=text]"  # a patient's chart notes page
# A note about as long as the plans the notes-only control writes (546 characters on average).
NOTE = ("Called Keystone Mutual provider services re: lumbar MRI (CPT 72148) for this patient. "
        "Rep confirmed precertification is required for outpatient advanced imaging; submitted "
        "via portal with the last two office notes, PT log covering six weeks of conservative "
        "therapy and the radiology order. Reference number given on the call; decision expected "
        "within 3 business days. Will recheck status on the portal and update the work item. "
        "If pended for records, fax the neurology consult from the encounter on file.")


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

    def type_note(self) -> float:
        self.page.keyboard.press("Control+A")  # the last note, replaced
        started = time.perf_counter()
        self.page.keyboard.type(NOTE)
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
    parser.add_argument("--notes", type=int, default=10)
    parser.add_argument("--tasks", default=None, help="suite tasks (comma-separated) the resets go round")
    args = parser.parse_args()
    if min(args.resets, args.clicks, args.notes) < 1:
        parser.error("--resets, --clicks and --notes must be at least 1")
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
        notes, bare_notes = [], []
        timed_step(env, {"type": "goto", "url": env.app_url("ehr_web", "/patients?search=1&name=a&mrn=&dob=")})
        notes_url = env.app_url("ehr_web", env.page_locator("a[href^='/patients/'][href$='/summary']").first
                                .get_attribute("href", timeout=5000).replace("/summary", "/notes"))
        timed_step(env, {"type": "goto", "url": notes_url})
        bare.page.goto(notes_url)
        note_x, note_y = env.element_center(NOTE_FIELD)
        env.step({"type": "click", "x": note_x, "y": note_y})
        bare.page.focus(NOTE_FIELD)
        for _ in range(args.notes):
            env.step({"type": "key", "keys": "Control+A"})
            notes.append(timed_step(env, {"type": "type", "text": NOTE}))
            bare_notes.append(bare.type_note())
        peak = max(peak, tree_rss_mb(os.getpid()))
        bare.context.close()
    reset_ms, step_ms, bare_ms, load_ms, bare_load_ms = (statistics.median(v) for v in (
        resets, steps, bares, loads, bare_loads))
    ratio = statistics.median(s / b for s, b in zip(steps, bares, strict=True))
    load_ratio = statistics.median(s / b for s, b in zip(loads, bare_loads, strict=True))
    note_ms, bare_note_ms = statistics.median(notes), statistics.median(bare_notes)
    note_ratio = statistics.median(s / b for s, b in zip(notes, bare_notes, strict=True))
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
    print(f"median note-typing step    {note_ms:7.1f} ms   ({len(NOTE)} characters + settle + framed screenshot)")
    print(f"bare keyboard.type + shot  {bare_note_ms:7.1f} ms   (Playwright, same page)")
    print(f"typing step / bare         {note_ratio:7.2f} x    (target <= 1.2x)")
    print(f"peak memory of one Env     {peak:7.0f} MB   (harness + Chromium + apps, RSS)")


if __name__ == "__main__":
    main()
