"""The Env and its browser: app services, Chromium and its sandbox, the drawn chrome,
actions, observations, recording and fault injection.

`Env` is imported on first use (PEP 562), so `from admindesk.harness.env import Env` keeps
working without every module of the package importing Playwright.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Env"]


def __getattr__(name: str) -> Any:
    if name == "Env":
        from admindesk.harness.env.environment import Env

        return Env
    raise AttributeError(f"module 'admindesk.harness.env' has no attribute {name!r}")
