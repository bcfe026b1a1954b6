"""Verdicts on disk: re-scoring a run costs nothing twice.

A key names who answered and what was asked: the provider, the endpoint it resolved to
(the base URL the SDK calls: two servers serving a model under one name are two judges),
the model name asked for, and the prompt's hash; `KEY_VERSION` is part of it, so files
of an older key layout are never read as this one's. One JSON file per key holds the
votes paid for so far, in order, each with the model version the endpoint said answered
it (the jury reuses only votes of the version the endpoint currently serves, once it
knows it). A judge asked for N votes reuses the first N and asks the model only for the
rest. Files are written atomically (a temporary file renamed over the old one) so
parallel scorers never read half a file. Only well-formed verdicts are stored: an error
is asked again next time.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

# Raised whenever the key's fields or their meaning change.
KEY_VERSION = 2


class CacheKey(BaseModel):
    """What a cached verdict answers: which provider, endpoint and model, asked which prompt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    endpoint: str
    model: str
    prompt_sha256: str

    def digest(self) -> str:
        """The file name's hash (the key version included)."""
        fields = [KEY_VERSION, self.provider, self.endpoint, self.model, self.prompt_sha256]
        return hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()


class CachedVote(BaseModel):
    """A stored vote: the model version that answered, its verdict and reason."""

    model: str
    verdict: Literal["pass", "fail"]
    reason: str


class CacheEntry(BaseModel):
    """What one cache file holds."""

    key_version: int
    key: CacheKey
    votes: list[CachedVote]


class VerdictCache:
    """A folder of cached votes (created on first write)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def _path(self, key: CacheKey) -> Path:
        digest = key.digest()
        return self.root / digest[:2] / f"{digest}.json"

    def votes(self, key: CacheKey) -> list[CachedVote]:
        """The votes stored under `key` (none when absent, unreadable or of another key layout)."""
        try:
            entry = CacheEntry.model_validate_json(self._path(key).read_bytes())
        except FileNotFoundError:
            return []
        except (OSError, ValidationError):
            # A damaged or older entry is only lost money: ask again and overwrite it.
            return []
        return entry.votes if entry.key_version == KEY_VERSION and entry.key == key else []

    def store(self, key: CacheKey, votes: list[CachedVote]) -> None:
        """Replace the votes stored under `key`."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = CacheEntry(key_version=KEY_VERSION, key=key, votes=votes)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry.model_dump(), stream)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
