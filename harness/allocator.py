"""Keeping a long-lived worker's memory flat: fewer glibc arenas, and freed memory handed
back to the system after each episode.

An episode parses every app's snapshot (several MB of JSON each, in the snapshot threads)
and frees it all when scored; glibc keeps freed memory in the arena that served it, one
arena per thread, so without this a worker grows by tens of MB an episode.
"""
from __future__ import annotations

import ctypes
import gc

M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
WORKER_MALLOC_ARENAS = 2


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018  (not glibc: no such symbol)
        return libc
    except (OSError, AttributeError):
        return None


def limit_arenas(count: int = WORKER_MALLOC_ARENAS) -> None:
    """Let at most `count` malloc arenas serve this process's threads (call before they start)."""
    libc = _libc()
    if libc is not None:
        libc.mallopt(M_ARENA_MAX, count)


def release_free_memory() -> None:
    """Collect garbage and return the allocator's free pages to the system."""
    gc.collect()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
