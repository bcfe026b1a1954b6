"""What a queue page offers beyond its list: the Active/Deferred/Completed tabs, bulk
assign and status changes on the checked items (with a message for each item refused),
saved views of the filters, and "Next item" (the next active item that is mine or free)."""
from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from flask import Blueprint, abort, flash, redirect, request, url_for
from sqlalchemy import and_, func, or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import options
from admindesk.envs.ehr_web.forms_desk import BulkActionForm, SavedViewForm
from admindesk.envs.ehr_web.models_desk import SavedQueueView
from admindesk.envs.ehr_web.models_work import WorkItem, WorkItemEvent
from admindesk.envs.ehr_web.views.common import open_items_filter, staff_names
from admindesk.envs.ehr_web.vocab import QUEUES, Queue

queue_desk = Blueprint("queue_desk", __name__, url_prefix="/queues")
QUEUE_TABS = {"active": "Active", "deferred": "Deferred", "completed": "Completed"}
# Statuses that record more than a status (an appeal reference, a supplier): set per item, not in bulk.
ITEM_ONLY_STATUSES = {"Appeal Filed": "an appeal reference and date", "Sent to Supplier": "the supplier",
                      "Supplier Confirmed": "the supplier and confirmation #"}
# Query arguments a saved view keeps (the queue page's patient search, filters, tab and sort).
VIEW_ARGS = ("tab", "patient", "status", "payer", "assignee", "due_from", "due_to", "sort", "dir")
MAX_VIEWS = 20
PRIORITY_ORDER = {"Urgent": 0, "Routine": 1}


def queue_or_404(slug: str) -> Queue:
    if slug not in QUEUES:
        abort(404)
    return QUEUES[slug]


def current_tab() -> str:
    """The queue tab asked for (Active unless Deferred or Completed is named)."""
    tab = request.args.get("tab", "active")
    return tab if tab in QUEUE_TABS else "active"


def tab_filter(queue: Queue, tab: str):
    """Active: open items not deferred; Deferred: open items with a follow-up date after
    today; Completed: items in a closing status."""
    if tab == "completed":
        return WorkItem.status.in_(queue.closed_statuses)
    deferred = WorkItem.follow_up_date > clock.today()
    return and_(open_items_filter(queue), deferred if tab == "deferred" else or_(
        WorkItem.follow_up_date.is_(None), ~deferred))


def tab_counts(queue: Queue) -> dict[str, int]:
    return {tab: db().scalar(select(func.count()).select_from(WorkItem).where(
        WorkItem.queue == queue.name, tab_filter(queue, tab))) for tab in QUEUE_TABS}


def saved_views(queue: Queue) -> list[dict]:
    """The signed-in user's saved views of this queue, with their URLs."""
    views = db().scalars(select(SavedQueueView).where(SavedQueueView.username == current_username(),
                                                      SavedQueueView.queue == queue.name)
                         .order_by(SavedQueueView.name, SavedQueueView.id))
    base = url_for("queues.queue_list", slug=queue.slug)
    return [{"id": v.id, "name": v.name, "url": base + ("?" + v.query if v.query else "")} for v in views]


def bulk_form(queue: Queue, staff: dict[str, str]) -> BulkActionForm:
    form = BulkActionForm(formdata=None) if request.method == "GET" else BulkActionForm()
    form.assignee.choices = options([("", "- Unassigned -"), *staff.items()])
    form.status.choices = options([("", "- Choose status -"), *queue.statuses])
    return form


def _refusals(item: WorkItem | None, item_id: str, queue: Queue, form: BulkActionForm) -> str | None:
    """Why the bulk action cannot apply to this item, or None."""
    if item is None or item.queue != queue.name:
        return f"item {item_id} is not in the {queue.name} queue"
    if form.action.data == "assign":
        if item.status in queue.closed_statuses:
            return f"item {item.id} is closed ({item.status})"
        if (form.assignee.data or None) == item.assignee:
            return f"item {item.id} is already {'assigned to ' + staff_names()[item.assignee] if item.assignee else 'unassigned'}"
    elif item.status == form.status.data:
        return f"item {item.id} is already {item.status}"
    return None


