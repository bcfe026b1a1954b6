"""WTForms of the fax server, with the messages users see next to each field."""
from __future__ import annotations

from datetime import datetime

from flask_wtf import FlaskForm
from wtforms import BooleanField, FileField, SelectChoice, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional, Regexp, ValidationError

from admindesk.envs.common import clock
from admindesk.envs.fax.cover_templates import DEFAULT_TEMPLATE, TEMPLATES
from admindesk.envs.fax.models import CONTACT_TYPES, DOCUMENT_TYPES
from admindesk.envs.fax.numbers import FaxNumberError, parse_fax_number

NOTE_MAX = 500
COMMENTS_MAX = 2000


def options(pairs) -> list[SelectChoice]:
    """(value, label) pairs as select choices."""
    return [SelectChoice(value, label) for value, label in pairs]


def fax_number_check(form, field) -> None:
    """Accept any punctuation, demand exactly 10 digits; keeps the digits in `field.digits`."""
    field.digits = ""
    if not (field.data or "").strip():
        return  # Presence is a separate rule: drafts may be saved without a number.
    try:
        field.digits = parse_fax_number(field.data)
    except FaxNumberError as exc:
        raise ValidationError(str(exc)) from exc


def _length(label: str, maximum: int) -> Length:
    return Length(max=maximum, message=f"{label} must be {maximum} characters or fewer.")


class ComposeForm(FlaskForm):
    """The compose screen: recipient, cover sheet fields and the next attachment."""

    from_number = SelectField("Send from line", validate_choice=True)
    to_number = StringField("To fax number", validators=[fax_number_check])
    recipient_name = StringField("Recipient name", validators=[_length("Recipient name", 160)])
    cover_to = StringField("Attention (cover To)", validators=[_length("Attention", 160)])
    cover_from = StringField("From (cover)", validators=[_length("From", 160)])
    cover_re = StringField("Re (subject)", validators=[_length("Re", 200)])
    cover_template = SelectField("Cover sheet template", validate_choice=True, default=DEFAULT_TEMPLATE,
                                 choices=options((t.key, t.name) for t in TEMPLATES.values()))
    urgent = BooleanField("Urgent")
    comments = TextAreaField("Cover sheet comments", validators=[_length("Comments", COMMENTS_MAX)])
    attachment = FileField("PDF to attach")
    directory_q = StringField("Search the directory", validators=[_length("Search", 100)])


class ReadStateForm(FlaskForm):
    """Mark a received fax read or unread, optionally saying why."""

    note = TextAreaField("Note (optional)", validators=[Optional(), _length("Note", NOTE_MAX)])


class FileFaxForm(FlaskForm):
    """File (index) a received fax: the patient as the fax names them, optionally the case,
    claim or authorization reference and the document type, and a note of what was done."""

    patient_name = StringField("Patient name", validators=[
        DataRequired(message="Enter the patient's name as the fax gives it (Last, First)."),
        _length("Patient name", 120)])
    dob = StringField("Date of birth", validators=[Optional(), _length("Date of birth", 10)])
    mrn = StringField("MRN (optional)", validators=[
        Optional(), Regexp(r"^[A-Za-z0-9-]{3,20}$",
                           message="An MRN is 3 to 20 letters, digits or hyphens, as the chart shows it.")])
    reference = StringField("Case, claim or authorization number (optional)", validators=[
        Optional(), _length("Reference", 40)])
    document_type = SelectField("Document type (optional)", validate_choice=True, default="",
                                choices=options([("", "Not set")] + [(t, t) for t in DOCUMENT_TYPES]))
    note = TextAreaField("Filing note", validators=[
        DataRequired(message="Say where the fax was filed or what was done with it."),
        _length("Filing note", NOTE_MAX)])

    def validate_patient_name(self, field) -> None:
        if not any(ch.isalpha() for ch in field.data or ""):
            raise ValidationError("Enter the patient's name as the fax gives it (Last, First).")

    def validate_dob(self, field) -> None:
        """MM/DD/YYYY (or YYYY-MM-DD), a real date not after today; the parsed date in `field.date`."""
        field.date = None
        text = (field.data or "").strip()
        if not text:
            return
        for pattern in ("%m/%d/%Y", "%Y-%m-%d"):
            try:
                field.date = datetime.strptime(text, pattern).date()
                break
            except ValueError:
                continue
        if field.date is None:
            raise ValidationError("Enter the date of birth as MM/DD/YYYY, e.g. 04/27/1961.")
        if field.date > clock.today() or field.date.year < 1900:
            field.date = None
            raise ValidationError("The date of birth must be a past date after 1900.")

    def validate(self, extra_validators=None) -> bool:
        ok = super().validate(extra_validators)
        if ok and not (self.dob.data or "").strip() and not (self.mrn.data or "").strip():
            self.dob.errors = ["Enter the date of birth or the MRN the fax gives, so the fax files to one patient."]
            return False
        return ok


class AssignFaxForm(FlaskForm):
    """Give a received fax to a colleague (or take it back to the shared queue)."""

    assignee = SelectField("Assign to", validate_choice=True)
    note = TextAreaField("Note (optional)", validators=[Optional(), _length("Note", NOTE_MAX)])


class ResendForm(FlaskForm):
    """Resend a failed job, to the same or a corrected number."""

    to_number = StringField("Resend to fax number", validators=[fax_number_check])


class ContactForm(FlaskForm):
    """A new directory entry."""

    name = StringField("Contact name", validators=[
        DataRequired(message="Enter the contact's name."), _length("Contact name", 160)])
    organization = StringField("Organization", validators=[
        DataRequired(message="Enter the organization."), _length("Organization", 160)])
    contact_type = SelectField("Type", choices=options([("", "Choose a type")] + [(t, t) for t in CONTACT_TYPES]),
                               validators=[DataRequired(message="Choose the contact type.")])
    fax_number = StringField("Fax number", validators=[fax_number_check])
    phone_number = StringField("Phone number (optional)", validators=[fax_number_check])
    notes = TextAreaField("Notes (optional)", validators=[Optional(), _length("Notes", NOTE_MAX)])

    def validate_fax_number(self, field) -> None:
        if not (field.data or "").strip():
            raise ValidationError("Enter the fax number.")
