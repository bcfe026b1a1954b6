"""The "What's new at Keystone" interruption: a modal notice over the first page of an episode.

Off unless the episode's task turns on `whats_new` for this portal. Then the first page
view (an authenticated GET of a portal page) opens the modal, and every page view shows it
again until the user clicks "Got it", which POSTs to /whats-new/dismiss. The notice is a
row in `whats_new_notices` (first shown, times shown, dismissed), so a check can read it.
"""
from __future__ import annotations

from flask import Blueprint, g, redirect, request
from sqlalchemy import update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from admindesk.envs.common import clock, interruptions
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import db
from admindesk.envs.payer_portal_b.session_timeout import is_page_view, safe_return
from admindesk.envs.payer_portal_b.workflow_models import WhatsNewNotice

INTERRUPTION = "whats_new"
whats_new_bp = Blueprint("whats_new", __name__)


def show_whats_new() -> None:
    """before_request hook (after the login guard): decide whether this page carries the notice."""
    g.show_whats_new = False
    user = g.get("user")
    if not is_page_view(user) or not interruptions.enabled(INTERRUPTION):
        return
    session = db()
    # Parallel first page views would both insert the row: let SQLite keep one.
    session.execute(sqlite_insert(WhatsNewNotice)
                    .values(username=user.username, first_shown_at=clock.now(), times_shown=0)
                    .on_conflict_do_nothing(index_elements=["username"]))
    shown = session.execute(update(WhatsNewNotice)
                            .where(WhatsNewNotice.username == user.username, WhatsNewNotice.dismissed_at.is_(None))
                            .values(times_shown=WhatsNewNotice.times_shown + 1)
                            .returning(WhatsNewNotice.times_shown)).scalar_one_or_none()
    g.show_whats_new = shown is not None
    session.commit()


@whats_new_bp.post("/whats-new/dismiss")
def dismiss():
    """"Got it": the notice is not shown again in this episode."""
    session = db()
    notice = session.get(WhatsNewNotice, g.user.username)
    if notice is not None and notice.dismissed_at is None:
        notice.dismissed_at = clock.now()
        session.commit()
        describe(action="dismiss_whats_new", record_type="notice", record_id=g.user.username)
    return redirect(safe_return(request.form.get("next")))
