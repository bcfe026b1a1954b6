"""The two ways an episode reaches the apps: `screens` (a browser, `Env`) and `api` (the apps'
FHIR and PAS APIs as tools, `ApiEnv`). Both give the verifiers the same `EpisodeRecord`."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from admindesk.harness.env.api_env import ApiEnv
from admindesk.harness.env.environment import Env

ChannelName = Literal["screens", "api"]
CHANNELS: tuple[str, ...] = ("screens", "api")


def make_env(channel: ChannelName, observation: str = "screenshot", *, record_dir: Path | None = None,
             tasks_dir: Path | None = None, frame_size: tuple[int, int] = (1280, 800)) -> Any:
    """The Env of `channel` (the observation and frame size are the screens' own)."""
    if channel == "api":
        return ApiEnv(record_dir=record_dir, tasks_dir=tasks_dir)
    if channel == "screens":
        return Env(observation, frame_size=frame_size, record_dir=record_dir, tasks_dir=tasks_dir)  # type: ignore[arg-type]
    raise ValueError(f"channel must be one of {', '.join(CHANNELS)}, not {channel!r}")
