"""Forms of the authorization lifecycle and of coverage work: record a change the payer
made to an authorization, verify a coverage, set the order of benefits.

Field-level checks live here; rules that depend on the record's current state (an
expired authorization cannot be extended...) live in auth_changes and coverage_changes.
"""
from __future__ import annotations

import re

from flask_wtf import FlaskForm
from wtforms import SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, Optional, ValidationError

from admindesk.envs.ehr_web.forms import (
    MAX_UNITS,
    NOTE_MAX_LENGTH,
    DateText,
    auth_number_check,
    date_kwargs,
    options,
    strip,
)
from admindesk.envs.ehr_web.models import COVERAGE_RANKS
from admindesk.envs.ehr_web.vocab import AUTH_CHANGES, VERIFICATION_RESULTS

_NOTE_LENGTH = Length(max=NOTE_MAX_LENGTH, message=f"Notes are limited to {NOTE_MAX_LENGTH} characters.")


def _units_check(_form, field) -> None:
    if field.data and (not field.data.isdigit() or not 1 <= int(field.data) <= MAX_UNITS):
        raise ValidationError(f"Enter a whole number from 1 to {MAX_UNITS}.")


# The fields each change records; a filled field the change does not use is refused rather
# than silently dropped.
FIELDS_USED = {"Extension": ("new_end_date", "new_units", "new_auth_number"),
               "Units increase": ("new_units", "new_auth_number"),
               "Date change": ("new_start_date", "new_end_date", "new_auth_number"),
               "Cancellation": (), "Withdrawal": ()}
# Each term, and the change that records it, as named when another change is given it.
_TERMS = {"new_start_date": ("start date", "a date change"),
          "new_end_date": ("end date", "an extension or a date change"),
          "new_units": ("approved units", "a units increase")}


class AuthorizationChangeForm(FlaskForm):
    """A change to the order's authorization: extension, units increase, date change,
    cancellation of an authorization or withdrawal of a pending request.

    Each change takes only its own fields: a cancellation or withdrawal ends the
    authorization and takes no new units, dates or authorization number; an extension keeps
    the start date, a units increase the dates, a date change the units."""

    change = SelectField("Change", choices=options([("", "- Select change -"), *AUTH_CHANGES]),
                         validators=[DataRequired("Choose the change to record.")])
    new_start_date = DateText("New start date", **date_kwargs())
    new_end_date = DateText("New end date", **date_kwargs())
    new_units = StringField("New approved units", validators=[Optional(), _units_check], filters=[strip],
                            render_kw={"size": 4})
    new_auth_number = StringField("New authorization number (if the payer issued one)",
                                  validators=[Optional(), Length(max=20), auth_number_check], filters=[strip])
    note = TextAreaField("Reason / payer reference", validators=[Optional(), _NOTE_LENGTH], render_kw={"rows": 2})

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        used = FIELDS_USED.get(self.change.data)
        if used is None:  # no valid change chosen: its own message says so
            return valid
        for name in ("new_start_date", "new_end_date", "new_units", "new_auth_number"):
            field = self[name]
            if not field.data or field.errors or name in used:
                continue
            if not used:
                field.errors.append(f"{self.change.data} records no new units, dates or authorization number: "
                                    "clear this field.")
            else:
                term, recorded_by = _TERMS[name]
                field.errors.append(f"{self.change.data} does not change the {term}: clear this field "
                                    f"({recorded_by} records it).")
            valid = False
        return valid


class VerifyCoverageForm(FlaskForm):
    """Record an eligibility check of one coverage."""

    coverage_id = SelectField("Coverage", choices=[], validators=[InputRequired()])
    result = SelectField("Eligibility result", choices=options([("", "- Select result -"), *VERIFICATION_RESULTS]),
                         validators=[DataRequired("Choose what the eligibility check returned.")])
    reference = StringField("Eligibility reference #", validators=[Optional(), Length(max=20), auth_number_check],
                            filters=[strip])
    note = TextAreaField("Note (optional)", validators=[Optional(), _NOTE_LENGTH], render_kw={"rows": 2})


