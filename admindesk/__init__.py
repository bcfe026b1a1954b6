"""AdminDesk: a benchmark of computer-use agents on healthcare administrative work.

`Env` and `load_tasks` are imported on first use (PEP 562), so `import admindesk`
stays free of side effects and does not pull in Playwright.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Env", "load_tasks"]

_LAZY = {"Env": "admindesk.harness.env.environment", "load_tasks": "admindesk.schema.task_model"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'admindesk' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
