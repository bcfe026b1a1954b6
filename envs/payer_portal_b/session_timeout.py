"""The server-driven session-timeout warning.

Rule: every successful-looking page view (an authenticated GET of a portal page, not a
file download) adds one to the user's `page_views_since_ack` in `session_activity`.
When the count reaches WARNING_AFTER_PAGE_VIEWS (10), each page renders the modal
"Session timeout warning" dialog over its content until the user clicks
"Stay signed in", which POSTs to /session/keep-alive and sets the count back to 0.
The count lives in the database, so it is deterministic and reset with the app.
"""
from __future__ import annotations

from flask import Blueprint, g, redirect, request, url_for
from sqlalchemy import update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_b.models import SessionActivity

WARNING_AFTER_PAGE_VIEWS = 10
# File downloads are not page views: the browser stays on the page it was on.
NOT_PAGE_VIEWS = {"policies.fax_form", "precert.attachment", "appeals.attachment", "dme.attachment",
                  "correspondence.download"}

session_bp = Blueprint("session", __name__)


def _activity(name: str) -> SessionActivity:
    _ensure_activity_row(name)
    return db().get(SessionActivity, name)


def _ensure_activity_row(name: str) -> None:
    # Parallel first page views would both insert the row: let SQLite keep one.
    db().execute(sqlite_insert(SessionActivity)
                 .values(username=name, page_views_since_ack=0, warnings_acknowledged=0)
                 .on_conflict_do_nothing(index_elements=["username"]))


def is_page_view(user) -> bool:
    """An authenticated GET of a portal page (not a download, the bench API or a static file)."""
    endpoint = request.endpoint or ""
    return not (user is None or request.method != "GET" or not endpoint or endpoint in NOT_PAGE_VIEWS
                or endpoint.startswith(("bench.", "auth.")) or endpoint.endswith("static"))


def count_page_view() -> None:
    """before_request hook (after the login guard): count the view, decide on the warning."""
    g.show_timeout_warning = False
    user = g.get("user")
    if not is_page_view(user):
        return
    _ensure_activity_row(user.username)
    # One atomic increment: parallel page views each count (no lost update).
    views = db().execute(update(SessionActivity).where(SessionActivity.username == user.username)
                         .values(page_views_since_ack=SessionActivity.page_views_since_ack + 1)
                         .returning(SessionActivity.page_views_since_ack)).scalar_one()
    g.show_timeout_warning = views >= WARNING_AFTER_PAGE_VIEWS
    db().commit()


def safe_return(target: str | None) -> str:
    """`target` when it is a path on this site, else the home page (no open redirect)."""
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return url_for("home.index")


@session_bp.post("/session/keep-alive")
def keep_alive():
    """"Stay signed in": dismiss the warning and start counting again."""
    row = _activity(g.user.username)
    row.page_views_since_ack = 0
    row.warnings_acknowledged += 1
    row.last_acknowledged_at = clock.now()
    db().commit()
    describe(action="stay_signed_in", record_type="session", record_id=g.user.username)
    return redirect(safe_return(request.form.get("next")))
