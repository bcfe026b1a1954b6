"""Forms of the desk: bulk actions on selected work items, saved views, staff messages."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length

from admindesk.envs.ehr_web.forms import options, strip
from admindesk.envs.ehr_web.models_desk import MESSAGE_PRIORITIES, MESSAGE_TYPES

BULK_ACTIONS = (("assign", "Assign selected to"), ("status", "Set status of selected to"))


class BulkActionForm(FlaskForm):
    """One action for every checked item of a queue page (the ids come as `item_ids`)."""

    action = SelectField("Bulk action", choices=options(BULK_ACTIONS), validators=[InputRequired()])
    # No Optional(): it would let a blank-looking value (" ") skip the check against the choices.
    assignee = SelectField("Assignee", choices=[])
    status = SelectField("New status", choices=[])


class SavedViewForm(FlaskForm):
    """Save the queue's current filters, tab and sort under a name."""

    name = StringField("View name", validators=[DataRequired("Enter a name for the view."),
                                                Length(max=60, message="View names are limited to 60 characters.")],
                       filters=[strip], render_kw={"size": 18, "placeholder": "e.g. My urgent items"})
    query = HiddenField()


class StaffMessageForm(FlaskForm):
    """A message to a clinician about the patient; the recipients and the patient's orders are
    the view's choices."""

    to_npi = SelectField("To", choices=[], validators=[InputRequired("Choose the clinician to send it to.")])
    message_type = SelectField("Type", choices=options((("", "Select..."), *MESSAGE_TYPES)),
                               validators=[InputRequired("Choose what the message asks for.")])
    priority = SelectField("Priority", choices=options(MESSAGE_PRIORITIES), default="Routine")
    order_id = SelectField("Regarding order", choices=[])
    subject = StringField("Subject", validators=[DataRequired("Enter a subject."), Length(
        max=120, message="Subjects are limited to 120 characters.")], filters=[strip], render_kw={"size": 60})
    body = TextAreaField("Message", validators=[DataRequired("Write the message."), Length(
        max=2000, message="Messages are limited to 2,000 characters.")], filters=[strip], render_kw={"rows": 8})
