"""The writes a coordinator makes through the API, each through the EHR's own rules:

- `POST /fhir/Communication`: a note on a patient, or on one of its orders, claims or work
  items (`about`), stored by the note service and NoteForm the HTML note forms use.
- `PUT /fhir/Task/<id>`: a work item's status and the fields its queue records, saved by the
  work-item screen's service (work_items: WorkItemUpdateForm, the queue rules, the history
  entry, the optional note, the audit action).
- `POST /fhir/ClaimResponse` (claim_responses) and `POST /fhir/Coverage/<id>/$verify`
  (coverage_verification) use the helpers here.

A write is checked whole before anything is stored: a refused one stores nothing and answers
an OperationOutcome naming each element at fault. While another user holds a patient's chart
(the chart-lock interruption) the chart's own edits are refused with a 423, as its screens
refuse them; work items belong to the queues, not the chart, and stay writable.
"""
from __future__ import annotations

from collections.abc import Mapping

from fhir.resources.R4B.communication import Communication
from fhir.resources.R4B.reference import Reference
from fhir.resources.R4B.task import Task
from flask_wtf import FlaskForm
from pydantic import ValidationError
from werkzeug.datastructures import MultiDict

from admindesk.envs.common.web import db
from admindesk.envs.ehr_web import work_items
from admindesk.envs.ehr_web.fhir.codes import FOLLOW_UP_EXT, WORK_ITEM_FIELD
from admindesk.envs.ehr_web.fhir.map_work import NOTE_SUBJECTS, TASK_OUTPUTS, TaskOutput
from admindesk.envs.ehr_web.fhir.outcomes import FhirError, Issue, fhir_error, invalid_resource
from admindesk.envs.ehr_web.forms import NoteForm
from admindesk.envs.ehr_web.models import Order, Patient
from admindesk.envs.ehr_web.models_work import Claim, Note, WorkItem
from admindesk.envs.ehr_web.notes import add_note
from admindesk.envs.ehr_web.views.alerts import refuse_locked_chart_edit
from admindesk.envs.ehr_web.vocab import QUEUE_BY_NAME

# Resource type -> (note subject type, the table of the record a note can be about).
_NOTE_SUBJECT_MODELS = {"order": Order, "claim": Claim, "work_item": WorkItem}
ABOUT_TARGETS = {resource: (subject, _NOTE_SUBJECT_MODELS[subject]) for subject, resource in NOTE_SUBJECTS.items()}
FOLLOW_UP_PATH = f"Task.extension('{FOLLOW_UP_EXT}')"
# The form's fields -> the Task elements that carry them, for messages.
FIELD_PATHS = {"status": "Task.businessStatus", "follow_up_date": FOLLOW_UP_PATH, "note": "Task.note",
               **{output.field: f"Task.output.where(type.coding.code='{output.code}')" for output in TASK_OUTPUTS}}
# Forms filled from an API body: the bearer token, not a CSRF token, authenticates the request.
NO_CSRF = {"csrf": False}


def parse_body(model, body: object, resource_type: str):
    """The request body as an R4 resource of the type the URL names."""
    if not isinstance(body, dict):
        raise fhir_error(400, "structure", f"The body must be a {resource_type} resource as JSON "
                                           "(Content-Type: application/fhir+json).")
    if body.get("resourceType") != resource_type:
        raise fhir_error(400, "structure", f"resourceType must be '{resource_type}', not {body.get('resourceType')!r}.",
                         "resourceType")
    try:
        return model.model_validate(body)
    except ValidationError as error:
        raise invalid_resource(error, resource_type) from None


def target(ref: Reference | None, path: str) -> tuple[str, str]:
    """(type, id) of a literal reference (`Patient/E1000449`, or an absolute URL of one)."""
    parts = (ref.reference or "").rstrip("/").split("/") if ref is not None else []
    if len(parts) < 2 or not parts[-1]:
        raise fhir_error(422, "required", f"{path}: give a literal reference such as Patient/E1000449.", path)
    return parts[-2], parts[-1]


def refuse_if_chart_locked(mrn: str) -> None:
    """A 423 while another user holds the patient's chart: it is read-only, as on its screens."""
    holder = refuse_locked_chart_edit(mrn)
    if holder is not None:
        raise fhir_error(423, "lock-error", f"The chart of Patient/{mrn} is read-only: {holder} has it open on "
                                            "another workstation, so its edits are refused until they close it "
                                            "or it is taken over in the chart.")


def form_refusal(form: FlaskForm, paths: Mapping[str, str], hints: Mapping[str, str] | None = None) -> FhirError:
    """The form's field errors as a 422, each issue on the element (`paths`: field -> FHIRPath)
    that carried the field, with the field's hint (if any) after its message."""
    issues = []
    for name, messages in form.errors.items():
        path, hint = paths.get(name, name), (hints or {}).get(name, "")
        issues += [Issue("invariant", f"{path}: {message}{hint}", path) for message in messages]
    return FhirError(422, *issues)


