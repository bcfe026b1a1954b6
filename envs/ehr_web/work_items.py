"""Changing a work item's status and the fields its queue records: the form with the item's
queue statuses and suppliers, its rules, the history entry and the optional note. The
work-item screen and the FHIR API (PUT /fhir/Task) both save through `save_update`."""
from __future__ import annotations

from sqlalchemy import select

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms import WorkItemUpdateForm, options
from admindesk.envs.ehr_web.models import Supplier
from admindesk.envs.ehr_web.models_work import WorkItem, WorkItemEvent
from admindesk.envs.ehr_web.notes import store_note
from admindesk.envs.ehr_web.vocab import QUEUE_BY_NAME

# Every item records these; some queues record more. The history names each by its form label.
COMMON_FIELDS = ("status", "follow_up_date")
QUEUE_FIELDS = {"Denials": ("appeal_reference", "appeal_submitted_on"),
                "DME": ("supplier_id", "supplier_confirmation")}


def update_form(item: WorkItem, **form_args) -> WorkItemUpdateForm:
    """The update form with the item's queue statuses and the suppliers; `form_args` as
    FlaskForm takes them (none: bound to the request; `formdata=None` and values: for display)."""
    form = WorkItemUpdateForm(**form_args)
    suppliers = [(s.id, f"{s.name} ({s.categories})") for s in db().scalars(select(Supplier).order_by(Supplier.name))]
    form.status.choices = options(QUEUE_BY_NAME[item.queue].statuses)
    form.supplier_id.choices = options([("", "- Select supplier -"), *suppliers])
    return form


def log_change(item: WorkItem, change: str) -> None:
    """An entry of the item's history by the signed-in user (the caller commits)."""
    db().add(WorkItemEvent(work_item_id=item.id, at=clock.now(), username=current_username(), change=change))


def save_update(item: WorkItem, form: WorkItemUpdateForm) -> list[str] | None:
    """Check the filled form by the queue's rules and apply it: what changed (as the history
    entry says it), possibly nothing; None, with nothing written and field errors, when refused."""
    queue = QUEUE_BY_NAME[item.queue]
    describe(action="update_work_item", record_type="work_item", record_id=str(item.id), queue=item.queue)
    valid = form.validate()
    valid = form.check_queue_rules(queue.name, clock.today(), item.follow_up_date) and valid
    if not valid:
        return None
    changes = []
    for name in (*COMMON_FIELDS, *QUEUE_FIELDS.get(queue.name, ())):
        field = getattr(form, name)
        value = field.data or None
        if value != getattr(item, name):
            shown = value.strftime("%m/%d/%Y") if hasattr(value, "strftime") else (value or "(blank)")
            changes.append(f"{field.label.text}: {shown}")
            setattr(item, name, value)
    if changes:
        log_change(item, "; ".join(changes))
        item.updated_at, item.updated_by = clock.now(), current_username()
    if form.note.data and form.note.data.strip():
        store_note(item.mrn, "work_item", str(item.id), form.note.data)
    db().commit()
    describe(action="update_work_item", status=item.status, changes=changes)
    return changes
