"""Forms of the follow-up actions on a case or a claim: labelled, with clear messages."""
from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import DecimalField, Form, IntegerField, RadioField, SelectField, StringField, TextAreaField
from wtforms.fields import FieldList, FormField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, Regexp

from admindesk.envs.payer_portal_a.auth_lifecycle import CHANGE_KINDS
from admindesk.envs.payer_portal_a.forms import PROCEDURE_CODE, USDateField

PHONE = Regexp(r"^\D*(\d\D*){10}$", message="Enter a 10-digit phone number.")
URGENCY_CHOICES = {"Standard": "Standard", "Expedited": "Expedited (life, health or function at risk)"}


class WithdrawForm(FlaskForm):
    reason = StringField("Reason for withdrawing", validators=[
        InputRequired(message="Enter the reason for withdrawing."), Length(max=200, message="At most 200 characters.")])


class AuthChangeForm(FlaskForm):
    kind = SelectField("Change requested", choices={"": "Select a change", **{k: k for k in CHANGE_KINDS}},
                       validators=[InputRequired(message="Select the change requested.")])
    line_no = SelectField("Service line", validators=[InputRequired(message="Select the service line.")])
    new_start = USDateField("New start date (date change)", validators=[Optional()])
    new_end = USDateField("New end date (extension or date change)", validators=[Optional()])
    new_units = IntegerField("New total units (units increase)", validators=[
        Optional(), NumberRange(1, 9999, message="Units must be between 1 and 9999.")])
    reason = StringField("Reason for the change", validators=[
        InputRequired(message="Enter the reason for the change."), Length(max=300, message="At most 300 characters.")])
    document_type = SelectField("Supporting document type", validators=[Optional()])
    file = FileField("Supporting document (PDF): for a units increase, the ordering provider's note that orders "
                     "the added units")


class PeerToPeerForm(FlaskForm):
    physician_name = StringField("Ordering physician who will take the call", validators=[
        InputRequired(message="Enter the physician's name."), Length(max=120, message="At most 120 characters.")])
    callback_phone = StringField("Callback phone", validators=[InputRequired(message="Enter a callback phone."), PHONE])


class SlotForm(FlaskForm):
    slot = RadioField("Available times", validators=[InputRequired(message="Choose one of the offered times.")],
                      validate_choice=False)


class PreServiceAppealForm(FlaskForm):
    urgency = SelectField("Review timeframe", choices=URGENCY_CHOICES, default="Standard",
                          validators=[DataRequired(message="Select the review timeframe.")])
    argument = TextAreaField("Why the denial should be reversed", validators=[
        InputRequired(message="Explain why the denial should be reversed."),
        Length(max=5000, message="At most 5,000 characters.")])
    contact_name = StringField("Contact name", validators=[InputRequired(message="Enter a contact name."),
                                                           Length(max=80, message="At most 80 characters.")])
    contact_phone = StringField("Contact phone", validators=[InputRequired(message="Enter a contact phone."), PHONE])
    # The records that answer the denial travel with the appeal (choices: the portal's document types).
    document_type = SelectField("Supporting document type", validators=[Optional()])
    file = FileField("Supporting document (PDF)")


class CorrectedLineForm(Form):
    """One line of a corrected claim (a sub-form: the parent form carries the CSRF token)."""

    code = StringField("Procedure code", validators=PROCEDURE_CODE)
    modifiers = StringField("Modifiers (comma separated)", validators=[
        Optional(), Regexp(r"^\s*([A-Za-z0-9]{2}\s*(,\s*[A-Za-z0-9]{2}\s*){0,3})?$",
                           message="Modifiers are 2 characters each, at most 4, comma separated (e.g. 25, RT).")])
    units = IntegerField("Units", validators=[InputRequired(message="Enter the units."),
                                              NumberRange(1, 9999, message="Units must be between 1 and 9999.")])
    charge = DecimalField("Charge ($)", places=2, validators=[
        InputRequired(message="Enter the charge."), NumberRange(0.01, 999999, message="Enter a charge above $0.")])
    diagnosis_codes = StringField("Diagnoses (ICD-10-CM)", validators=[
        InputRequired(message="Enter at least one diagnosis code."), Length(max=80, message="At most 80 characters.")])


class CorrectedClaimForm(FlaskForm):
    frequency_code = SelectField("Claim frequency code", choices={
        "": "Select a frequency code", "7": "7 - Replacement of a prior claim", "8": "8 - Void / cancel a prior claim"},
        validators=[InputRequired(message="Select the claim frequency code.")])
    correction_reason = StringField("What was corrected", validators=[
        InputRequired(message="Describe what was corrected."), Length(max=300, message="At most 300 characters.")])
    auth_number = StringField("Authorization number", validators=[
        Optional(), Length(max=24, message="At most 24 characters."),
        Regexp(r"^\s*[A-Za-z0-9-]+\s*$", message="An authorization number has letters, digits and dashes only.")])
    primary_paid_amount = DecimalField("Primary payer paid amount ($, when another coverage is primary)", places=2,
                                       validators=[Optional(), NumberRange(0, 999999, message="Enter $0 or more.")])
    primary_eob = FileField("Primary payer's EOB (PDF)")
    lines = FieldList(FormField(CorrectedLineForm), min_entries=1, max_entries=10)
