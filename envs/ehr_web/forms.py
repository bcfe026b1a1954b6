"""The EHR's forms, with the validation rules a coordinator sees as field messages.

Dates are typed as MM/DD/YYYY (ISO YYYY-MM-DD is accepted too), like the text date
fields of hospital systems.
"""
from __future__ import annotations

import re
from datetime import date, datetime

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import SelectChoice, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, Optional, ValidationError

from admindesk.envs.ehr_web.vocab import AUTH_STATUSES, NOTE_MAX_LENGTH, UPLOAD_KINDS

DATE_FORMATS = ("%m/%d/%Y", "%Y-%m-%d")
# Payer authorization and reference numbers: 6-20 letters, digits or dashes, starting
# with a letter or digit (e.g. NWH26123456, CS48213377, PA-2026-004512).
AUTH_NUMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{5,19}$")
AUTH_NUMBER_MESSAGE = "Use 6-20 letters, digits or dashes, starting with a letter or digit."
MRN_PATTERN = re.compile(r"^E?\d{1,7}$", re.IGNORECASE)
MAX_UNITS = 999


def options(pairs) -> list[SelectChoice]:
    """Select options from (value, label) pairs or plain strings (value = label)."""
    return [SelectChoice(*pair) if isinstance(pair, tuple) else SelectChoice(pair, pair) for pair in pairs]


def parse_date(text: str) -> date | None:
    """A date typed as MM/DD/YYYY or YYYY-MM-DD, else None."""
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt).date()
        except ValueError:
            continue
    return None


class DateText(StringField):
    """A text date field; `.data` is a `date` (or None when empty)."""

    def process_formdata(self, valuelist):
        self.raw_text = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if self.raw_text:
            self.data = parse_date(self.raw_text)
            if self.data is None:
                raise ValueError(f"{self.raw_text!r} is not a valid date. Enter it as MM/DD/YYYY.")

    def _value(self):
        if getattr(self, "raw_text", None) is not None and self.data is None:
            return self.raw_text
        return self.data.strftime("%m/%d/%Y") if self.data else ""


def strip(value: str | None) -> str | None:
    """Field filter: the typed text without surrounding spaces."""
    return value.strip() if value else value


def date_kwargs() -> dict:
    return {"render_kw": {"placeholder": "MM/DD/YYYY", "autocomplete": "off", "size": 10}}


# The approval terms of the authorization form, as its field messages name them (and "it" or "them").
APPROVAL_TERMS = {"approved_units": ("approved units", "them"), "start_date": ("approved start date", "it"),
                  "end_date": ("approved end date", "it")}


def auth_number_check(_form, field) -> None:
    if field.data and not AUTH_NUMBER.match(field.data.strip()):
        raise ValidationError(AUTH_NUMBER_MESSAGE)


