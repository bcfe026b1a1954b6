"""Run a call in a thread of its own, away from the event loop pytest-playwright leaves running."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor


def in_fresh_thread(function, *args, **kwargs):
    """`function(*args, **kwargs)` in a new thread, its result or its exception returned here.

    An xdist worker that has run a browser test keeps pytest-playwright's session event loop
    running in its main thread; Inspect (through anyio) starts a loop of its own, which asyncio
    refuses while another runs in the same thread. A new thread has no running loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args, **kwargs).result()
