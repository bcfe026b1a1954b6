"""Fixtures for harness tests: an Env over the tiny fixture app (fast, no real apps needed)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from admindesk.harness.env.services import Services

FIXTURE_APP = Path(__file__).with_name("fixture_app.py")
FIXTURE_APPS = ["ehr_web", "fax"]


def fixture_services(apps: list[str] = FIXTURE_APPS) -> Services:
    """Services that run the fixture app under the given app names."""
    return Services(apps=apps, launchers={name: [sys.executable, str(FIXTURE_APP), "--app", name]
                                          for name in apps})


def adhoc(path: str = "/", app: str = "ehr_web", login: bool = True, max_steps: int = 50) -> dict:
    """An ad-hoc task dict starting at `path` in `app`."""
    return {"id": "adhoc", "goal": "test", "start": {"app": app, "path": path, "login": login},
            "max_steps": max_steps}


@pytest.fixture(scope="module")
def fixture_env():
    """One Env (one Chromium, fixture apps) shared by a test module; reset per test."""
    from admindesk.harness.env.environment import Env

    with Env("both", services=fixture_services()) as env:
        yield env
