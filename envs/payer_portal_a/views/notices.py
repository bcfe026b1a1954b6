"""The day's interruptions of portal A, each off unless the task turns it on:
`whats_new` (a "What's new" modal on the first page viewed, until dismissed) and
`announcement` (a maintenance banner tile at the top of home and the request wizard)."""
from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, g, redirect, request, url_for
from sqlalchemy import select

from admindesk.envs.common import clock, interruptions
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.payer_portal_a.notice_models import NoticeDismissal

notices = Blueprint("notices", __name__, url_prefix="/notices")
WHATS_NEW = "whats_new"
SATURDAY = 5


def _dismissed(notice: str) -> bool:
    return db().scalar(select(NoticeDismissal.id).where(NoticeDismissal.notice == notice,
                                                        NoticeDismissal.username == current_username())) is not None


def maintenance_window() -> str:
    """The next Saturday night's maintenance window, as the banner states it."""
    today = clock.today()
    saturday = today + timedelta(days=(SATURDAY - today.weekday()) % 7 or 7)
    sunday = saturday + timedelta(days=1)
    return f"Saturday {saturday:%m/%d/%Y} 10:00 PM to Sunday {sunday:%m/%d/%Y} 2:00 AM ET"


@notices.app_context_processor
def notice_state():
    """Which interruptions this page shows (none before sign-in)."""
    if g.get("user") is None:
        return {}
    return {"show_whats_new": interruptions.enabled(WHATS_NEW) and not _dismissed(WHATS_NEW),
            "show_announcement": interruptions.enabled("announcement"),
            "maintenance_window": maintenance_window()}


@notices.post("/whats-new/dismiss")
def dismiss_whats_new():
    """Close the "What's new" modal for good; back to the page it covered."""
    if interruptions.enabled(WHATS_NEW) and not _dismissed(WHATS_NEW):
        db().add(NoticeDismissal(notice=WHATS_NEW, username=current_username(), dismissed_at=clock.now()))
        db().commit()
        describe(action="dismiss_notice", notice=WHATS_NEW)
    back = request.form.get("next", "")
    return redirect(back if back.startswith("/") and not back.startswith("//") else url_for("home.index"))