class AuthorizationForm(FlaskForm):
    """The authorization section of an order."""

    status = SelectField("Authorization status", choices=options(AUTH_STATUSES),
                         validators=[InputRequired()])
    payer_id = SelectField("Payer", choices=[], validators=[Optional()])
    auth_number = StringField("Authorization number", validators=[Optional(), Length(max=20), auth_number_check],
                              filters=[strip])
    reference_number = StringField("Reference / case number",
                                   validators=[Optional(), Length(max=20), auth_number_check],
                                   filters=[strip])
    approved_units = StringField("Approved units", validators=[Optional()],
                                 filters=[strip], render_kw={"size": 4})
    approved_code = StringField("Approved code", validators=[Optional(), Length(max=8)],
                                filters=[strip, lambda v: v.upper() if v else v], render_kw={"size": 6})
    start_date = DateText("Start date", **date_kwargs())
    end_date = DateText("End date", **date_kwargs())

    def validate_approved_units(self, field) -> None:
        if not field.data:
            return
        if not field.data.isdigit() or not 1 <= int(field.data) <= MAX_UNITS:
            raise ValidationError(f"Enter a whole number from 1 to {MAX_UNITS}.")

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        start, end = self.start_date.data, self.end_date.data
        if start and end and end < start:
            self.end_date.errors.append("End date must be on or after the start date.")
            valid = False
        if self.approved_code.data and self.status.data != "Approved":
            self.approved_code.errors.append("An approved code is recorded only with the status Approved.")
            valid = False
        if self.status.data == "Approved":
            for field in (self.payer_id, self.auth_number, self.start_date, self.end_date):
                if not field.data and not field.errors:
                    field.errors.append(f"{field.label.text} is required when the status is Approved.")
                    valid = False
        return valid

    def check_approval_terms(self, on_file: dict) -> bool:
        """Approved units and dates exist only once the payer approves: with any other status
        they are refused (adds field errors), except that a cancelled authorization keeps,
        unchanged, the terms on file (`on_file`: field name -> the value it shows now)."""
        status = self.status.data
        if status == "Approved":
            return True
        valid = True
        for name, (term, pronoun) in APPROVAL_TERMS.items():
            field = self[name]
            if field.errors or not field.data:
                continue
            if status == "Cancelled" and on_file.get(name):
                if field.data == on_file[name]:
                    continue
                message = f"A cancelled authorization keeps the {term} on file, which cannot be changed."
            else:
                message = (f"{term.capitalize()} can be entered only with the status Approved. "
                           f"Leave {pronoun} blank while the status is {status}.")
            field.errors.append(message)
            valid = False
        return valid


class NoteForm(FlaskForm):
    """A free-text note or comment."""

    text = TextAreaField("Note", validators=[DataRequired("Enter the note text."),
                                             Length(max=NOTE_MAX_LENGTH,
                                                    message=f"Notes are limited to {NOTE_MAX_LENGTH} characters.")],
                         render_kw={"rows": 3})


class DocumentUploadForm(FlaskForm):
    """Upload a PDF (a payer letter, outside records) into a patient's documents."""

    kind = SelectField("Document type", choices=options(UPLOAD_KINDS), validators=[InputRequired()])
    title = StringField("Title", validators=[DataRequired("Enter a title for the document."),
                                             Length(max=200, message="Titles are limited to 200 characters.")])
    document_date = DateText("Document date", validators=[InputRequired("Enter the document date.")], **date_kwargs())
    file = FileField("PDF file")


class PatientSearchForm(FlaskForm):
    """Patient lookup by name, MRN or date of birth (a GET form)."""

    class Meta:
        csrf = False

    name = StringField("Name", validators=[Optional(), Length(max=80, message="Names are limited to 80 characters.")],
                       render_kw={"placeholder": "Last, First"})
    mrn = StringField("MRN", validators=[Optional()], render_kw={"placeholder": "E1234567"})
    dob = DateText("Date of birth", **date_kwargs())

    def validate_mrn(self, field) -> None:
        if field.data and not MRN_PATTERN.match(field.data.strip()):
            raise ValidationError("Enter an MRN like E1000449 (the letter E and up to 7 digits).")

    def has_criteria(self) -> bool:
        return bool((self.name.data or "").strip() or (self.mrn.data or "").strip() or self.dob.data)


class AssignForm(FlaskForm):
    """Assign a work item to a staff member (empty = unassign)."""

    # No Optional(): it would let a blank-looking value (" ") skip the check against the choices.
    assignee = SelectField("Assign to", choices=[])


