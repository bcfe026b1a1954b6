"""`admindesk play TASK_ID`: the apps in a task's state, a task card with a Done button, and
the check-by-check verdict on Done (see harness/integrations/play.py)."""
from __future__ import annotations

import json
import signal
import threading
import webbrowser
from pathlib import Path

import click

from admindesk.harness.env.environment import APP_LABELS
from admindesk.harness.env.services import APP_NAMES, ServiceError
from admindesk.schema.task_model import TASKS_ROOT


@click.command("play")
@click.argument("task_id")
@click.option("--base-port", default=5100, show_default=True,
              type=click.IntRange(1024, 65535 - 2 * len(APP_NAMES) + 1),
              help="First app port; the apps' pages take consecutive ports from here, their bench APIs the "
                   "ports after those.")
@click.option("--card-port", default=5099, show_default=True, type=click.IntRange(1024, 65535),
              help="Port of the task card page.")
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=TASKS_ROOT,
              show_default=True, help="Folder of task files (a designer's draft folder works).")
@click.option("--judge", "judge_spec", default=None, metavar="SPEC",
              help="Judge for rubric checks (as in `admindesk score --judge`); without one they stay unjudged.")
@click.option("--open/--no-open", "open_card", default=True, show_default=True,
              help="Open the card in the default web browser.")
@click.option("--attempts-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Human baseline: the first Done writes the attempt as JSON into this folder "
                   "(docs/human_baseline.md); needs --participant, --role and --experience-years.")
@click.option("--participant", default=None, help="Human baseline: the participant's opaque id (e.g. P07).")
@click.option("--role", default=None, help="Human baseline: the participant's role.")
@click.option("--experience-years", type=click.FloatRange(0, 60), default=None,
              help="Human baseline: the participant's years of this work.")
def play(task_id: str, base_port: int, card_port: int, tasks_dir: Path, judge_spec: str | None,
         open_card: bool, attempts_dir: Path | None, participant: str | None, role: str | None,
         experience_years: float | None) -> None:
    """Serve the apps in TASK_ID's state with a task card; Done prints the check-by-check result."""
    from admindesk.harness.integrations.play import PlaySession, find_task
    from admindesk.verifiers.judge import JudgeSpecError, load_judge
    try:
        task = find_task(task_id, tasks_dir)
        judge = load_judge(judge_spec) if judge_spec else None
    except (KeyError, JudgeSpecError) as exc:
        raise click.ClickException(str(exc.args[0] if isinstance(exc, KeyError) else exc)) from exc
    who = _participant(attempts_dir, participant, role, experience_years)
    attempt_file = None
    if attempts_dir is not None and who is not None:
        from admindesk.harness.integrations.human_attempt import attempt_path
        attempt_file = attempt_path(attempts_dir, task.id, who)
        if attempt_file.exists():
            raise click.ClickException(f"{attempt_file} already exists: {who.id} has done {task.id} "
                                       "(no participant does a task twice)")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with PlaySession(task, base_port=base_port, card_port=card_port, judge=judge,
                         echo=lambda line: click.echo(line), attempt_file=attempt_file,
                         participant=who, judge_spec=judge_spec,
                         guidance_dir=guidance if (guidance := tasks_dir / "guidance").is_dir() else None) as session:
            for name in session.services.processes:
                click.echo(f"{APP_LABELS.get(name, name):<16} {session.services.url(name)}")
            click.echo(f"bench token: {session.services.token}")
            click.echo("bench ports: " + json.dumps(session.services.bench_ports))
            click.echo(f"task card: {session.card_url}  (press Done there; Ctrl-C stops)")
            if open_card:
                webbrowser.open(session.card_url)
            while not stop.wait(1.0):
                pass
    except KeyboardInterrupt:
        pass
    except (ServiceError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo("stopped")


def _participant(attempts_dir: Path | None, participant: str | None, role: str | None,
                 experience_years: float | None):
    """The human-baseline participant the options describe (None without --attempts-dir)."""
    from pydantic import ValidationError

    from admindesk.harness.integrations.human_attempt import Participant
    given = {"--participant": participant, "--role": role, "--experience-years": experience_years}
    if attempts_dir is None:
        if any(value is not None for value in given.values()):
            raise click.UsageError("--participant, --role and --experience-years describe a human-baseline "
                                   "attempt: give --attempts-dir too")
        return None
    missing = [name for name, value in given.items() if value is None]
    if missing:
        raise click.UsageError(f"--attempts-dir needs {', '.join(missing)}")
    try:
        return Participant(id=participant, role=role, experience_years=experience_years)
    except ValidationError as exc:
        first = exc.errors()[0]
        option = {"id": "--participant", "role": "--role", "experience_years": "--experience-years"}[first["loc"][0]]
        reason = str(first["ctx"]["error"]) if first["type"] == "value_error" else first["msg"]
        raise click.BadParameter(reason, param_hint=option) from exc
