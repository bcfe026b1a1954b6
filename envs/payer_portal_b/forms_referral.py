"""Keystone Mutual's HMO referral form (a PCP's referral of a subscriber to a specialist)."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, SelectField, StringField
from wtforms.validators import DataRequired, InputRequired, NumberRange

from admindesk.envs.payer_portal_b.fields import PortalDateField, valid_npi
from admindesk.envs.payer_portal_b.forms import SUBSCRIBER_ID, diagnosis_list
from admindesk.envs.payer_portal_b.rules.referral_rules import MAX_VISITS


class ReferralForm(FlaskForm):
    """A new referral: who, from whom (the PCP of record), to whom, why, how many visits, from when."""

    subscriber_id = StringField("Subscriber ID", SUBSCRIBER_ID)
    subscriber_dob = PortalDateField("Subscriber Date of Birth (DD-MMM-YYYY)",
                                     [InputRequired("Enter the date of birth.")])
    referring_npi = StringField("Referring Provider (PCP) NPI",
                                [DataRequired("Enter the referring primary care physician's NPI."), valid_npi])
    specialist_npi = StringField("Specialist (Rendering Provider) NPI",
                                 [DataRequired("Enter the specialist's NPI."), valid_npi])
    specialty = SelectField("Specialty", [DataRequired("Select the specialty referred to.")], choices=[])
    diagnosis_codes = StringField("Diagnosis Codes (ICD-10-CM, comma separated)", [diagnosis_list])
    visits = IntegerField("Number of Visits", [InputRequired("Enter the number of visits."),
                                               NumberRange(1, MAX_VISITS, f"Visits must be between 1 and {MAX_VISITS}.")],
                          default=1)
    start_date = PortalDateField("Referral Start Date (DD-MMM-YYYY)", [InputRequired("Enter the referral start date.")])