class WorkItemUpdateForm(FlaskForm):
    """Status/disposition change of a work item, with the fields each queue records."""

    status = SelectField("Status", choices=[], validators=[InputRequired()])
    follow_up_date = DateText("Follow-up date", **date_kwargs())
    # One field for the payer's number of what was sent: an appeal's reference, or the
    # replacement claim's number when a corrected claim went instead.
    appeal_reference = StringField("Appeal / corrected claim #", validators=[Optional(), Length(max=20), auth_number_check],
                                   filters=[strip])
    appeal_submitted_on = DateText("Submitted to payer on", **date_kwargs())
    supplier_id = SelectField("Supplier", choices=[], validators=[Optional()])
    supplier_confirmation = StringField("Supplier confirmation #",
                                        validators=[Optional(), Length(max=20), auth_number_check],
                                        filters=[strip])
    note = TextAreaField("Note (optional)", validators=[Optional(), Length(
        max=NOTE_MAX_LENGTH, message=f"Notes are limited to {NOTE_MAX_LENGTH} characters.")], render_kw={"rows": 2})

    def check_queue_rules(self, queue_name: str, today: date, current_follow_up: date | None = None) -> bool:
        """Rules that depend on the queue and the status chosen; adds field errors. A follow-up
        date the item already has may stay as it is once it has passed (closing an overdue
        item keeps its history); a new one cannot be in the past."""
        errors = []
        if self.follow_up_date.data and self.follow_up_date.data < today \
                and self.follow_up_date.data != current_follow_up:
            errors.append((self.follow_up_date, "Follow-up date cannot be in the past."))
        if queue_name == "Denials" and self.status.data == "Appeal Filed":
            if not self.appeal_reference.data:
                errors.append((self.appeal_reference, "Appeal reference is required when the appeal is filed."))
            if not self.appeal_submitted_on.data:
                errors.append((self.appeal_submitted_on, "Enter the date the appeal was submitted."))
        if self.appeal_submitted_on.data and self.appeal_submitted_on.data > today:
            errors.append((self.appeal_submitted_on, "The submission date cannot be in the future."))
        if queue_name == "DME" and self.status.data in ("Sent to Supplier", "Supplier Confirmed") \
                and not self.supplier_id.data:
            errors.append((self.supplier_id, "Choose the supplier the order was sent to."))
        if queue_name == "DME" and self.status.data == "Supplier Confirmed" and not self.supplier_confirmation.data:
            errors.append((self.supplier_confirmation, "Enter the supplier's confirmation number."))
        for field, message in errors:
            if not field.errors:
                field.errors = list(field.errors) + [message]
        return not errors


PATIENT_LOOKUP_MESSAGE = ("Enter a patient name (Last, First), an MRN like E1000449, or a date of birth as "
                          "MM/DD/YYYY.")


def patient_lookup(text: str) -> tuple[str, str | date] | None:
    """What one patient box asks for, read as a real EHR's filter bar reads it: a date of
    birth ("dob", date), an MRN or its start ("mrn", text), or a name ("name", text: names
    hold no digits). None when the text is none of these."""
    text = text.strip()
    born = parse_date(text)
    if born is not None:
        return "dob", born
    if MRN_PATTERN.match(text):
        return "mrn", text
    if text and not any(char.isdigit() for char in text):
        return "name", text
    return None


class QueueFilterForm(FlaskForm):
    """Work-queue filters (a GET form)."""

    class Meta:
        csrf = False

    patient = StringField("Patient (name, MRN or DOB)", filters=[strip],
                          validators=[Optional(), Length(max=80, message="Patient searches are limited to 80 "
                                                                         "characters.")],
                          render_kw={"type": "search", "placeholder": "Last, First / E1234567 / MM/DD/YYYY",
                                     "autocomplete": "off"})
    status = SelectField("Status", choices=[], validators=[Optional()])
    payer = SelectField("Payer", choices=[], validators=[Optional()])
    assignee = SelectField("Assignee", choices=[], validators=[Optional()])
    due_from = DateText("Due from", **date_kwargs())
    due_to = DateText("Due to", **date_kwargs())

    def validate_patient(self, field) -> None:
        if field.data and patient_lookup(field.data) is None:
            raise ValidationError(PATIENT_LOOKUP_MESSAGE)

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        if self.due_from.data and self.due_to.data and self.due_to.data < self.due_from.data:
            self.due_to.errors.append("'Due to' must be on or after 'Due from'.")
            valid = False
        return valid
