"""Work queues (Prior Auth, Denials, DME): filtered lists, item detail, assignment,
status/disposition changes with follow-up dates, and notes on the item."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from sqlalchemy import select
from sqlalchemy.orm import contains_eager, selectinload

from admindesk.envs.common import clock
from admindesk.envs.common.audit import also_viewed, describe
from admindesk.envs.common.pagination import apply_sort, paginate
from admindesk.envs.common.web import current_username, db, get_or_404
from admindesk.envs.ehr_web.forms import (
    AssignForm,
    NoteForm,
    QueueFilterForm,
    WorkItemUpdateForm,
    options,
    patient_lookup,
)
from admindesk.envs.ehr_web.forms_desk import SavedViewForm
from admindesk.envs.ehr_web.models import Patient, Payer
from admindesk.envs.ehr_web.models_work import Claim, ClaimLine, WorkItem, WorkItemEvent
from admindesk.envs.ehr_web.notes import add_note, notes_for
from admindesk.envs.ehr_web.views.billing import code_descriptions, denials
from admindesk.envs.ehr_web.views.common import staff_names
from admindesk.envs.ehr_web.views.patients import patient_filter
from admindesk.envs.ehr_web.views.queue_desk import (
    QUEUE_TABS,
    bulk_form,
    current_tab,
    queue_or_404,
    saved_views,
    tab_counts,
    tab_filter,
)
from admindesk.envs.ehr_web.vocab import QUEUE_BY_NAME, QUEUES, REVIEW_REASONS, Queue
from admindesk.envs.ehr_web.work_items import log_change, save_update, update_form

queues = Blueprint("queues", __name__, url_prefix="/queues")
PER_PAGE = 25
SORT_COLUMNS = {"age": WorkItem.created_on, "due": WorkItem.due_date, "item": WorkItem.id, "status": WorkItem.status,
                "priority": WorkItem.priority, "patient": Patient.last_name, "payer": Payer.name,
                "assignee": WorkItem.assignee, "follow_up": WorkItem.follow_up_date}


@queues.app_context_processor
def work_queues():
    """The queues every page's navigation links to."""
    return {"work_queues": QUEUES.values()}


def item_rows():
    """Work items joined to what a list row shows and sorts by, loaded with the query rather than per row."""
    return (select(WorkItem).join(Patient, WorkItem.patient).outerjoin(Payer, WorkItem.payer)
            .options(contains_eager(WorkItem.patient), contains_eager(WorkItem.payer), selectinload(WorkItem.order),
                     selectinload(WorkItem.claim).options(
                         selectinload(Claim.lines).selectinload(ClaimLine.adjustments),
                         selectinload(Claim.remittance))))


def _filter_form(queue: Queue, staff: dict[str, str]) -> QueueFilterForm:
    form = QueueFilterForm(request.args)
    payers = [(p.id, p.name) for p in db().scalars(select(Payer).order_by(Payer.name))]
    form.status.choices = options([("", "All in this tab"), ("all", "All statuses, every tab"), *queue.statuses])
    form.payer.choices = options([("", "All payers"), *payers])
    form.assignee.choices = options([("", "Anyone"), ("me", "Assigned to me"), ("unassigned", "Unassigned"),
                                     *staff.items()])
    return form


def _filtered(queue: Queue, form: QueueFilterForm):
    stmt = item_rows().where(WorkItem.queue == queue.name)
    status = form.status.data or ""
    # A chosen status wins over the tab, so "Denied" shows denied items wherever they sit.
    stmt = stmt.where(tab_filter(queue, current_tab())) if status == "" else (
        stmt if status == "all" else stmt.where(WorkItem.status == status))
    if form.patient.data:
        stmt = stmt.where(patient_filter(*patient_lookup(form.patient.data)))
    if form.payer.data:
        stmt = stmt.where(WorkItem.payer_id == form.payer.data)
    assignee = form.assignee.data or ""
    if assignee == "me":
        stmt = stmt.where(WorkItem.assignee == current_username())
    elif assignee == "unassigned":
        stmt = stmt.where(WorkItem.assignee.is_(None))
    elif assignee:
        stmt = stmt.where(WorkItem.assignee == assignee)
    if form.due_from.data:
        stmt = stmt.where(WorkItem.due_date >= form.due_from.data)
    if form.due_to.data:
        stmt = stmt.where(WorkItem.due_date <= form.due_to.data)
    return apply_sort(stmt, SORT_COLUMNS, "due").order_by(WorkItem.id)


