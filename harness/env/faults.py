"""Fault injection for soak runs and tests: kill or hang an app, kill the page renderers.

Faults act on processes from outside, as a crash or the kernel's OOM killer would; nothing
here goes through the agent's action space. Linux only (reads /proc).
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

from admindesk.harness.env.services import Services


def descendants(root: int) -> list[int]:
    """Every live process below `root` (children, grandchildren...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # exited while being read
        children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def cmdline(pid: int) -> str:
    """The command line of `pid`, arguments joined by spaces ('' once it has exited)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def renderer_pids(root: int | None = None) -> list[int]:
    """Every Chromium renderer process below `root` (default: this process)."""
    return [pid for pid in descendants(os.getpid() if root is None else root)
            if "--type=renderer" in cmdline(pid)]


def kill_renderers(root: int | None = None) -> int:
    """SIGKILL every Chromium renderer process below `root` (default: this process).

    Their pages crash, as when a renderer runs out of memory. Returns how many were killed.
    """
    killed = 0
    for pid in renderer_pids(root):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            continue
    return killed


def kill_process_tree(root: int) -> None:
    """SIGKILL `root` and every process below it (safe from any thread: no Playwright call)."""
    for pid in [root, *descendants(root)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue


def kill_app(services: Services, name: str) -> None:
    """SIGKILL app `name`'s whole process group: it is dead until restarted."""
    os.killpg(services.processes[name].process.pid, signal.SIGKILL)


def stop_app(services: Services, name: str) -> None:
    """SIGSTOP app `name`'s process group: alive but hung (accepts connections, never answers)."""
    os.killpg(services.processes[name].process.pid, signal.SIGSTOP)