# ---- Communication: a note ------------------------------------------------------------
def _note_subject(communication: Communication) -> tuple[str, str, str]:
    """(MRN, note subject type, subject id) the Communication names, checked against the chart."""
    kind, mrn = target(communication.subject, "Communication.subject")
    if kind != "Patient" or db().get(Patient, mrn) is None:
        raise fhir_error(422, "not-found", f"Communication.subject: no patient {kind}/{mrn} in the EHR "
                                           "(give Patient/<MRN>).", "Communication.subject")
    about = communication.about or []
    if not about:
        return mrn, "patient", mrn
    if len(about) > 1:
        raise fhir_error(422, "invalid", "Communication.about: a note is on one record; give at most one.",
                         "Communication.about")
    kind, record_id = target(about[0], "Communication.about[0]")
    if kind not in ABOUT_TARGETS:
        raise fhir_error(422, "invalid", f"Communication.about[0]: a note can be about a "
                                         f"{', '.join(ABOUT_TARGETS)}, not a {kind}.", "Communication.about[0]")
    subject_type, model = ABOUT_TARGETS[kind]
    key = (int(record_id) if record_id.isdigit() else None) if model is WorkItem else record_id
    record = db().get(model, key) if key is not None else None
    if record is None:
        raise fhir_error(422, "not-found", f"Communication.about[0]: no {kind}/{record_id} in the EHR.",
                         "Communication.about[0]")
    if record.mrn != mrn:
        raise fhir_error(422, "business-rule", f"Communication.about[0]: {kind}/{record_id} belongs to patient "
                                               f"{record.mrn}, not to the subject Patient/{mrn}.",
                         "Communication.about[0]")
    return mrn, subject_type, record_id


def create_note(body: object) -> Note:
    """Store the note a Communication carries (one payload with contentString)."""
    communication = parse_body(Communication, body, "Communication")
    mrn, subject_type, subject_id = _note_subject(communication)
    if subject_type != "work_item":  # the work queue's notes are not the chart's
        refuse_if_chart_locked(mrn)
    payloads = communication.payload or []
    if len(payloads) != 1 or payloads[0].contentString is None:
        raise fhir_error(422, "required", "Communication.payload: give exactly one payload with contentString "
                                          "(the note text).", "Communication.payload")
    form = NoteForm(formdata=MultiDict({"text": payloads[0].contentString}), meta=NO_CSRF)
    note = add_note(form, mrn, subject_type, subject_id)
    if note is None:
        raise form_refusal(form, {"text": "Communication.payload[0].contentString"})
    return note


# ---- Task: a work item's status -------------------------------------------------------
def _output_of(entry, index: int, queue_name: str) -> TaskOutput:
    codes = {coding.code for coding in (entry.type.coding or []) if coding.system == WORK_ITEM_FIELD}
    known = [output for output in TASK_OUTPUTS if output.code in codes or output.label == entry.type.text]
    path = f"Task.output[{index}]"
    if not known:
        raise fhir_error(422, "invalid", f"{path}: unknown field; outputs are coded in {WORK_ITEM_FIELD}: "
                                         f"{', '.join(output.code for output in TASK_OUTPUTS)}.", path)
    if known[0].queue != queue_name:
        raise fhir_error(422, "business-rule", f"{path}: the {queue_name} queue does not record "
                                               f"'{known[0].code}' (the {known[0].queue} queue does).", path)
    return known[0]


def _output_text(entry, output: TaskOutput, index: int) -> str:
    value = getattr(entry, output.value_type)
    if value is None:
        raise fhir_error(422, "invalid", f"Task.output[{index}]: '{output.code}' takes {output.value_type}.",
                         f"Task.output[{index}]")
    if output.value_type == "valueReference":
        return target(value, f"Task.output[{index}].valueReference")[1]
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def _requested_fields(task: Task, queue_name: str) -> MultiDict:
    """The work-item form as the Task fills it: its status, follow-up date, the queue's fields and
    at most one new note (an annotation without a time; the notes on file carry theirs)."""
    status = task.businessStatus
    text = status and (status.text or next((coding.code for coding in status.coding or []), None))
    if not text:
        raise fhir_error(422, "required", "Task.businessStatus: give the queue status as businessStatus.text "
                                          "(e.g. 'In Progress').", "Task.businessStatus")
    fields = {"status": text}
    follow_up = [ext.valueDate for ext in task.extension or [] if ext.url == FOLLOW_UP_EXT]
    fields["follow_up_date"] = follow_up[0].isoformat() if follow_up and follow_up[0] else ""
    for index, entry in enumerate(task.output or []):
        output = _output_of(entry, index, queue_name)
        fields[output.field] = _output_text(entry, output, index)
    new_notes = [note.text for note in task.note or [] if note.time is None]
    if len(new_notes) > 1:
        raise fhir_error(422, "invalid", "Task.note: add one new note at a time (a note without a time).",
                         "Task.note")
    fields["note"] = new_notes[0] if new_notes else ""
    return MultiDict(fields)


def update_work_item(item: WorkItem, body: object) -> None:
    """Apply a Task's status, follow-up date, queue fields and new note to its work item."""
    task = parse_body(Task, body, "Task")
    if task.id is not None and task.id != str(item.id):
        raise fhir_error(400, "invalid", f"Task.id: the body is Task/{task.id}, the URL Task/{item.id}.", "Task.id")
    queue = QUEUE_BY_NAME[item.queue]
    form = work_items.update_form(item, formdata=_requested_fields(task, queue.name), meta=NO_CSRF)
    if work_items.save_update(item, form) is None:
        raise form_refusal(form, FIELD_PATHS, {"status": f" The {queue.name} queue's statuses: "
                                                         f"{', '.join(queue.statuses)}."})
