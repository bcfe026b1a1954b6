"""Payer portal B: Keystone Mutual Health's own provider portal (a different vendor's UI).

Left navigation, burgundy and gold, DD-MMM-YYYY dates, "Subscriber ID", "Rendering
Provider" and "Precertification" vocabulary; one long request form instead of a wizard.
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from admindesk.envs.common.factory import AppConfig, AppSpec, create_app as create_kit_app
from admindesk.envs.payer_portal_b import claim_models, referral_models, workflow_models  # noqa: F401  (register their tables on Base)
from admindesk.envs.payer_portal_b.fax_intake import receive_fax
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT, format_phone, iso_portal_date
from admindesk.envs.payer_portal_b.inpatient import models as inpatient_models  # noqa: F401  (its tables too)
from admindesk.envs.payer_portal_b.models import Base
from admindesk.envs.payer_portal_b.pas import pas
from admindesk.envs.payer_portal_b.seeding.seed import seed
from admindesk.envs.payer_portal_b.session_timeout import count_page_view, session_bp
from admindesk.envs.payer_portal_b.views import BLUEPRINTS
from admindesk.envs.payer_portal_b.whats_new import show_whats_new, whats_new_bp

# The kit's messages in this vendor's words.
KIT_MESSAGES = {
    "login_missing": "User ID and Password are required.",
    "login_incorrect": "Invalid credentials. Please verify your User ID and Password.",
    "form_expired_title": "Request could not be processed",
    "form_expired": "The request could not be processed because the page is out of date. Please reload and resubmit.",
    "not_found_title": "Information unavailable",
    "not_found": "The requested information is not available. Please verify the reference number and try again.",
    "double_submit": "Duplicate submission detected. Your request was received once and has not been resubmitted.",
}

SPEC = AppSpec(
    name="payer_portal_b",
    title="Keystone Mutual Provider Connect",
    package_dir=Path(__file__).resolve().parent,
    base=Base,
    blueprints=(*BLUEPRINTS, session_bp, whats_new_bp),
    seed=seed,
    home_endpoint="home.index",
    date_format=DATE_FORMAT,
    messages=KIT_MESSAGES,
    fax_receiver=receive_fax,
    api_blueprints=(pas,),
)


def create_app(config: AppConfig) -> Flask:
    """Portal B on the kit, plus the page-view hooks behind the session-timeout warning and
    the "What's new" notice."""
    app = create_kit_app(SPEC, config)
    # Registered after the kit's login guard, so g.user is known when they run.
    app.before_request(count_page_view)
    app.before_request(show_whats_new)
    app.jinja_env.filters["phone"] = format_phone
    app.jinja_env.filters["iso_portal_date"] = iso_portal_date
    return app
