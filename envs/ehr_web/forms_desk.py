"""Forms of the queue desk: bulk actions on selected work items and saved views."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, InputRequired, Length

from admindesk.envs.ehr_web.forms import options, strip

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
