"""`python -m admindesk.envs.<app> --port P --bench-port B --data-dir D`: one app on waitress,
its pages on P and its bench API on B (see request_guards.BenchPortSplit).

The bench token comes from the environment (ADMINDESK_BENCH_TOKEN): a command line is
readable by every local user (`ps`, /proc/<pid>/cmdline), a process's environment only by
its owner. `--token T` is still accepted for a person who types it.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.common.request_guards import BenchPortSplit

BENCH_TOKEN_ENV = "ADMINDESK_BENCH_TOKEN"


def default_cache_dir() -> Path:
    """ADMINDESK_CACHE_DIR, else the user's cache folder."""
    configured = os.environ.get("ADMINDESK_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "admindesk" / "templates"


def serve_main(app_name: str, make_app: Callable[[AppConfig], Flask], argv: list[str] | None = None) -> None:
    """Parse the service flags, build the app and serve it until killed."""
    parser = argparse.ArgumentParser(prog=f"python -m admindesk.envs.{app_name}",
                                     description=f"Serve the AdminDesk {app_name} app.")
    parser.add_argument("--port", type=int, required=True, help="loopback port of the pages")
    parser.add_argument("--bench-port", type=int, required=True,
                        help="loopback port of the bench API (the harness's; the pages' port never serves it)")
    parser.add_argument("--host", default="127.0.0.1", help="interface (default: loopback only)")
    parser.add_argument("--data-dir", type=Path, required=True, help="folder for the app's databases")
    parser.add_argument("--token", default=None,
                        help=f"secret for the /_bench API (default: env {BENCH_TOKEN_ENV}, "
                             "which other local users cannot read, unlike this option)")
    parser.add_argument("--world-seed", type=int, default=AppConfig.world_seed)
    parser.add_argument("--tasks-dir", type=Path, default=None, help="folder of task files to seed")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                        help="template database cache shared by runs (env ADMINDESK_CACHE_DIR)")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--peer", action="append", default=[], metavar="NAME=URL",
                        help="another app of the run and its base URL (repeatable): where a fax "
                             "this app transmits is offered")
    args = parser.parse_args(argv)
    for flag, port in (("--port", args.port), ("--bench-port", args.bench_port)):
        if not 0 < port < 65536:
            parser.error(f"{flag} must be between 1 and 65535, not {port}")
    if args.port == args.bench_port:
        parser.error(f"--bench-port must differ from --port ({args.port})")
    peers = {}
    for item in args.peer:
        name, _, url = item.partition("=")
        if not name or not url.startswith("http://"):
            parser.error(f"--peer takes NAME=http://HOST:PORT, not {item!r}")
        peers[name] = url
    # Taken out of the environment, so nothing the app starts inherits it.
    from_env = os.environ.pop(BENCH_TOKEN_ENV, None)
    token = args.token if args.token is not None else from_env
    if token is None:
        parser.error(f"no bench token: set {BENCH_TOKEN_ENV} (or pass --token)")
    if not token.strip():
        parser.error("--token must not be empty" if args.token is not None
                     else f"{BENCH_TOKEN_ENV} must not be empty")
    config = AppConfig(data_dir=args.data_dir, token=token, world_seed=args.world_seed,
                       cache_dir=args.cache_dir, peers=peers)
    if args.tasks_dir is not None:
        config.tasks_dir = args.tasks_dir
    app = make_app(config)

    from waitress import serve  # imported here: only the service process needs it

    print(f"{app_name} serving on http://{args.host}:{args.port} (bench API on port {args.bench_port})",
          flush=True)
    serve(BenchPortSplit(app, args.bench_port), listen=f"{args.host}:{args.port} {args.host}:{args.bench_port}",
          threads=args.threads, ident=app_name, clear_untrusted_proxy_headers=True)
