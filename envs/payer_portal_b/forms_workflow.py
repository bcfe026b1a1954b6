"""Forms of the precertification and claim workflows: withdraw, change, peer-to-peer, corrected claim."""
from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, NumberRange, Optional

from .fields import MoneyField, PortalDateField
from .forms import PHONE, diagnosis_list, options, with_prompt
from .precert_rules import CHANGE_TYPES

MODIFIER_HINT = "Two letters or digits each, comma separated (e.g. 25, RT)."
CORRECTION_LINES = 3


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


class CorrectedClaimForm(FlaskForm):
    """The replacement claim (frequency code 7) for a denied original."""

    frequency_code = SelectField("Claim Frequency Code", choices=options([("7", "7 - Replacement of prior claim")]))
    original_claim_number = StringField("Original Claim Number", [DataRequired("Enter the original claim number."),
                                                                  Length(max=20)])
    diagnosis_codes = StringField("Diagnosis Codes (ICD-10-CM, comma separated)", [diagnosis_list])
    authorization_number = StringField("Precertification / Authorization Number", [Optional(), Length(max=20)])
    correction_reason = TextAreaField("What Was Corrected", [DataRequired("Describe the correction."),
                                                             Length(10, 2000, "Describe it in 10 to 2000 characters.")])
    primary_eob = FileField("Primary Payer EOB (PDF, when Keystone Mutual is secondary)")
    code_1 = StringField("Line 1 CPT/HCPCS", [Optional(), Length(max=5)])
    modifiers_1 = StringField("Line 1 Modifiers", [Optional(), Length(max=20)], description=MODIFIER_HINT)
    units_1 = IntegerField("Line 1 Units", [Optional(), NumberRange(1, 9999, "Units must be 1 to 9999.")])
    charge_1 = MoneyField("Line 1 Charge ($)", [Optional(), NumberRange(0.01, 1_000_000, "Enter a charge above $0.")],
                           places=2)
    code_2 = StringField("Line 2 CPT/HCPCS", [Optional(), Length(max=5)])
    modifiers_2 = StringField("Line 2 Modifiers", [Optional(), Length(max=20)], description=MODIFIER_HINT)
    units_2 = IntegerField("Line 2 Units", [Optional(), NumberRange(1, 9999, "Units must be 1 to 9999.")])
    charge_2 = MoneyField("Line 2 Charge ($)", [Optional(), NumberRange(0.01, 1_000_000, "Enter a charge above $0.")],
                           places=2)
    code_3 = StringField("Line 3 CPT/HCPCS", [Optional(), Length(max=5)])
    modifiers_3 = StringField("Line 3 Modifiers", [Optional(), Length(max=20)], description=MODIFIER_HINT)
    units_3 = IntegerField("Line 3 Units", [Optional(), NumberRange(1, 9999, "Units must be 1 to 9999.")])
    charge_3 = MoneyField("Line 3 Charge ($)", [Optional(), NumberRange(0.01, 1_000_000, "Enter a charge above $0.")],
                           places=2)
