"""The EHR: patient charts, orders with their authorizations, documents, billing,
and the Prior Auth, Denials and DME work queues a back-office coordinator works.

    python -m admindesk.envs.ehr_web --port P --bench-port B --data-dir D --token T
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig, AppSpec, create_app as create_kit_app
from admindesk.envs.ehr_web.fhir import fhir_api
from admindesk.envs.ehr_web.models import Base
from admindesk.envs.ehr_web.seeding.seed import seed
from admindesk.envs.ehr_web.views import BLUEPRINTS

# The kit's messages in this vendor's words.
KIT_MESSAGES = {
    "login_missing": "Enter your user ID and password to log in.",
    "login_incorrect": "Login failed. The user ID or password is not valid.",
    "form_expired_title": "Activity timed out",
    "form_expired": "This activity timed out before it was saved. Refresh the activity and enter it again.",
    "not_found_title": "Record not available",
    "not_found": "The requested record could not be found, or it is not available to your security class.",
    "double_submit": "Duplicate action blocked: this was already filed a moment ago.",
}

SPEC = AppSpec(name="ehr_web", title="SVH Chart", package_dir=Path(__file__).resolve().parent, base=Base,
               blueprints=BLUEPRINTS, seed=seed, home_endpoint="home.dashboard", messages=KIT_MESSAGES,
               api_blueprints=(fhir_api,))


def create_app(config: AppConfig) -> Flask:
    """Build the EHR on a fresh copy of its template database."""
    return create_kit_app(SPEC, config)
