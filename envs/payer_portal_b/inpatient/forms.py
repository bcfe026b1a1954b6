"""Keystone Mutual's inpatient forms: the admission notification and the concurrent review."""
from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, RadioField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, Regexp

from admindesk.envs.payer_portal_b.fields import PortalDateField, valid_npi
from admindesk.envs.payer_portal_b.forms import SUBSCRIBER_ID, options, with_prompt
from admindesk.envs.payer_portal_b.rules.inpatient_rules import policy

ADMISSION_TYPES = ("Emergent", "Urgent", "Elective")
CONTINUED_STAY, DISCHARGE = "Continued stay", "Discharge"


class AdmissionNotificationForm(FlaskForm):
    """A new inpatient admission: member, when, where, by whom, what kind, why, and the clinical picture."""

    subscriber_id = StringField("Subscriber ID", SUBSCRIBER_ID)
    subscriber_dob = PortalDateField("Subscriber Date of Birth (DD-MMM-YYYY)",
                                     [InputRequired("Enter the date of birth.")])
    admit_date = PortalDateField("Admit Date (DD-MMM-YYYY)", [InputRequired("Enter the admit date.")])
    admit_time = StringField("Admit Time (HH:MM, 24-hour)", [
        DataRequired("Enter the admit time."),
        Regexp(r"^([01]\d|2[0-3]):[0-5]\d$", message="Enter the time as HH:MM on a 24-hour clock, e.g. 21:40.")])
    facility_npi = StringField("Facility NPI", [DataRequired("Enter the admitting facility's NPI."), valid_npi])
    attending_npi = StringField("Attending Physician NPI", [DataRequired("Enter the attending physician's NPI."),
                                                            valid_npi])
    admission_type = SelectField("Admission Type", [DataRequired("Select the admission type.")],
                                 choices=with_prompt(ADMISSION_TYPES))
    admitting_diagnosis = StringField("Admitting Diagnosis (ICD-10-CM)", [
        DataRequired("Enter the admitting diagnosis."),
        Regexp(r"^[A-Za-z]\d[0-9A-Za-z](\.[0-9A-Za-z]{1,4})?$", message="Enter one ICD-10-CM code, e.g. J18.9.")])
    clinical_summary = TextAreaField("Clinical Summary", [
        DataRequired("Enter the clinical summary: presentation, vital signs, treatment started."),
        Length(min=20, max=4000, message="The clinical summary is 20 to 4000 characters.")])


class ConcurrentReviewForm(FlaskForm):
    """A concurrent review of an open case: a clinical update asking for more days, or the discharge."""

    review_type = RadioField("Review Type", [InputRequired("Choose a continued-stay review or a discharge report.")],
                             choices=options([CONTINUED_STAY, DISCHARGE]))
    review_date = PortalDateField("Review Date (DD-MMM-YYYY)", [InputRequired("Enter the review date.")])
    clinical_update = TextAreaField("Clinical Update (from the latest progress note)",
                                    [Optional(), Length(max=4000)])
    days_requested = IntegerField("Additional Days Requested", [Optional(), NumberRange(1, 7, "Request 1 to 7 days.")])
    discharge_date = PortalDateField("Discharge Date (DD-MMM-YYYY)", [Optional()])
    disposition = SelectField("Discharge Disposition", [Optional()],
                              choices=with_prompt(policy()["dispositions"]))

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        if self.review_type.data == CONTINUED_STAY:
            if len((self.clinical_update.data or "").strip()) < 20:
                self.clinical_update.errors = [*self.clinical_update.errors,
                                               "Enter the clinical update (at least 20 characters)."]
                valid = False
            if not self.days_requested.errors and self.days_requested.data is None:
                self.days_requested.errors = [*self.days_requested.errors, "Enter the additional days requested."]
                valid = False
        elif self.review_type.data == DISCHARGE:
            if self.discharge_date.data is None and not self.discharge_date.errors:
                self.discharge_date.errors = [*self.discharge_date.errors, "Enter the discharge date."]
                valid = False
            if not self.disposition.data:
                self.disposition.errors = [*self.disposition.errors, "Select the discharge disposition."]
                valid = False
            if self.days_requested.data:
                self.days_requested.errors = [*self.days_requested.errors,
                                              "A discharge report requests no days: leave it blank."]
                valid = False
        return valid
