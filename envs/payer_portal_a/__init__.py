"""Payer portal A: a multi-payer clearinghouse-style provider portal.

Eligibility & benefits, auth requirement lookup, a prior-auth submission wizard with
policy-driven determinations, auth status, claim status with remittance, appeals and a
correspondence inbox, for the world's payers served through portal "a".
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig, AppSpec, create_app as create_kit_app
from admindesk.envs.payer_portal_a import lifecycle_models, notice_models  # noqa: F401  (their tables join Base's metadata before the template build)
from admindesk.envs.payer_portal_a.fax_intake import receive_fax
from admindesk.envs.payer_portal_a.models import Base
from admindesk.envs.payer_portal_a.seeding.seed import seed
from admindesk.envs.payer_portal_a.views import BLUEPRINTS

# The kit's messages in this vendor's words.
KIT_MESSAGES = {
    "login_missing": "Please enter your User ID and password.",
    "login_incorrect": "We couldn't sign you in. Check your User ID and password and try again.",
    "form_expired_title": "Your session expired",
    "form_expired": "For your security this page expired. Reload it and submit your information again.",
    "not_found_title": "We can't find that page",
    "not_found": "The page or transaction you requested isn't available. Use the menu to find what you need.",
    "double_submit": "We already received this submission a moment ago, so we didn't send it again.",
}

SPEC = AppSpec(
    name="payer_portal_a",
    title="ProviderLink Payer Portal",
    package_dir=Path(__file__).resolve().parent,
    base=Base,
    blueprints=BLUEPRINTS,
    seed=seed,
    home_endpoint="home.index",
    date_format="%m/%d/%Y",
    messages=KIT_MESSAGES,
    fax_receiver=receive_fax,
)


def create_app(config: AppConfig) -> Flask:
    """Build portal A on the kit (database from its template, bench API, audit, login)."""
    return create_kit_app(SPEC, config)
