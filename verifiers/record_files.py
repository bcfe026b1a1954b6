"""How an episode's record is stored: gzip'd JSON in `record.json.gz`; and how any stored
JSON file of a run folder (a record, scores.json, run.json) is read back.

A record holds every app's snapshot before and after the episode, ~11 MB of JSON for a
prior authorization; gzip keeps about an eighth of it, which is what makes hundreds of
episodes per run folder (and per leaderboard submission) practical. `zcat record.json.gz`
gives the JSON back (`| jq` to query it). Folders written before records were compressed
hold a plain `record.json`, which is still read.

Run folders also arrive from strangers (leaderboard submissions), so reading is defensive:
only regular files are opened (a named pipe would block forever), no file may hold or
decompress to more than MAX_JSON_BYTES, and JSON is parsed strictly (no NaN or Infinity,
which Python's json module accepts by default, and no number too large for a float).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import stat
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import TypeAdapter

from admindesk.verifiers.records import EpisodeRecord

RECORD_FILE = "record.json.gz"
PLAIN_RECORD_FILE = "record.json"
# gzip's default. On a prior authorization's 11.3 MB record: level 6, 1.34 MB in ~120 ms;
# level 3, 1.64 MB in ~55 ms; level 9, 1.29 MB in ~280 ms (medians of 5, one run).
COMPRESS_LEVEL = 6
# The most a stored JSON file may hold (after decompression): over 20 times a prior
# authorization's record, and far below what would exhaust a machine's memory.
MAX_JSON_BYTES = 256 * 2**20
_CHUNK = 2**20
_RECORD_JSON = TypeAdapter(EpisodeRecord)


class RecordFileError(ValueError):
    """A stored JSON file cannot be read (not a regular file, too large, truncated gzip, not
    strict JSON); `path` is the file and `reason` what is wrong with it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def write_record(folder: Path, record: EpisodeRecord) -> Path:
    """Store `record` in `folder` as RECORD_FILE (byte-identical for equal records)."""
    path = folder / RECORD_FILE
    # JSON as bytes straight from the serializer (no 11 MB str to encode again); mtime=0:
    # no time in the gzip header, so equal records give equal files.
    path.write_bytes(gzip.compress(_RECORD_JSON.dump_json(record), COMPRESS_LEVEL, mtime=0))
    return path


def record_digest(record: EpisodeRecord) -> str:
    """The sha256 of the record's content, the same however it was compressed or spaced."""
    return hashlib.sha256(_RECORD_JSON.dump_json(record)).hexdigest()


def record_file(folder: Path) -> Path | None:
    """The record file in an episode folder (compressed, else plain), or None."""
    for name in (RECORD_FILE, PLAIN_RECORD_FILE):
        if (folder / name).is_file():
            return folder / name
    return None


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading in binary; RecordFileError when it is not a regular file
    (a named pipe, socket, device or folder), OSError when it cannot be opened."""
    # O_NONBLOCK: opening a named pipe would otherwise wait for a writer that never comes.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RecordFileError(path, "not a regular file (a named pipe, socket, device or folder)")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit} bytes"


def _read_capped(stream: BinaryIO, path: Path, limit: int, what: str) -> bytes:
    """All of `stream`, read in chunks; RecordFileError as soon as it passes `limit` bytes."""
    chunks, size = [], 0
    while chunk := stream.read(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise RecordFileError(path, f"{what} more than {_size(limit)}, the limit for a stored JSON file")
        chunks.append(chunk)
    return b"".join(chunks)


def read_json_bytes(path: Path, limit: int = MAX_JSON_BYTES) -> bytes:
    """A JSON file's bytes, un-gzipped when its name ends in .gz (a record); OSError if it
    cannot be opened, RecordFileError if it is not a regular file, holds (or decompresses
    to) more than `limit` bytes, or its gzip is incomplete."""
    with open_regular(path) as raw:
        if not path.name.endswith(".gz"):
            return _read_capped(raw, path, limit, "holds")
        try:
            # Measured before it is kept: a gzip bomb costs the time to decompress `limit`
            # bytes and one chunk of memory, not `limit` bytes of it.
            with gzip.GzipFile(fileobj=raw) as stream:
                while stream.read(_CHUNK):
                    if stream.tell() > limit:
                        raise RecordFileError(path, f"decompresses to more than {_size(limit)}, "
                                                    "the limit for a stored JSON file")
            raw.seek(0)
            with gzip.GzipFile(fileobj=raw) as stream:
                return _read_capped(stream, path, limit, "decompresses to")
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise RecordFileError(path, f"not a complete gzip file ({exc})") from exc


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(data: bytes | str, path: Path) -> Any:
    """`data` (read from `path`) parsed as strict JSON: NaN, Infinity and numbers beyond a
    float's range are refused, as is nesting deeper than the parser can follow;
    RecordFileError names the file and the reason."""
    try:
        return json.loads(data, parse_float=_finite_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RecordFileError(path, f"not JSON ({exc.msg} at line {exc.lineno})") from exc
    except RecursionError as exc:
        raise RecordFileError(path, "not JSON this reader accepts (nested too deeply)") from exc
    except UnicodeDecodeError as exc:
        raise RecordFileError(path, f"not JSON (not UTF-8 text: {exc.reason})") from exc
    except ValueError as exc:  # from the hooks above, or an integer of over 4300 digits
        raise RecordFileError(path, f"not JSON this reader accepts ({exc})") from exc


def read_json(path: Path, limit: int = MAX_JSON_BYTES) -> Any:
    """The JSON stored at `path` (read_json_bytes, then parse_json)."""
    return parse_json(read_json_bytes(path, limit), path)


def load_record(path: Path) -> EpisodeRecord:
    """The EpisodeRecord stored at `path` (pydantic's ValidationError if it does not fit)."""
    return EpisodeRecord.model_validate(read_json(path))