@queue_desk.post("/<slug>/bulk")
def bulk_update(slug: str):
    """Assign or set the status of every checked item; refused items are named and left as they were."""
    queue = queue_or_404(slug)
    names = staff_names()
    form = bulk_form(queue, names)
    ids = request.form.getlist("item_ids")
    back = url_for("queues.queue_list", slug=slug) + _query_of(request.form.get("query", ""))
    describe(action="bulk_update_work_items", record_type="work_queue", record_id=queue.name, item_ids=ids)
    if not ids:
        flash("Select at least one item with the boxes in the first column.", "error")
        return redirect(back)
    # Only the field of the chosen action counts (the other select may be absent or anything).
    allowed = {"assign": ["", *names], "status": list(queue.statuses)}.get(form.action.data, [])
    if (form.assignee.data if form.action.data == "assign" else form.status.data) not in allowed:
        flash("Choose a valid bulk action and value.", "error")
        return redirect(back)
    if form.action.data == "status" and form.status.data in ITEM_ONLY_STATUSES:
        flash(f"{form.status.data} records {ITEM_ONLY_STATUSES[form.status.data]}: set it on each item.", "error")
        return redirect(back)
    items = {str(i.id): i for i in db().scalars(select(WorkItem).where(
        WorkItem.id.in_([int(i) for i in ids if i.isdigit() and len(i) < 10])))}
    refused, changed = [], []
    for item_id in dict.fromkeys(ids):
        item = items.get(item_id)
        reason = _refusals(item, item_id, queue, form)
        if reason:
            refused.append(reason)
            continue
        if form.action.data == "assign":
            item.assignee = form.assignee.data or None
            change = f"Assigned to {names[item.assignee]}" if item.assignee else "Unassigned"
        else:
            item.status = form.status.data
            change = f"Status: {item.status}"
        item.updated_at, item.updated_by = clock.now(), current_username()
        db().add(WorkItemEvent(work_item_id=item.id, at=clock.now(), username=current_username(),
                               change=change + " (bulk action)"))
        changed.append(str(item.id))
    db().commit()
    describe(changed=changed, refused=refused)
    if changed:
        flash(f"{len(changed)} item(s) updated: {', '.join(changed)}.", "success")
    if refused:
        flash("Not changed: " + "; ".join(refused) + ".", "error")
    return redirect(back)


def _query_of(text: str) -> str:
    """The kept view arguments of a query string, re-encoded ("?tab=deferred&payer=..."), or ""."""
    kept = [(key, value) for key, value in parse_qsl(text.lstrip("?")) if key in VIEW_ARGS and value]
    return "?" + urlencode(kept) if kept else ""


@queue_desk.post("/<slug>/views")
def save_view(slug: str):
    """Save the page's filters under a name for this user (names unique per queue)."""
    queue = queue_or_404(slug)
    form = SavedViewForm()
    query = _query_of(form.query.data or "")
    back = url_for("queues.queue_list", slug=slug) + query
    describe(action="save_queue_view", record_type="work_queue", record_id=queue.name)
    if not form.validate():
        flash(" ".join(form.name.errors) or "The view could not be saved.", "error")
        return redirect(back)
    mine = list(db().scalars(select(SavedQueueView).where(SavedQueueView.username == current_username())))
    if any(v.queue == queue.name and v.name.lower() == form.name.data.lower() for v in mine):
        flash(f"You already have a {queue.name} view named \u201c{form.name.data}\u201d.", "error")
    elif len(mine) >= MAX_VIEWS:
        flash(f"You can keep up to {MAX_VIEWS} saved views. Delete one first.", "error")
    else:
        db().add(SavedQueueView(username=current_username(), queue=queue.name, name=form.name.data,
                                query=query.lstrip("?"), created_at=clock.now()))
        db().commit()
        flash(f"View \u201c{form.name.data}\u201d saved.", "success")
    return redirect(back)


@queue_desk.post("/views/<int:view_id>/delete")
def delete_view(view_id: int):
    """Delete one of the user's saved views."""
    view = db().get(SavedQueueView, view_id)
    if view is None or view.username != current_username():
        abort(404)
    describe(action="delete_queue_view", record_type="work_queue", record_id=view.queue)
    slug = next(q.slug for q in QUEUES.values() if q.name == view.queue)
    db().delete(view)
    db().commit()
    flash(f"View \u201c{view.name}\u201d deleted.", "success")
    return redirect(url_for("queues.queue_list", slug=slug))


@queue_desk.get("/<slug>/next")
def next_item(slug: str):
    """Open the next active item that is mine or unassigned: urgent first, then by due date."""
    queue = queue_or_404(slug)
    after = request.args.get("after", "")
    candidates = list(db().scalars(select(WorkItem).where(
        WorkItem.queue == queue.name, tab_filter(queue, "active"),
        or_(WorkItem.assignee == current_username(), WorkItem.assignee.is_(None)),
        WorkItem.id != (int(after) if after.isdigit() and len(after) < 10 else -1))))
    if not candidates:
        flash(f"No more active {queue.name} items for you.", "info")
        return redirect(url_for("queues.queue_list", slug=slug))
    best = min(candidates, key=lambda i: (PRIORITY_ORDER.get(i.priority, 2), i.due_date, i.id))
    return redirect(url_for("queues.item_detail", item_id=best.id))
