"""The `admindesk` command line: `serve` the apps for a person, run the scripted `demo`."""
from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path

import click

from admindesk.harness.cli.inspect_import import import_inspect
from admindesk.harness.cli.judge import judge
from admindesk.harness.cli.play import play
from admindesk.harness.cli.report import leaderboard, report
from admindesk.harness.cli.run import run
from admindesk.harness.cli.score import score
from admindesk.harness.cli.tasks import tasks
from admindesk.harness.cli.world import world
from admindesk.harness.env.environment import APP_LABELS, DEFAULT_PASSWORD, DEFAULT_USERNAME
from admindesk.harness.env.services import (
    APP_NAMES,
    BENCH_TOKEN_ENV,
    ServiceError,
    Services,
    available_apps,
)


@click.group()
@click.version_option(package_name="admindesk", prog_name="admindesk", message="%(prog)s %(version)s")
def main() -> None:
    """AdminDesk: healthcare back-office tasks for computer-use agents."""


@main.command()
@click.option("--base-port", default=5100, show_default=True,
              type=click.IntRange(1024, 65535 - 2 * len(APP_NAMES) + 1),
              help="First port; the apps' pages take consecutive ports from here, their bench APIs the "
                   "ports after those.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the apps keep their databases (default: a temporary folder).")
@click.option("--token", default=None, envvar=BENCH_TOKEN_ENV, show_envvar=True,
              help="Bench token the apps accept (default: a new random one); printed either way, "
              "for `Env(attach=AttachSpec(token, ports, bench_ports))`. The apps get it through their "
              "environment, never their command line; prefer the environment variable here "
              "too (other local users can read this command's own arguments).")
def serve(base_port: int, data_dir: Path | None, token: str | None) -> None:
    """Run every available app, each as its own process, until Ctrl-C."""
    apps = available_apps()
    if not apps:
        raise click.ClickException("no app is available yet (no envs/<app>/__main__.py)")
    services = Services(apps=apps, base_port=base_port, work_dir=data_dir,
                        **({"token": token} if token else {}))
    stop = threading.Event()
    # SIGTERM ends the run like Ctrl-C does, so the apps are stopped either way.
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with services:
            for name in apps:
                click.echo(f"{APP_LABELS.get(name, name):<16} {services.url(name)}")
            click.echo(f"bench token: {services.token}")
            click.echo("ports: " + json.dumps(services.ports))
            click.echo("bench ports: " + json.dumps(services.bench_ports))
            click.echo(f"Log in as {DEFAULT_USERNAME} / {DEFAULT_PASSWORD}. Ctrl-C stops.")
            while not stop.wait(1.0):
                restarted = services.ensure_alive()
                if restarted:
                    click.echo(f"restarted: {', '.join(restarted)}", err=True)
    except KeyboardInterrupt:
        pass
    except ServiceError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo("stopped")


@main.command()
@click.option("--out", "out_dir", required=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the trajectory and screenshots.")
def demo(out_dir: Path) -> None:
    """Scripted episode: EHR download -> fax attachment through the drawn file dialog."""
    from admindesk.harness.agents.demo import run_demo
    from admindesk.harness.agents.scripted import ScriptFailed
    from admindesk.verifiers.record_files import write_record

    try:
        result = run_demo(out_dir)
    except (ScriptFailed, ServiceError) as exc:
        raise click.ClickException(str(exc)) from exc
    write_record(out_dir, result.record)
    click.echo(f"downloaded sha256 {result.downloaded_sha256}")
    click.echo(f"faxed sha256      {', '.join(result.faxed_sha256) or '(nothing faxed)'}")
    click.echo(f"trajectory in {out_dir}")
    if not result.hashes_match:
        click.echo("MISMATCH: the fax did not carry the downloaded file", err=True)
        sys.exit(1)
    click.echo("OK: the fax carried exactly the downloaded file")


main.add_command(tasks)
main.add_command(score)
main.add_command(run)
main.add_command(judge)
main.add_command(report)
main.add_command(leaderboard)
main.add_command(play)
main.add_command(import_inspect)
main.add_command(world)
