"""EHR rows -> FHIR R4 resources of the desk's own work: work-queue items as Task, notes
(on a patient, order, claim or work item) as Communication.

A work item's queue status ("Auth Obtained", "Appeal Filed") is `Task.businessStatus.text`;
`Task.status` is derived from it. The fields a queue records besides the status are
`Task.output` entries (coded in WORK_ITEM_FIELD) and the follow-up date an extension.
"""
from __future__ import annotations

from dataclasses import dataclass

from fhir.resources.R4B.communication import Communication
from fhir.resources.R4B.task import Task

from admindesk.envs.ehr_web.fhir.codes import (
    FOLLOW_UP_EXT,
    WORK_ITEM,
    WORK_ITEM_FIELD,
    WORK_QUEUE,
    day,
    local_instant,
    reference,
    staff_reference,
)
from admindesk.envs.ehr_web.models_work import Note, WorkItem
from admindesk.envs.ehr_web.notes import notes_for
from admindesk.envs.ehr_web.views.common import display_name
from admindesk.envs.ehr_web.vocab import QUEUE_BY_NAME, Queue

# Task.status for queue statuses that are neither new nor closed nor on hold: the work goes on.
FHIR_STATUS_OF_OPEN = {"New": "requested", "On Hold": "on-hold"}
PRIORITIES = {"Routine": "routine", "Urgent": "urgent"}
# Note subjects -> the resource type a Communication is `about`.
NOTE_SUBJECTS = {"order": "ServiceRequest", "claim": "Claim", "work_item": "Task"}
NOTE_CATEGORIES = {"patient": "Patient note", "order": "Order comment", "claim": "Claim note",
                   "work_item": "Work item note"}


@dataclass(frozen=True)
class TaskOutput:
    """A field a queue records on its items, as a Task.output entry."""

    field: str  # the WorkItem column and WorkItemUpdateForm field
    code: str
    label: str  # as the work-item history names it
    value_type: str  # valueString | valueDate | valueReference
    queue: str


TASK_OUTPUTS = (
    TaskOutput("appeal_reference", "appeal-reference", "Appeal / corrected claim #", "valueString", "Denials"),
    TaskOutput("appeal_submitted_on", "appeal-submitted-on", "Submitted to payer on", "valueDate", "Denials"),
    TaskOutput("supplier_id", "supplier", "Supplier", "valueReference", "DME"),
    TaskOutput("supplier_confirmation", "supplier-confirmation", "Supplier confirmation #", "valueString", "DME"),
)


def fhir_task_status(queue: Queue, status: str) -> str:
    """Task.status of a queue status: closing statuses are completed, the rest still open."""
    if status in queue.closed_statuses:
        return "completed"
    return FHIR_STATUS_OF_OPEN.get(status, "in-progress")


def _output_value(output: TaskOutput, value) -> dict:
    if output.value_type == "valueReference":
        return {"valueReference": reference("Organization", value)}
    return {output.value_type: day(value) if output.value_type == "valueDate" else value}


def _subject(item: WorkItem) -> dict | None:
    if item.order_id:
        return reference("ServiceRequest", item.order_id)
    return reference("Claim", item.claim_number)


def task_resource(item: WorkItem) -> Task:
    """A work item: queue, status, patient, the order or claim it is about, assignee, due and
    follow-up dates, the queue's own fields, and its notes."""
    queue = QUEUE_BY_NAME[item.queue]
    outputs = [{"type": {"coding": [{"system": WORK_ITEM_FIELD, "code": output.code}], "text": output.label},
                **_output_value(output, getattr(item, output.field))}
               for output in TASK_OUTPUTS if output.queue == item.queue and getattr(item, output.field)]
    notes = [{"authorString": note.author_name, "time": local_instant(note.created_at), "text": note.text}
             for note in reversed(notes_for("work_item", str(item.id)))]
    return Task(
        id=str(item.id), identifier=[{"system": WORK_ITEM, "value": str(item.id)}],
        status=fhir_task_status(queue, item.status), businessStatus={"text": item.status}, intent="order",
        priority=PRIORITIES.get(item.priority, "routine"),
        code={"coding": [{"system": WORK_QUEUE, "code": queue.slug, "display": queue.name}], "text": queue.name},
        description=f"{queue.name} work item", focus=_subject(item), **{"for": reference("Patient", item.mrn)},
        authoredOn=day(item.created_on), lastModified=local_instant(item.updated_at),
        owner=staff_reference(item.assignee, display_name(item.assignee)),
        restriction={"period": {"end": day(item.due_date)}},
        input=[{"type": {"text": "Payer"}, "valueReference": reference("Organization", item.payer_id)}]
        if item.payer_id else None,
        output=outputs or None, note=notes or None,
        extension=[{"url": FOLLOW_UP_EXT, "valueDate": day(item.follow_up_date)}] if item.follow_up_date else None)


def communication_resource(note: Note) -> Communication:
    """A staff note: on the patient, or about one of its orders, claims or work items."""
    about_type = NOTE_SUBJECTS.get(note.subject_type)
    return Communication(
        id=str(note.id), status="completed",
        category=[{"text": NOTE_CATEGORIES.get(note.subject_type, "Note")}],
        subject=reference("Patient", note.mrn),
        about=[reference(about_type, note.subject_id)] if about_type else None,
        sent=local_instant(note.created_at), sender=staff_reference(note.author, note.author_name),
        payload=[{"contentString": note.text}])
