"""The In Basket (payer correspondence and staff messages) and the desk counts every
page's side bar shows: open items per queue, unread messages per folder, saved views."""
from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from sqlalchemy import func, or_, select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.pagination import paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.ehr_web.models_desk import INBASKET_FOLDERS, InBasketMessage, SavedQueueView
from admindesk.envs.ehr_web.models_work import WorkItem
from admindesk.envs.ehr_web.views.common import open_items_filter
from admindesk.envs.ehr_web.vocab import QUEUES

inbasket = Blueprint("inbasket", __name__, url_prefix="/in-basket")
PER_PAGE = 25
# List tabs: which message statuses each shows.
INBOX_TABS = {"open": ("Unread", "Read"), "done": ("Done",)}


def queue_counts(queue, username: str) -> dict[str, int]:
    """The queue's open items: all, unassigned, mine, overdue and due today (one query)."""
    today = clock.today()
    counts = {"open": func.count(), "unassigned": func.count().filter(WorkItem.assignee.is_(None)),
              "mine": func.count().filter(WorkItem.assignee == username),
              "overdue": func.count().filter(WorkItem.due_date < today),
              "due_today": func.count().filter(WorkItem.due_date == today)}
    row = db().execute(select(*(count.label(name) for name, count in counts.items()))
                       .where(WorkItem.queue == queue.name, open_items_filter(queue))).one()
    return row._asdict()


def visible_to(username: str):
    """Messages of the user's own in-basket and of the shared pool."""
    return or_(InBasketMessage.recipient == username, InBasketMessage.recipient.is_(None))


@inbasket.app_context_processor
def desk_context():
    """Side-bar counts for the signed-in user (nothing before sign-in)."""
    if g.get("user") is None:
        return {"desk": {"queues": {}, "folders": [], "views": [], "unread": 0}}
    username = g.user.username
    unread = dict(db().execute(select(InBasketMessage.folder, func.count())
                               .where(visible_to(username), InBasketMessage.status == "Unread")
                               .group_by(InBasketMessage.folder)).all())
    views = db().scalars(select(SavedQueueView).where(SavedQueueView.username == username)
                         .order_by(SavedQueueView.name, SavedQueueView.id))
    slugs = {queue.name: queue.slug for queue in QUEUES.values()}
    return {"desk": {
        "queues": {queue.slug: queue_counts(queue, username) for queue in QUEUES.values()},
        "folders": [(folder, unread.get(folder, 0)) for folder in INBASKET_FOLDERS],
        "unread": sum(unread.values()),
        "views": [{"name": v.name, "url": url_for("queues.queue_list", slug=slugs[v.queue]) + "?" + v.query}
                  for v in views]}}


@inbasket.get("/")
def inbox():
    """Messages by folder and tab (To do: unread and read; Done), newest first."""
    folder = request.args.get("folder", INBASKET_FOLDERS[0])
    folder = folder if folder in INBASKET_FOLDERS else INBASKET_FOLDERS[0]
    tab = request.args.get("tab", "open")
    tab = tab if tab in INBOX_TABS else "open"
    describe(record_type="inbasket", record_id=folder, tab=tab)
    stmt = (select(InBasketMessage).where(InBasketMessage.folder == folder, visible_to(current_username()),
                                          InBasketMessage.status.in_(INBOX_TABS[tab]))
            .order_by(InBasketMessage.received_at.desc(), InBasketMessage.id.desc()))
    counts = dict(db().execute(select(InBasketMessage.status, func.count())
                               .where(InBasketMessage.folder == folder, visible_to(current_username()))
                               .group_by(InBasketMessage.status)).all())
    return render_template("inbasket.html", folder=folder, folders=INBASKET_FOLDERS, tab=tab, counts=counts,
                           page=paginate(db(), stmt, per_page=PER_PAGE))


def _message_or_404(message_id: int) -> InBasketMessage:
    message = get_or_404(InBasketMessage, message_id)
    if message.recipient not in (None, current_username()):
        abort(404)  # another user's message: the in-basket is personal
    return message


@inbasket.get("/<int:message_id>")
def message_detail(message_id: int):
    """One message; opening an unread message marks it read."""
    message = _message_or_404(message_id)
    describe(record_type="inbasket_message", record_id=str(message.id), mrn=message.mrn)
    if message.status == "Unread":
        message.status = "Read"
        db().commit()
    return render_template("inbasket_message.html", message=message)


@inbasket.post("/done")
def mark_done():
    """Mark the selected messages Done; says which could not be (already done, not yours)."""
    ids = [value for value in request.form.getlist("message_ids") if value.isdigit()]
    folder = request.form.get("folder", INBASKET_FOLDERS[0])
    back = url_for("inbasket.inbox", folder=folder if folder in INBASKET_FOLDERS else INBASKET_FOLDERS[0])
    describe(action="inbasket_done", message_ids=ids)
    if not ids:
        flash("Select at least one message to mark done.", "error")
        return redirect(back)
    found = {m.id: m for m in db().scalars(select(InBasketMessage).where(InBasketMessage.id.in_([int(i) for i in ids]),
                                                                         visible_to(current_username())))}
    refused = [f"message {i} is not in your In Basket" for i in ids if int(i) not in found]
    refused += [f"message {m.id} is already done" for m in found.values() if m.status == "Done"]
    done = [m for m in found.values() if m.status != "Done"]
    for message in done:
        message.status, message.done_at, message.done_by = "Done", clock.now(), current_username()
    db().commit()
    if done:
        flash(f"{len(done)} message(s) marked done.", "success")
    if refused:
        flash("Not changed: " + "; ".join(refused) + ".", "error")
    return redirect(back)
