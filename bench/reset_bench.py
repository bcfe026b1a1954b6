"""Median time of `POST /_bench/reset` on every app, served as it is in a run.

Each app runs as its own waitress process (the harness' Services); the figure is the
round trip seen by the client, over --resets resets per app, after one warm-up reset.
The apps' template databases are built (or taken from the cache) before timing starts.
Target: <= 50 ms median per app.
"""
from __future__ import annotations

import argparse
import statistics
import time

from admindesk.harness.services import Services, bench_call

TARGET_MS = 50.0


def time_resets(services: Services, app: str, count: int) -> tuple[list[float], int]:
    port = services.ports[app]
    bench_call(port, services.token, "POST", "/_bench/reset", {})  # warm-up
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        bench_call(port, services.token, "POST", "/_bench/reset", {"now": "2026-11-16T09:00:00"})
        timings.append((time.perf_counter() - started) * 1000)
    snapshot = bench_call(port, services.token, "GET", "/_bench/snapshot")
    rows = sum(len(v) for k, v in snapshot.items() if k != "_meta")
    return timings, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resets", type=int, default=30, help="timed resets per app (>= 20)")
    args = parser.parse_args()
    if args.resets < 1:
        parser.error("--resets must be at least 1")
    started = time.perf_counter()
    with Services() as services:
        print(f"apps up in {time.perf_counter() - started:.1f} s: {', '.join(services.ports)}")
        print(f"{'app':<16}{'rows':>8}{'median ms':>11}{'p90 ms':>9}{'max ms':>9}  target <= {TARGET_MS:.0f} ms")
        for app in services.ports:
            timings, rows = time_resets(services, app, args.resets)
            p90 = statistics.quantiles(timings, n=10)[-1] if len(timings) > 1 else timings[0]
            median = statistics.median(timings)
            verdict = "ok" if median <= TARGET_MS else "OVER"
            print(f"{app:<16}{rows:>8}{median:>11.1f}{p90:>9.1f}{max(timings):>9.1f}  {verdict}")


if __name__ == "__main__":
    main()
