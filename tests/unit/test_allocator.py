"""The worker's allocator settings: memory freed after an episode goes back to the system."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

from admindesk.process_memory import release_free_memory


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_release_gives_back_a_snapshot_parsed_in_a_thread():
    # As in an episode: a snapshot's JSON is parsed in a snapshot thread (its own malloc
    # arena), a few rows outlive the episode, the rest is garbage. Strings this long are
    # malloc'd, not pymalloc'd; the survivors stop glibc trimming the arena by itself.
    text = json.dumps([{"id": i, "note": "x" * (600 + i % 400)} for i in range(60_000)])
    survivors = []

    def parse() -> list[dict]:
        rows = json.loads(text)
        survivors.extend(rows[::500])
        return rows

    before = _rss_kb()
    with ThreadPoolExecutor(1) as pool:
        rows = pool.submit(parse).result()
    grown = _rss_kb() - before
    assert grown > 20_000  # ~48 MB of strings; some may land in pages the worker already held
    del rows
    release_free_memory()
    assert _rss_kb() - before < grown / 3
    assert len(survivors) == 120
