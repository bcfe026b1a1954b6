"""The fax server: a hospital's e-fax web app (inbox, compose, outbox, directory)."""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig, AppSpec
from admindesk.envs.common.factory import create_app as create_kit_app

from .models import Base
from .seed import seed
from .views import compose, directory, helpers, inbox, outbox

SPEC = AppSpec(
    name="fax",
    title="Tessera Fax Server",
    package_dir=Path(__file__).resolve().parent,
    base=Base,
    blueprints=(helpers, inbox.bp, compose.bp, outbox.bp, directory.bp),
    seed=seed,
    home_endpoint="inbox.index",
)


def create_app(config: AppConfig) -> Flask:
    """Build the fax server on the kit."""
    return create_kit_app(SPEC, config)
