"""The `/_bench/snapshot` document: every table, rows in primary-key order, stable keys."""
from __future__ import annotations

import hashlib
import json
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import LargeBinary, select
from sqlalchemy.orm import Session

from admindesk.envs.common.state.database import Database

SNAPSHOT_SCHEMA_VERSION = 1


# Types `_json_value` returns unchanged (never a blob column's: those hold bytes).
_AS_IS = frozenset({str, int, float, bool})


def _json_value(value, is_blob: bool):
    if value is None:
        return None
    if is_blob:
        # File contents are identified by hash; checks compare hashes across apps.
        return "sha256:" + hashlib.sha256(value).hexdigest()
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


def build_snapshot(db: Database, session: Session, app_name: str, now: datetime) -> dict:
    """Every table of the app as lists of row dicts, ready for JMESPath queries."""
    snapshot: dict = {"_meta": {"app": app_name, "now": now.isoformat(),
                                "schema_version": SNAPSHOT_SCHEMA_VERSION}}
    for table in sorted(db.tables(), key=lambda t: t.name):
        columns = [c for c in table.columns if c.info.get("snapshot", True)]
        blob = {c.name: isinstance(c.type, LargeBinary) for c in columns}
        rows = session.execute(select(*columns).order_by(*table.primary_key.columns)).all()
        names = [c.name for c in columns]
        # Most values (str, int, float, bool) go in as they are: only the rest pay for a
        # conversion call (the snapshot of a case's EHR holds ~130k values).
        snapshot[table.name] = [
            {name: value if value is None or type(value) in _AS_IS else _json_value(value, blob[name])
             for name, value in zip(names, row)}
            for row in rows
        ]
    return snapshot


def dumps(snapshot: dict) -> bytes:
    """Canonical bytes: sorted keys, no whitespace variance, so equal state = equal bytes."""
    return json.dumps(snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
