"""Registration forms of the Coverage tab and the order: add a coverage from the member's card, end
a coverage the payer terminated, and point an order at the coverage that pays for it.

Field-level checks live here; rules against the patient's other coverages (overlapping ranks,
a member id registered twice, a coverage not in force on the service date) live in
registration.coverage.
"""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, Optional

from admindesk.envs.ehr_web.forms import NOTE_MAX_LENGTH, DateText, date_kwargs, options, strip
from admindesk.envs.ehr_web.forms_changes import RANK_CHOICES, RELATIONSHIPS, member_id_check

_NOTE_LENGTH = Length(max=NOTE_MAX_LENGTH, message=f"Notes are limited to {NOTE_MAX_LENGTH} characters.")


# Each form's controls have ids of their own: the Coverage tab holds several forms with the same field
# names, and a label must name one control.


class AddCoverageForm(FlaskForm):
    """A new coverage as the member's card and the payer's eligibility give it."""

    payer_id = SelectField("Payer", id="add_payer_id", choices=[],
                           validators=[DataRequired("Choose the payer on the card.")])
    plan_id = SelectField("Plan", id="add_plan_id", choices=[],
                          validators=[DataRequired("Choose the plan on the card.")])
    member_id = StringField("Member ID", id="add_member_id", filters=[strip],
                            validators=[DataRequired("Enter the member ID on the card."), member_id_check])
    group_number = StringField("Group number", id="add_group_number", filters=[strip],
                               validators=[DataRequired("Enter the group number on the card."), Length(max=32)])
    subscriber_name = StringField("Subscriber name", id="add_subscriber_name", validators=[
        DataRequired("Enter the subscriber (policy holder) as the card names them."), Length(max=128)],
        filters=[strip])
    relationship = SelectField("Patient's relationship to subscriber", id="add_relationship",
                               choices=options(RELATIONSHIPS), validators=[DataRequired()])
    effective_date = DateText("Effective date", id="add_effective_date",
                              validators=[InputRequired("Enter the date the coverage begins.")], **date_kwargs())
    rank = SelectField("Rank", id="add_rank", choices=RANK_CHOICES, validators=[DataRequired()])
    source = TextAreaField("Source", id="add_source", validators=[
        DataRequired("Say where the coverage comes from (the card scanned on which day, the payer's eligibility "
                     "reference)."), _NOTE_LENGTH], render_kw={"rows": 2})


class EndCoverageForm(FlaskForm):
    """The last day a registered coverage is in force, as the payer's eligibility gives it."""

    coverage_id = SelectField("Coverage", id="end_coverage_id", choices=[], validators=[InputRequired()])
    termination_date = DateText("Termination date", id="end_termination_date", validators=[
        InputRequired("Enter the last day of coverage the payer gives.")], **date_kwargs())
    reason = TextAreaField("Source", id="end_reason", validators=[
        DataRequired("Say where the termination comes from (the payer's eligibility response and its reference)."),
        _NOTE_LENGTH], render_kw={"rows": 2})


class OrderCoverageForm(FlaskForm):
    """The coverage an order is billed to (and authorized under)."""

    coverage_id = SelectField("Bill to coverage", id="order_coverage_id", choices=[], validators=[InputRequired()])
    reason = TextAreaField("Reason for the change", id="order_coverage_reason", validators=[
        Optional(), _NOTE_LENGTH], render_kw={"rows": 2})
