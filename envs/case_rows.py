"""The rows a task's case adds to each app: the public interface `admindesk tasks case` reads.

It builds the task's template databases the way a reset does (or takes them from the
template cache) without starting any app, and lists the rows they hold beyond the world's.
"""
from __future__ import annotations

import importlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from admindesk.envs.common.factory import AppConfig
from admindesk.envs.common.serve import default_cache_dir
from admindesk.envs.common.state.seeding import SeedError
from admindesk.envs.common.state.task_templates import UnknownTask, rows_added
from admindesk.schema.app_names import APP_NAMES


class CaseRowsError(LookupError):
    """The task is unknown, or its case or seed does not build; the message says which."""


@dataclass(frozen=True)
class TableRows:
    """The rows one table gains, with the table's primary-key columns (rows in key order)."""

    table: str
    key_columns: tuple[str, ...]
    rows: list[dict]


def case_rows(task_id: str, tasks_dir: Path, cache_dir: Path | None = None) -> dict[str, list[TableRows]]:
    """App name -> the tables task `task_id`'s case adds rows to (every app, in APP_NAMES order)."""
    found: dict[str, list[TableRows]] = {}
    with tempfile.TemporaryDirectory(prefix="admindesk-case-") as scratch:
        for name in APP_NAMES:
            create_app = importlib.import_module(f"admindesk.envs.{name}").create_app
            app = create_app(AppConfig(data_dir=Path(scratch) / name, tasks_dir=tasks_dir,
                                       cache_dir=cache_dir or default_cache_dir()))
            kit = app.extensions["admindesk"]
            try:
                template = kit.task_templates.template_for(task_id)
            except (UnknownTask, SeedError) as exc:
                raise CaseRowsError(str(exc)) from exc
            tables = {table.name: table for table in kit.db.tables()}
            found[name] = [TableRows(table=table_name,
                                     key_columns=tuple(c.name for c in tables[table_name].primary_key.columns),
                                     rows=rows)
                           for table_name, rows in rows_added(kit.db, template, kit.template).items()]
    return found
