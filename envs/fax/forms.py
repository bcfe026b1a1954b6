"""WTForms of the fax server, with the messages users see next to each field."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, FileField, SelectChoice, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional, ValidationError

from admindesk.envs.fax.cover_templates import DEFAULT_TEMPLATE, TEMPLATES
from admindesk.envs.fax.models import CONTACT_TYPES
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
    """File a received fax (it has been handled), with a note of where it went."""

    note = TextAreaField("Filing note", validators=[
        DataRequired(message="Say where the fax was filed or what was done with it."),
        _length("Filing note", NOTE_MAX)])


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
