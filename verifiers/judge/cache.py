"""Verdicts on disk, keyed by (judge, prompt hash): re-scoring a run costs nothing twice.

One JSON file per key holds the votes paid for so far, in order; a judge asked for N
votes reuses the first N and asks the model only for the rest. Files are written
atomically (a temporary file renamed over the old one) so parallel scorers never read
half a file. Only well-formed verdicts are stored: an error is asked again next time.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError


class CachedVote(BaseModel):
    """A stored vote: the model version that answered, its verdict and reason."""

    model: str
    verdict: Literal["pass", "fail"]
    reason: str


class CacheEntry(BaseModel):
    """What one cache file holds."""

    judge: str
    prompt_sha256: str
    votes: list[CachedVote]


class VerdictCache:
    """A folder of cached votes (created on first write)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def _path(self, judge: str, prompt_sha256: str) -> Path:
        key = hashlib.sha256(f"{judge}\0{prompt_sha256}".encode("utf-8")).hexdigest()
        return self.root / key[:2] / f"{key}.json"

    def votes(self, judge: str, prompt_sha256: str) -> list[CachedVote]:
        """The votes stored for this judge and prompt (none when absent or unreadable)."""
        path = self._path(judge, prompt_sha256)
        try:
            entry = CacheEntry.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return []
        except (OSError, ValidationError):
            # A damaged entry is only lost money: ask again and overwrite it.
            return []
        if entry.judge != judge or entry.prompt_sha256 != prompt_sha256:
            return []
        return entry.votes

    def store(self, judge: str, prompt_sha256: str, votes: list[CachedVote]) -> None:
        """Replace the stored votes for this judge and prompt."""
        path = self._path(judge, prompt_sha256)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = CacheEntry(judge=judge, prompt_sha256=prompt_sha256, votes=votes)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry.model_dump(), stream)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
