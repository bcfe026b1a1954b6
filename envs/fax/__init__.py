"""The fax server: a hospital's e-fax web app (inbox, compose, outbox, directory)."""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig, AppSpec, create_app as create_kit_app
from admindesk.envs.fax.models import Base
from admindesk.envs.fax.seed import seed
from admindesk.envs.fax.views import compose, directory, helpers, inbox, outbox

# The kit's messages in this vendor's words.
KIT_MESSAGES = {
    "login_missing": "Log-on failed: enter a user name and password.",
    "login_incorrect": "Log-on failed: unknown user or bad password.",
    "form_expired_title": "Form out of date",
    "form_expired": "Not done: this form is out of date. Reload it and submit again.",
    "not_found_title": "Item not found",
    "not_found": "Not done: the fax, job or phonebook entry does not exist.",
    "double_submit": "Not done again: the same request was completed a moment ago.",
}

SPEC = AppSpec(
    name="fax",
    title="Tessera Fax Server",
    package_dir=Path(__file__).resolve().parent,
    base=Base,
    blueprints=(helpers, inbox.bp, compose.bp, outbox.bp, directory.bp),
    seed=seed,
    home_endpoint="inbox.index",
    messages=KIT_MESSAGES,
)


def create_app(config: AppConfig) -> Flask:
    """Build the fax server on the kit."""
    return create_kit_app(SPEC, config)
