"""Blueprints of the fax server, one module per area, and the helpers they share."""
from __future__ import annotations

from flask import Blueprint, g
from sqlalchemy import func, select
from wtforms import SelectChoice

from admindesk.envs.common import interruptions
from admindesk.envs.common.state.kit_models import StaffUser
from admindesk.envs.common.web import db
from admindesk.envs.fax.forms import options
from admindesk.envs.fax.line_delivery import deliver_to_peers
from admindesk.envs.fax.models import FAILED, OPEN, UNREAD, ComposeDraft, FaxLine, InboundFax, OutboundFax
from admindesk.envs.fax.numbers import format_fax_number
from admindesk.envs.fax.transmission import PENDING, transmit, transmit_queued

# Jinja filters and globals of the fax server (registered once on the app).
helpers = Blueprint("fax_helpers", __name__)


def staff_names() -> dict[str, str]:
    """username -> display name, in a stable order."""
    return {u.username: u.display_name for u in db().scalars(select(StaffUser).order_by(StaffUser.username))}


def line_choices() -> list[SelectChoice]:
    """The health system's fax lines, as select choices (the default line first)."""
    lines = db().scalars(select(FaxLine).order_by(FaxLine.is_default.desc(), FaxLine.label))
    return options((line.number, f"{line.label} {format_fax_number(line.number)}") for line in lines)


def assignee_choices() -> list[SelectChoice]:
    """Who a received fax can be assigned to, after the shared inbox."""
    return options([("", "Unassigned (shared inbox)"), *staff_names().items()])


def send_pending(job: OutboundFax | None = None) -> None:
    """Dial pending jobs (all, or just `job`): a job just queued, or one retrying after a busy signal."""
    busy = interruptions.enabled("line_busy")
    if job is None:
        dialed = transmit_queued(db(), busy, deliver_to_peers)
    else:
        dialed = job.status in PENDING
        transmit(db(), job, busy, deliver_to_peers)
    if dialed:
        db().commit()


@helpers.app_template_filter("fax_number")
def fax_number_filter(digits: str | None) -> str:
    return format_fax_number(digits)


@helpers.app_context_processor
def folder_counts() -> dict:
    """Counts the folder tree shows beside its folders, and the server's lines (signed-in pages only)."""
    if g.get("user") is None:
        return {}
    session = db()

    def count(*conditions) -> int:
        return session.scalar(select(func.count()).where(*conditions))

    # Faxes are routed by the line (DID) they were dialed on: each line is a folder of the inbox.
    unread_by_line = dict(session.execute(select(InboundFax.to_number, func.count())
                                          .where(InboundFax.status == UNREAD).group_by(InboundFax.to_number)).all())
    counts = {"by_line": unread_by_line,
              "unread": count(InboundFax.status == UNREAD),
              "mine": count(InboundFax.assigned_to == g.user.username, InboundFax.is_filed.is_(False)),
              "pending": count(OutboundFax.status.in_(PENDING)),
              "failed": count(OutboundFax.status == FAILED),
              "drafts": count(ComposeDraft.owner == g.user.username, ComposeDraft.status == OPEN)}
    lines = list(session.scalars(select(FaxLine).order_by(FaxLine.is_default.desc(), FaxLine.label)))
    return {"folder_counts": counts, "fax_lines": lines}
