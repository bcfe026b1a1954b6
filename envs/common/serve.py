"""`python -m admindesk.envs.<app> --port P --bench-port B --data-dir D`: one app on waitress,
its pages on P and its bench API on B (see request_guards.BenchPortSplit).

One process may serve many episodes at once, each on a lane of its own: `--port P1,P2,...`
and `--bench-port B1,B2,...` give lane i the pages' port Pi and the bench port Bi, and
`--peer NAME=URL1,URL2,...` its peers. Every lane is a whole app of its own (its database,
frozen clock, sessions and secret key) behind its two ports; the lanes share the process's
code, its template cache and its threads, so a lane costs a database, not an interpreter.

The bench token comes from the environment (ADMINDESK_BENCH_TOKEN): a command line is
readable by every local user (`ps`, /proc/<pid>/cmdline), a process's environment only by
its owner. `--token T` is still accepted for a person who types it.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.common.request_guards import BenchPortSplit

BENCH_TOKEN_ENV = "ADMINDESK_BENCH_TOKEN"
# Waitress threads per lane, beyond the base ones: a lane's page and its assets load together.
THREADS_PER_LANE = 2
# Open connections waitress keeps per lane (beyond which it stops accepting, the bench API's
# too): each lane's browser context holds up to six to an origin, kept alive between pages.
CONNECTIONS_PER_LANE = 24


def default_cache_dir() -> Path:
    """ADMINDESK_CACHE_DIR, else the user's cache folder."""
    configured = os.environ.get("ADMINDESK_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "admindesk" / "templates"


class LaneDispatcher:
    """WSGI app: a request goes to the lane whose pages' or bench port it arrived on.

    The port is the listening socket's (waitress's SERVER_PORT), so no header a client
    sends can reach another lane.
    """

    def __init__(self, lanes: dict[int, Callable]) -> None:
        self.lanes = {str(port): app for port, app in lanes.items()}

    def __call__(self, environ: dict, start_response):
        return self.lanes[environ["SERVER_PORT"]](environ, start_response)


def _ports(parser: argparse.ArgumentParser, flag: str, value: str) -> list[int]:
    try:
        ports = [int(item) for item in value.split(",")]
    except ValueError:
        parser.error(f"{flag} takes a port or a comma-separated list of ports, not {value!r}")
    for port in ports:
        if not 0 < port < 65536:
            parser.error(f"{flag} ports must be between 1 and 65535, not {port}")
    return ports


def _peers(parser: argparse.ArgumentParser, items: list[str], lanes: int) -> list[dict[str, str]]:
    """`--peer NAME=URL[,URL...]` flags -> each lane's peers (one URL per lane)."""
    per_lane: list[dict[str, str]] = [{} for _ in range(lanes)]
    for item in items:
        name, _, urls = item.partition("=")
        listed = urls.split(",")
        if not name or not all(url.startswith("http://") for url in listed):
            parser.error(f"--peer takes NAME=http://HOST:PORT (one URL per lane, comma-separated), not {item!r}")
        if len(listed) != lanes:
            parser.error(f"--peer {name} gives {len(listed)} URL(s) for {lanes} lane(s)")
        for lane, url in zip(per_lane, listed):
            lane[name] = url
    return per_lane


def serve_main(app_name: str, make_app: Callable[[AppConfig], Flask], argv: list[str] | None = None) -> None:
    """Parse the service flags, build the app (one per lane) and serve it until killed."""
    parser = argparse.ArgumentParser(prog=f"python -m admindesk.envs.{app_name}",
                                     description=f"Serve the AdminDesk {app_name} app.")
    parser.add_argument("--port", required=True,
                        help="loopback port of the pages (a comma-separated list: one per lane)")
    parser.add_argument("--bench-port", required=True,
                        help="loopback port of the bench API, the harness's (one per lane, as --port); "
                             "a pages' port never serves it")
    parser.add_argument("--host", default="127.0.0.1", help="interface (default: loopback only)")
    parser.add_argument("--data-dir", type=Path, required=True, help="folder for the app's databases")
    parser.add_argument("--token", default=None,
                        help=f"secret for the /_bench API (default: env {BENCH_TOKEN_ENV}, "
                             "which other local users cannot read, unlike this option)")
    parser.add_argument("--world-seed", type=int, default=AppConfig.world_seed)
    parser.add_argument("--tasks-dir", type=Path, default=None, help="folder of task files to seed")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                        help="template database cache shared by runs (env ADMINDESK_CACHE_DIR)")
    parser.add_argument("--threads", type=int, default=None,
                        help=f"waitress threads (default: 6 + {THREADS_PER_LANE} per lane)")
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=URL",
                        help="another app of the run and its bench URL (repeatable; one URL per lane, "
                             "comma-separated): where a fax this app transmits is offered")
    args = parser.parse_args(argv)
    ports = _ports(parser, "--port", args.port)
    bench_ports = _ports(parser, "--bench-port", args.bench_port)
    if len(ports) != len(bench_ports):
        parser.error(f"--port lists {len(ports)} port(s) and --bench-port {len(bench_ports)}: one of each per lane")
    if len(ports) == 1 and ports == bench_ports:
        parser.error(f"--bench-port must differ from --port ({ports[0]})")
    if len(set(ports + bench_ports)) != 2 * len(ports):
        parser.error("every lane's pages' and bench ports must all differ")
    peers = _peers(parser, args.peer, len(ports))
    if args.threads is not None and args.threads < 1:
        parser.error(f"--threads must be at least 1, not {args.threads}")
    # Taken out of the environment, so nothing the app starts inherits it.
    from_env = os.environ.pop(BENCH_TOKEN_ENV, None)
    token = args.token if args.token is not None else from_env
    if token is None:
        parser.error(f"no bench token: set {BENCH_TOKEN_ENV} (or pass --token)")
    if not token.strip():
        parser.error("--token must not be empty" if args.token is not None
                     else f"{BENCH_TOKEN_ENV} must not be empty")
    config = AppConfig(data_dir=args.data_dir, token=token, world_seed=args.world_seed,
                       cache_dir=args.cache_dir)
    if args.tasks_dir is not None:
        config.tasks_dir = args.tasks_dir
    lanes: dict[int, Callable] = {}
    for port, bench_port, lane_peers in zip(ports, bench_ports, peers):
        # Each lane its own secret key too: a session cookie of one lane means nothing in another.
        lane = BenchPortSplit(make_app(replace(config, peers=lane_peers, secret_key=os.urandom(32).hex())),
                              bench_port)
        lanes[port] = lanes[bench_port] = lane

    from waitress import serve  # imported here: only the service process needs it

    threads = args.threads or 6 + THREADS_PER_LANE * len(ports)
    print(f"{app_name} serving {len(ports)} lane(s): pages on {args.host} port(s) {args.port}, "
          f"bench API on {args.bench_port}", flush=True)
    listen = " ".join(f"{args.host}:{port}" for port in (*ports, *bench_ports))
    serve(LaneDispatcher(lanes), listen=listen, threads=threads, ident=app_name, clear_untrusted_proxy_headers=True,
          connection_limit=100 + CONNECTIONS_PER_LANE * len(ports), asyncore_use_poll=True)