@queues.get("/<slug>")
def queue_list(slug: str):
    """The queue: a patient search and filters, sortable columns, 25 items a page."""
    queue = queue_or_404(slug)
    staff = staff_names()
    form = _filter_form(queue, staff)
    valid = form.validate()
    describe(record_type="work_queue", record_id=queue.name,
             **({"filters": {k: v for k, v in request.args.items() if v and k not in ("page",)}} if request.args else {}))
    page = paginate(db(), _filtered(queue, form), per_page=PER_PAGE) if valid else None
    denied = {item.id: denials(item.claim) for item in page.items if item.claim} if page else {}
    return render_template("queue_list.html", queue=queue, form=form, page=page, staff=staff, denied=denied,
                           today=clock.today(), tabs=QUEUE_TABS, tab=current_tab(), tab_counts=tab_counts(queue),
                           bulk=bulk_form(queue, staff), view_form=SavedViewForm(formdata=None),
                           my_views=saved_views(queue)), (200 if valid else 422)


def _filled_update_form(item: WorkItem) -> WorkItemUpdateForm:
    return update_form(item, formdata=None, status=item.status, follow_up_date=item.follow_up_date,
                       appeal_reference=item.appeal_reference, appeal_submitted_on=item.appeal_submitted_on,
                       supplier_id=item.supplier_id or "", supplier_confirmation=item.supplier_confirmation)


def _assign_form(item: WorkItem, bound: bool) -> AssignForm:
    form = AssignForm() if bound else AssignForm(formdata=None, assignee=item.assignee or "")
    form.assignee.choices = options([("", "- Unassigned -")] + list(staff_names().items()))
    return form


def _render_item(item: WorkItem, status: int = 200, update_form=None, assign_form=None, note_form=None,
                 open_dialog: str | None = None):
    context = {}
    if item.claim is not None:
        context["carc"], context["rarc"] = code_descriptions(item.claim)
        context["denials"] = denials(item.claim)
    events = list(db().scalars(select(WorkItemEvent).where(WorkItemEvent.work_item_id == item.id)
                               .order_by(WorkItemEvent.at.desc(), WorkItemEvent.id.desc())))
    return render_template(
        "work_item.html", item=item, queue=QUEUE_BY_NAME[item.queue], events=events, staff=staff_names(),
        notes=notes_for("work_item", str(item.id)), today=clock.today(), open_dialog=open_dialog,
        update_form=update_form or _filled_update_form(item),
        assign_form=assign_form or _assign_form(item, bound=False),
        note_form=note_form or NoteForm(formdata=None), review_reasons=REVIEW_REASONS, **context), status


@queues.get("/items/<int:item_id>")
def item_detail(item_id: int):
    """One item: what it concerns, its status and history, notes, and the actions."""
    item = get_or_404(WorkItem, item_id)
    describe(record_type="work_item", record_id=str(item.id), queue=item.queue, mrn=item.mrn)
    if item.claim is not None:
        # The item's claim panel shows the claim (its number, dates, amounts and denied lines): the
        # access log counts the claim as seen, as it does when its own page is opened.
        also_viewed(record_type="claim", record_id=item.claim.claim_number, shown_on="work_item")
    return _render_item(item)


@queues.post("/items/<int:item_id>/assign")
def assign(item_id: int):
    """Assign the item to a staff member, to oneself, or unassign it."""
    item = get_or_404(WorkItem, item_id)
    describe(action="assign_work_item", record_type="work_item", record_id=str(item.id), queue=item.queue)
    form = _assign_form(item, bound=True)
    if not form.validate():
        return _render_item(item, 422, assign_form=form, open_dialog="assign-dialog")
    names = staff_names()
    new = form.assignee.data or None
    if new != item.assignee:
        log_change(item, f"Assigned to {names[new]}" if new else "Unassigned")
        item.assignee = new
        item.updated_at, item.updated_by = clock.now(), current_username()
        db().commit()
    describe(assignee=new)
    flash(f"Item {item.id} assigned to {names[new]}." if new else f"Item {item.id} is now unassigned.", "success")
    return redirect(request.form.get("next") if request.form.get("next", "").startswith("/queues/")
                    else url_for("queues.item_detail", item_id=item.id))


@queues.post("/items/<int:item_id>/status")
def update_status(item_id: int):
    """Change the status/disposition and the fields that go with it."""
    item = get_or_404(WorkItem, item_id)
    form = update_form(item)
    changes = save_update(item, form)
    if changes is None:
        return _render_item(item, 422, update_form=form, open_dialog="status-dialog")
    flash(f"Item {item.id} updated: {'; '.join(changes)}." if changes else f"Item {item.id}: nothing changed.",
          "success" if changes else "info")
    return redirect(url_for("queues.item_detail", item_id=item.id))


@queues.post("/items/<int:item_id>/notes")
def add_item_note(item_id: int):
    """A note on the work item."""
    item = get_or_404(WorkItem, item_id)
    form = NoteForm()
    if add_note(form, item.mrn, "work_item", str(item.id)) is None:
        return _render_item(item, 422, note_form=form)
    flash("Note added to the work item.", "success")
    return redirect(url_for("queues.item_detail", item_id=item.id) + "#notes")
