"""Agents without a model: `noop` (ends at once) and `random` (seeded random valid actions).

They bound the benchmark from below: the noop agent must pass no end-to-end task, and the
random agent shows what undirected clicking and typing achieves (and shakes the Env).
"""
from __future__ import annotations

import random
import re
import string

from admindesk.harness.agents.base import StepNote
from admindesk.harness.env.actions import Action, Done, parse_action
from admindesk.harness.env.observation import Observation
from admindesk.schema.task_model import Task

_REF = re.compile(r"\[ref=((?:f\d+)?e\d+)\]")
RANDOM_KEYS = ("Enter", "Tab", "Shift+Tab", "Escape", "Backspace", "ArrowDown", "ArrowUp", "Space")


class NoopAgent:
    """Does nothing: its first action is `done` without an answer."""

    name = "noop"

    def __init__(self) -> None:
        self.notes: list[StepNote] = []

    def reset(self, task_goal: str, task: Task | None = None) -> None:
        """Nothing to remember."""
        self.notes = []

    def act(self, observation: Observation) -> Action:
        """Always `done`."""
        action = Done(answer=None)
        self.notes.append(StepNote(step=observation.step, action=action.model_dump()))
        return action


class RandomAgent:
    """Random valid actions (pointer, scroll, typing, keys; element actions too in the
    element action space), reproducible from `seed`, then `done` after `max_steps`."""

    name = "random"

    def __init__(self, *, seed: int = 0, max_steps: int = 20, frame_size: tuple[int, int] = (1280, 800),
                 action_space: str = "coordinate") -> None:
        if int(max_steps) < 1:
            raise ValueError(f"max_steps must be at least 1, not {max_steps}")
        if action_space not in ("coordinate", "element"):
            raise ValueError(f"action_space must be coordinate or element, not {action_space!r}")
        self.seed, self.max_steps, self.action_space = int(seed), int(max_steps), action_space
        self.width, self.height = int(frame_size[0]), int(frame_size[1])
        self.notes: list[StepNote] = []
        self._rng = random.Random(self.seed)

    def reset(self, task_goal: str, task: Task | None = None) -> None:
        """Restart the random stream: the same seed gives the same episode."""
        self.notes, self._rng = [], random.Random(self.seed)

    def act(self, observation: Observation) -> Action:
        """A random action, or `done` once the budget is spent."""
        if len(self.notes) >= self.max_steps:
            action: Action = Done(answer=None)
        else:
            refs = _REF.findall(observation.axtree or "") if self.action_space == "element" else []
            action = parse_action(self._element_action(refs) if refs and self._rng.random() < 0.6
                                  else self._pointer_or_keyboard_action())
        self.notes.append(StepNote(step=observation.step, action=action.model_dump()))
        return action

    def _point(self) -> dict[str, int]:
        return {"x": self._rng.randrange(self.width), "y": self._rng.randrange(self.height)}

    def _text(self) -> str:
        return "".join(self._rng.choice(string.ascii_letters + string.digits + " ")
                       for _ in range(self._rng.randint(1, 12)))

    def _pointer_or_keyboard_action(self) -> dict:
        kind = self._rng.choice(("click", "click", "double_click", "right_click", "move",
                                 "scroll", "type", "key", "wait"))
        if kind in ("click", "double_click", "right_click", "move"):
            return {"type": kind, **self._point()}
        if kind == "scroll":
            return {"type": "scroll", **self._point(), "dy": self._rng.choice((-400, -100, 100, 400))}
        if kind == "type":
            return {"type": "type", "text": self._text()}
        if kind == "key":
            return {"type": "key", "keys": self._rng.choice(RANDOM_KEYS)}
        return {"type": "wait", "seconds": round(self._rng.uniform(0, 0.3), 2)}

    def _element_action(self, refs: list[str]) -> dict:
        element = self._rng.choice(refs)
        if self._rng.random() < 0.7:
            return {"type": "click_element", "element": element}
        return {"type": "fill_element", "element": element, "text": self._text()}
