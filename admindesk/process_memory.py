"""Malloc settings for the long-lived processes of a run (apps and harness workers): few
arenas, and big garbage handed back to the system.

glibc gives threads their own malloc arenas (waitress serves each app on 8 threads; a
worker parses snapshots in its own threads), each keeping the blocks its thread freed.
An app's snapshot (every table as JSON) or a task's first reset (building its world), and
a worker's scored episode (every app's snapshot, twice), leave MB of garbage each time;
untrimmed, ehr_web held ~95 MB PSS in a short bench and ~165 MB some 70 episodes into a
check run.
It sits outside the apps and the harness because both use it: it is plain glibc.
"""
from __future__ import annotations

import ctypes
import gc

M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
MALLOC_ARENAS = 2


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018  (not glibc: no such symbol)
        return libc
    except (OSError, AttributeError):
        return None


def limit_arenas(count: int = MALLOC_ARENAS) -> None:
    """At most `count` arenas for this process (and processes it forks afterwards)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_ARENA_MAX, count)


def trim_free_memory() -> None:
    """Return the allocator's free pages to the system (a few ms; no garbage collection,
    which costs an app ~80 ms a call)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def release_free_memory() -> None:
    """Collect the young generations' garbage, then return the allocator's free pages to
    the system.

    An episode's bulk (its snapshots and record: trees of dicts without cycles) is freed as
    it goes out of use. A full collection would also walk the ~300k objects a worker keeps
    (the task's initial snapshots among them), ~130 ms an episode, to find a few thousand
    cyclic ones more; Python's own full collections come round for those."""
    gc.collect(1)
    trim_free_memory()