RANK_CHOICES = options([(str(rank), label) for rank, label in COVERAGE_RANKS.items()])


class CoordinationOfBenefitsForm(FlaskForm):
    """The order of benefits: one rank select per coverage (`rank-<coverage id>`), and why."""

    reason = TextAreaField("Reason for the change", validators=[
        DataRequired("Say why the order of benefits changed (e.g. COB questionnaire, payer letter)."), _NOTE_LENGTH],
        render_kw={"rows": 2})


class BillOtherPayerForm(FlaskForm):
    """Bill a denied claim's service to another of the patient's coverages as a new claim."""

    coverage_id = SelectField("Bill to coverage", choices=[], validators=[InputRequired()])
    reason = TextAreaField("Why this payer", validators=[
        DataRequired("Say why this payer is responsible (e.g. the denying payer's remark or letter)."), _NOTE_LENGTH],
        render_kw={"rows": 2})


class PatientTransferForm(FlaskForm):
    """Transfer a denied claim's balance to the patient (self-pay), and why."""

    reason = TextAreaField("Reason", validators=[
        DataRequired("Say why the patient owes the balance (the eligibility found, dates, reference)."), _NOTE_LENGTH],
        render_kw={"rows": 3})


class ResubmitClaimForm(FlaskForm):
    """Send a claim again as an original claim (frequency 1), with the payer's filing deadline and
    what the payer's inquiry showed (its claim status, or its eligibility for a member it could
    not identify)."""

    filing_deadline = DateText("Payer's filing deadline", validators=[
        InputRequired("Enter the last day the payer accepts this claim (its timely filing limit).")], **date_kwargs())
    reason = TextAreaField("Payer inquiry result", validators=[
        DataRequired("Say what the payer's claim status inquiry showed (no claim on file), or its eligibility "
                     "inquiry (the member it holds)."), _NOTE_LENGTH],
        render_kw={"rows": 2})


# Who the patient is to the subscriber, as the 270/271 eligibility exchange names it.
RELATIONSHIPS = ("Self", "Spouse", "Child", "Other")
# A member id as payers print it on the card: letters and digits, a hyphen before a suffix.
MEMBER_ID_MESSAGE = "Enter the member ID as the payer prints it: 4 to 20 letters and digits, a hyphen before a suffix."


def member_id_check(_form, field) -> None:
    if field.data and not re.fullmatch(r"[A-Za-z0-9]{4,16}(-[A-Za-z0-9]{1,3})?", field.data):
        raise ValidationError(MEMBER_ID_MESSAGE)


class CorrectCoverageForm(FlaskForm):
    """Correct a registered coverage to the payer's enrollment: member id, subscriber, the
    patient's relationship to the subscriber, effective date, and where the correction came from."""

    # Own ids: the tab's verification and order-of-benefits forms have a coverage_id and a reason too,
    # and a label must name one control.
    coverage_id = SelectField("Coverage", id="correct_coverage_id", choices=[], validators=[InputRequired()])
    member_id = StringField("Member ID", validators=[DataRequired("Enter the member ID the payer holds."),
                                                     member_id_check], filters=[strip])
    subscriber_name = StringField("Subscriber name", validators=[
        DataRequired("Enter the subscriber (policy holder) as the payer holds them."), Length(max=128)],
        filters=[strip])
    relationship = SelectField("Patient's relationship to subscriber", choices=options(RELATIONSHIPS),
                               validators=[DataRequired()])
    effective_date = DateText("Effective date", validators=[InputRequired("Enter the date the coverage began.")],
                              **date_kwargs())
    reason = TextAreaField("Source of the correction", id="correct_reason", validators=[
        DataRequired("Say where the correction comes from (the payer's eligibility response and its reference, "
                     "the member's card)."), _NOTE_LENGTH], render_kw={"rows": 2})
