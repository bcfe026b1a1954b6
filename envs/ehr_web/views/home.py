"""Home dashboard (queue counts, aging, items due, recent activity, messages, recently
viewed patients) and My Items; the app's phone-number filter."""
from __future__ import annotations

from flask import Blueprint, render_template
from sqlalchemy import func, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.state.kit_models import AuditEvent
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.formats import phone
from admindesk.envs.ehr_web.models import Patient
from admindesk.envs.ehr_web.models_desk import InBasketMessage
from admindesk.envs.ehr_web.models_work import WorkItem, WorkItemEvent
from admindesk.envs.ehr_web.views.common import display_name, open_in_any_queue, staff_names
from admindesk.envs.ehr_web.views.inbasket import queue_counts, visible_to
from admindesk.envs.ehr_web.views.queues import PER_PAGE, item_rows
from admindesk.envs.ehr_web.vocab import QUEUE_BY_NAME, QUEUES

home = Blueprint("home", __name__)
RECENT_PATIENTS = 8
RECENT_ROWS = 8
# (label, first day, last day) of the aging buckets, by days since an item entered its queue.
AGING_BUCKETS = (("0-7 days", 0, 7), ("8-14 days", 8, 14), ("15-30 days", 15, 30), ("31-60 days", 31, 60),
                 ("Over 60 days", 61, 100_000))

home.add_app_template_filter(phone, "phone")
home.add_app_template_filter(display_name, "display_name")


def _aging(username: str) -> list[tuple[str, int, int]]:
    """Open items by days in queue: (bucket label, all open items, mine)."""
    today = clock.today()
    ages = [((today - created).days, who)
            for created, who in db().execute(select(WorkItem.created_on, WorkItem.assignee).where(open_in_any_queue()))]
    return [(label, sum(1 for age, _who in ages if low <= age <= high),
             sum(1 for age, who in ages if low <= age <= high and who == username))
            for label, low, high in AGING_BUCKETS]


def _recent_activity(username: str) -> list[tuple[WorkItemEvent, WorkItem]]:
    """The latest changes on work items assigned to this user or made by them."""
    return list(db().execute(select(WorkItemEvent, WorkItem).join(WorkItem, WorkItem.id == WorkItemEvent.work_item_id)
                             .where((WorkItem.assignee == username) | (WorkItemEvent.username == username))
                             .order_by(WorkItemEvent.at.desc(), WorkItemEvent.id.desc()).limit(RECENT_ROWS)).all())


def _latest_messages(username: str) -> list[InBasketMessage]:
    return list(db().scalars(select(InBasketMessage).where(visible_to(username), InBasketMessage.status != "Done")
                             .order_by(InBasketMessage.received_at.desc(), InBasketMessage.id.desc())
                             .limit(RECENT_ROWS)))


def _due_soon(username: str) -> list[WorkItem]:
    return list(db().scalars(item_rows().where(WorkItem.assignee == username, open_in_any_queue())
                             .order_by(WorkItem.due_date, WorkItem.id).limit(RECENT_ROWS)))


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
    counts = {queue.slug: queue_counts(queue, username) for queue in QUEUES.values()}
    return render_template("home.html", queues=QUEUES.values(), counts=counts, recent=_recent_patients(username),
                           aging=_aging(username), activity=_recent_activity(username), staff=staff_names(),
                           messages=_latest_messages(username), due_soon=_due_soon(username))


@home.get("/my-items")
def my_items():
    """Open and closed work items assigned to the signed-in user, across queues."""
    describe(action="view_my_items", record_type="work_queue", record_id="mine")
    stmt = item_rows().where(WorkItem.assignee == current_username())
    stmt = apply_sort(stmt, {"due": WorkItem.due_date, "queue": WorkItem.queue, "status": WorkItem.status,
                             "patient": Patient.last_name, "item": WorkItem.id}, "due")
    page = paginate(db(), stmt.order_by(WorkItem.id), per_page=PER_PAGE)
    return render_template("my_items.html", page=page, queue_by_name=QUEUE_BY_NAME)
