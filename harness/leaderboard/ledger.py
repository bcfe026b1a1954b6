"""The maintainers' ledger of replayed submissions (e.g. verified.json beside the board).

`admindesk leaderboard validate DIR --replay --ledger FILE` writes a line for a submission
whose every episode replayed to its record; `leaderboard build --ledger FILE` lists an
entry as verified only while its records are the ones replayed (a fingerprint of every
record's digest), so a submission changed after its replay is self-reported again. The
ledger stays with the maintainers: a file inside a submission proves nothing.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError


class LedgerLine(BaseModel):
    """One replayed submission: the records it replayed, how many, when and with what."""

    model_config = ConfigDict(extra="forbid")

    records_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    episodes: int = Field(ge=0)
    replayed_on: datetime.date
    admindesk: str


class Ledger(RootModel[dict[str, LedgerLine]]):
    """Submission folder name -> its replay."""


class LedgerError(ValueError):
    """The ledger file cannot be read (named, with why)."""


def records_fingerprint(record_digests: dict[str, str]) -> str:
    """One sha256 over every episode's record digest (episode name and digest, in order)."""
    lines = "".join(f"{episode}\t{digest}\n" for episode, digest in sorted(record_digests.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def load_ledger(path: Path) -> Ledger:
    """The ledger at `path` (empty when the file does not exist yet)."""
    if not path.exists():
        return Ledger({})
    try:
        return Ledger.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise LedgerError(f"{path}: not a replay ledger ({exc})") from exc


def add_replay(path: Path, name: str, record_digests: dict[str, str], version: str,
               today: datetime.date | None = None) -> LedgerLine:
    """Write (or replace) submission `name`'s line; the file is replaced whole, atomically."""
    ledger = load_ledger(path)
    line = LedgerLine(records_sha256=records_fingerprint(record_digests), episodes=len(record_digests),
                      replayed_on=today or datetime.date.today(), admindesk=version)
    ledger.root[name] = line
    staging = path.with_name(f".{path.name}.staging")
    staging.write_text(ledger.model_dump_json(indent=1), encoding="utf-8")
    os.replace(staging, path)
    return line


def is_verified(ledger: Ledger, name: str, record_digests: dict[str, str]) -> bool:
    """Whether submission `name` holds exactly the records the maintainers replayed."""
    line = ledger.root.get(name)
    return line is not None and line.records_sha256 == records_fingerprint(record_digests)
