"""Trajectory recording: one JSON line per step plus the step's screenshot, on disk."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class TrajectoryWriter:
    """Writes `trajectory.jsonl` and `step-NNN.png` files into an episode folder."""

    def __init__(self, folder: Path, *, append: bool = False) -> None:
        """`append`: go on with the folder's trajectory file (an episode taking up another's)."""
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lines = open(self.folder / "trajectory.jsonl", "a" if append else "w", encoding="utf-8")

    def write(self, entry: dict[str, Any], screenshot: bytes | None) -> None:
        """Append one step (`entry["step"]` names the screenshot file)."""
        if screenshot is not None:
            name = f"step-{entry['step']:03d}.png"
            (self.folder / name).write_bytes(screenshot)
            entry = {**entry, "screenshot": name}
        self._lines.write(json.dumps(entry, default=str) + "\n")
        self._lines.flush()  # a crashed run still leaves every finished step on disk

    def close(self) -> None:
        """Close the trajectory file (idempotent)."""
        if not self._lines.closed:
            self._lines.close()
