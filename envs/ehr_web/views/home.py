"""Home dashboard (work-queue counts, recently viewed patients) and My Items."""
from __future__ import annotations

from flask import Blueprint, render_template
from sqlalchemy import func, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.kit_models import AuditEvent
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db

from ..models import Patient
from ..models_work import WorkItem
from ..vocab import QUEUE_BY_NAME, QUEUES
from .common import open_items_filter
from .queues import PER_PAGE, item_rows

home = Blueprint("home", __name__)
RECENT_PATIENTS = 8


def _queue_counts(queue, username: str) -> dict[str, int]:
    """The queue's open items: all, unassigned, mine, overdue and due today (one query)."""
    today = clock.today()
    counts = {"open": func.count(), "unassigned": func.count().filter(WorkItem.assignee.is_(None)),
              "mine": func.count().filter(WorkItem.assignee == username),
              "overdue": func.count().filter(WorkItem.due_date < today),
              "due_today": func.count().filter(WorkItem.due_date == today)}
    row = db().execute(select(*(count.label(name) for name, count in counts.items()))
                       .where(WorkItem.queue == queue.name, open_items_filter(queue))).one()
    return row._asdict()


def _recent_patients(username: str) -> list[Patient]:
    """Charts this user opened most recently, newest first (from the audit trail)."""
    rows = db().execute(select(AuditEvent.record_id, func.max(AuditEvent.id).label("last"))
                        .where(AuditEvent.username == username, AuditEvent.record_type == "patient",
                               AuditEvent.record_id.is_not(None))
                        .group_by(AuditEvent.record_id).order_by(func.max(AuditEvent.id).desc())
                        .limit(RECENT_PATIENTS)).all()
    found = {p.mrn: p for p in db().scalars(select(Patient).where(Patient.mrn.in_([row.record_id for row in rows])))}
    return [found[row.record_id] for row in rows if row.record_id in found]


@home.get("/")
def dashboard():
    """Work-queue counts with links into each queue, and recently viewed charts."""
    describe(action="view_dashboard")
    username = current_username()
    counts = {queue.slug: _queue_counts(queue, username) for queue in QUEUES.values()}
    return render_template("home.html", queues=QUEUES.values(), counts=counts,
                           recent=_recent_patients(username))


@home.get("/my-items")
def my_items():
    """Open and closed work items assigned to the signed-in user, across queues."""
    describe(action="view_my_items", record_type="work_queue", record_id="mine")
    stmt = item_rows().where(WorkItem.assignee == current_username())
    stmt = apply_sort(stmt, {"due": WorkItem.due_date, "queue": WorkItem.queue, "status": WorkItem.status,
                             "patient": Patient.last_name, "item": WorkItem.id}, "due")
    page = paginate(db(), stmt.order_by(WorkItem.id), per_page=PER_PAGE)
    return render_template("my_items.html", page=page, queue_by_name=QUEUE_BY_NAME)
