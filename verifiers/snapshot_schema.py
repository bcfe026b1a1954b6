"""Each app's snapshot schema (tables, columns, primary keys), read from a generated file.

`snapshot_schema.json` is dumped from the apps' SQLAlchemy metadata by
`tests/unit/fixtures/snapshot_schema_dump.py` (a test fails when it is stale), so the
verifiers know the apps' tables without importing them.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

SCHEMA_PATH = Path(__file__).resolve().parent / "snapshot_schema.json"


class TableSchema(BaseModel):
    """One table as its snapshot shows it."""

    columns: list[str]
    primary_key: list[str]
    json_columns: list[str] = []
    file_columns: list[str] = []


SnapshotSchema = dict[str, dict[str, TableSchema]]


@lru_cache(maxsize=1)
def load_schema(path: Path = SCHEMA_PATH) -> SnapshotSchema:
    """{app: {table: TableSchema}} from the generated file."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {app: {name: TableSchema.model_validate(table) for name, table in tables.items()}
            for app, tables in raw.items()}


def primary_key(app: str, table: str) -> list[str]:
    """The table's key columns (`id` for a table the schema does not know)."""
    known = load_schema().get(app, {}).get(table)
    return known.primary_key if known is not None else ["id"]
