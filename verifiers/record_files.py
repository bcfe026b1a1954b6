"""How an episode's record is stored: gzip'd JSON in `record.json.gz`.

A record holds every app's snapshot before and after the episode, ~11 MB of JSON for a
prior authorization; gzip keeps about an eighth of it, which is what makes hundreds of
episodes per run folder (and per leaderboard submission) practical. `zcat record.json.gz`
gives the JSON back (`| jq` to query it). Folders written before records were compressed
hold a plain `record.json`, which is still read.
"""
from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from pydantic import TypeAdapter

from admindesk.verifiers.records import EpisodeRecord

RECORD_FILE = "record.json.gz"
PLAIN_RECORD_FILE = "record.json"
# gzip's default. On a prior authorization's 11.3 MB record: level 6, 1.34 MB in ~120 ms;
# level 3, 1.64 MB in ~55 ms; level 9, 1.29 MB in ~280 ms (medians of 5, one run).
COMPRESS_LEVEL = 6
_RECORD_JSON = TypeAdapter(EpisodeRecord)


class RecordFileError(ValueError):
    """A stored record cannot be read (truncated or not gzip'd JSON); names the file."""


def write_record(folder: Path, record: EpisodeRecord) -> Path:
    """Store `record` in `folder` as RECORD_FILE (byte-identical for equal records)."""
    path = folder / RECORD_FILE
    # JSON as bytes straight from the serializer (no 11 MB str to encode again); mtime=0:
    # no time in the gzip header, so equal records give equal files.
    path.write_bytes(gzip.compress(_RECORD_JSON.dump_json(record), COMPRESS_LEVEL, mtime=0))
    return path


def record_file(folder: Path) -> Path | None:
    """The record file in an episode folder (compressed, else plain), or None."""
    for name in (RECORD_FILE, PLAIN_RECORD_FILE):
        if (folder / name).is_file():
            return folder / name
    return None


def read_json_bytes(path: Path) -> bytes:
    """A JSON file's bytes, un-gzipped when its name ends in .gz (a record); OSError if it
    cannot be read, RecordFileError if its gzip is incomplete."""
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise RecordFileError(f"{path}: not a complete gzip file ({exc})") from exc
    return data


def load_record(path: Path) -> EpisodeRecord:
    """The EpisodeRecord stored at `path` (pydantic's ValidationError if it does not fit)."""
    return EpisodeRecord.model_validate_json(read_json_bytes(path))
