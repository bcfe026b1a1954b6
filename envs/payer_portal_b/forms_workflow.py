"""Forms of the precertification workflow: withdraw, change an approval, peer-to-peer and its outcome."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from admindesk.envs.payer_portal_b.fields import PortalDateField
from admindesk.envs.payer_portal_b.forms import PHONE, with_prompt
from admindesk.envs.payer_portal_b.rules.precert_rules import CHANGE_TYPES, P2P_OUTCOMES


class WithdrawForm(FlaskForm):
    reason = TextAreaField("Reason for Withdrawal", [DataRequired("Enter the reason for the withdrawal."),
                                                     Length(5, 500, "The reason must be 5 to 500 characters.")])


class ChangeForm(FlaskForm):
    """Extension, date change or units increase of an approved precertification."""

    change_type = SelectField("Change Requested", choices=with_prompt(CHANGE_TYPES),
                              validators=[DataRequired("Select the change you request.")])
    new_start = PortalDateField("New First Date of Service (DD-MMM-YYYY)", [Optional()],
                                description="Date change only.")
    new_end = PortalDateField("New Last Date of Service (DD-MMM-YYYY)", [Optional()], description="Extension only.")
    new_units = IntegerField("New Total Units (billing units)",
                             [Optional(), NumberRange(1, 99999, "Units must be between 1 and 99999.")])
    reason = TextAreaField("Clinical Reason for the Change", [DataRequired("Explain why the change is needed."),
                                                              Length(10, 2000, "The reason must be 10 to 2000 characters.")])


class PeerToPeerForm(FlaskForm):
    slot = SelectField("Available Slot (Eastern time)", validators=[DataRequired("Choose a slot.")])
    physician_name = StringField("Treating Physician", [DataRequired("Enter the physician who will take the call."),
                                                        Length(max=128)])
    callback_phone = StringField("Callback Phone", [DataRequired("Enter the callback phone number."), PHONE])


class PeerToPeerOutcomeForm(FlaskForm):
    outcome = SelectField("Peer-to-Peer Outcome", choices=with_prompt(P2P_OUTCOMES),
                          validators=[DataRequired("Select the outcome of the call.")])
    note = TextAreaField("Outcome Note", [DataRequired("Summarize the call."),
                                          Length(5, 1000, "The note must be 5 to 1000 characters.")])
