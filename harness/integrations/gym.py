"""A gymnasium wrapper for RL users: `AdminDeskGymEnv(task=...)`.

Observations are a Dict of the frame as an RGB array plus the URL, step and last error;
actions are JSON strings of the public action space (a Text space), e.g.
'{"type": "click", "x": 640, "y": 300}'. The reward is 0: the Env never scores; score the
`EpisodeRecord` (see `record()`) after termination.
"""
from __future__ import annotations

import io
import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from admindesk.harness.env.environment import Env
from admindesk.harness.env.observation import Observation
from admindesk.schema.task_model import Task
from admindesk.verifiers.records import EpisodeRecord

TEXT_CHARSET = string.printable
MAX_TEXT = 4096


class AdminDeskGymEnv(gym.Env):
    """gymnasium.Env over one AdminDesk `Env` and one task (override per reset via options)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(self, task: Task | str | dict, *, render_mode: str | None = "rgb_array",
                 **env_kwargs: Any) -> None:
        self.task = task
        self.render_mode = render_mode
        self.env = Env("screenshot", **env_kwargs)
        width, height = self.env.frame_size
        self.observation_space = spaces.Dict({
            "screenshot": spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8),
            "url": spaces.Text(MAX_TEXT, charset=TEXT_CHARSET),
            "last_action_error": spaces.Text(MAX_TEXT, min_length=0, charset=TEXT_CHARSET),
            "step": spaces.Discrete(10_000),
        })
        self.action_space = spaces.Text(MAX_TEXT, charset=TEXT_CHARSET)
        self._last_frame: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode of the task (or of `options["task"]`)."""
        super().reset(seed=seed)
        task = (options or {}).get("task", self.task)
        obs, info = self.env.reset(task, seed=seed)
        return self._convert(obs), info

    def step(self, action: str | dict):
        """Apply a JSON (or dict) action; reward is always 0 (score the record afterwards)."""
        obs, terminated, truncated, info = self.env.step(action)
        return self._convert(obs), 0.0, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        """The last frame as an RGB array."""
        return self._last_frame

    def record(self) -> EpisodeRecord:
        """The episode's record, for scoring."""
        return self.env.record()

    def close(self) -> None:
        """Close the underlying Env (apps and browser)."""
        self.env.close()

    def _convert(self, obs: Observation) -> dict[str, Any]:
        with Image.open(io.BytesIO(obs.screenshot)) as image:
            self._last_frame = np.asarray(image.convert("RGB"), dtype=np.uint8)
        clip = lambda text: "".join(c for c in text if c in TEXT_CHARSET)[:MAX_TEXT]
        return {"screenshot": self._last_frame, "url": clip(obs.url),
                "last_action_error": clip(obs.last_action_error or ""), "step": obs.step}
