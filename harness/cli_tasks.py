"""`admindesk tasks ...`: look at task files. `tasks case ID` prints what a task's case
puts in each app, without starting any app: it builds the task's templates the way a
reset does (or takes them from the cache) and lists the rows they add to the world's."""
from __future__ import annotations

import importlib
import tempfile
from datetime import date, datetime
from pathlib import Path

import click

from admindesk.harness.services import APP_NAMES
from admindesk.verifiers.task_model import TASKS_ROOT

MAIN_FIELDS = 6
VALUE_WIDTH = 40


@click.group()
def tasks() -> None:
    """Task files: what they put in the apps."""


def _value(value) -> str:
    if isinstance(value, (date, datetime)):
        value = value.isoformat()
    elif isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = " ".join(str(value).split())
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 3] + "..."


def describe_rows(table, rows: list[dict]) -> list[str]:
    """One line per row: table, key, and the row's first few filled fields."""
    keys = [c.name for c in table.primary_key.columns]
    lines = []
    for row in rows:
        key = "/".join(_value(row[k]) for k in keys)
        fields = [f"{name}={_value(value)}" for name, value in row.items()
                  if name not in keys and value not in (None, "", b"")][:MAIN_FIELDS]
        lines.append(f"  {table.name:<22} {key:<18} {' '.join(fields)}")
    return lines


@tasks.command("case")
@click.argument("task_id")
@click.option("--tasks-dir", type=click.Path(file_okay=False, path_type=Path), default=TASKS_ROOT,
              show_default=True, help="Folder of task files.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Template cache (default: ADMINDESK_CACHE_DIR or the user's cache folder).")
def case(task_id: str, tasks_dir: Path, cache_dir: Path | None) -> None:
    """Print the rows task TASK_ID's case (and raw seed) adds to each app."""
    from admindesk.envs.common.factory import AppConfig
    from admindesk.envs.common.seeding import SeedError
    from admindesk.envs.common.serve import default_cache_dir
    from admindesk.envs.common.task_templates import UnknownTask, rows_added

    with tempfile.TemporaryDirectory(prefix="admindesk-case-") as scratch:
        for name in APP_NAMES:
            create_app = importlib.import_module(f"admindesk.envs.{name}").create_app
            app = create_app(AppConfig(data_dir=Path(scratch) / name, tasks_dir=tasks_dir,
                                       cache_dir=cache_dir or default_cache_dir()))
            kit = app.extensions["admindesk"]
            try:
                template = kit.task_templates.template_for(task_id)
            except (UnknownTask, SeedError) as exc:
                raise click.ClickException(str(exc)) from exc
            added = rows_added(kit.db, template, kit.template)
            tables = {table.name: table for table in kit.db.tables()}
            count = sum(len(rows) for rows in added.values())
            click.echo(f"{name}: {count} row(s)" + ("" if count else " (the task does not touch this app)"))
            for table_name, rows in added.items():
                for line in describe_rows(tables[table_name], rows):
                    click.echo(line)
