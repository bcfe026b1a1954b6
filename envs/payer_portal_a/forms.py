"""Forms of portal A: every field labelled, every rule with a clear message."""
from __future__ import annotations

from datetime import datetime

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import BooleanField, IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, Regexp, ValidationError

from admindesk.envs.common.network_access import NETWORK_EXCEPTION_REASONS
from admindesk.envs.payer_portal_a.organizations import REQUEST_TYPES, SERVICE_TYPES
from admindesk.envs.payer_portal_a.rules.appeal_decisions import KINDS, LEVELS

DATE_FORMAT = "%m/%d/%Y"
PLACES_OF_SERVICE = {
    "": "Select a place of service", "11": "11 - Office", "12": "12 - Home",
    "19": "19 - Off-campus outpatient hospital", "21": "21 - Inpatient hospital",
    "22": "22 - On-campus outpatient hospital", "23": "23 - Emergency room",
    "24": "24 - Ambulatory surgical center", "81": "81 - Independent laboratory",
}
APPEAL_REASONS = (
    "Authorization was on file", "Medical necessity", "Corrected coding or modifier",
    "Missing information now provided", "Timely filing proof", "Coordination of benefits",
    "Member eligible on date of service", "Other",
)


class USDateField(StringField):
    """A date typed as MM/DD/YYYY (a text box, as this portal's users expect)."""

    def __init__(self, label=None, validators=None, **kwargs):
        kwargs.setdefault("render_kw", {}).update(placeholder="MM/DD/YYYY", inputmode="numeric", autocomplete="off")
        super().__init__(label, validators, **kwargs)

    def _value(self):
        if self.raw_data:
            return self.raw_data[0]
        return self.data.strftime(DATE_FORMAT) if self.data else ""

    def process_formdata(self, valuelist):
        self.data = None
        text = (valuelist[0] if valuelist else "").strip()
        if text:
            try:
                self.data = datetime.strptime(text, DATE_FORMAT).date()
            except ValueError as exc:
                raise ValueError("Enter a valid date as MM/DD/YYYY.") from exc


def _required(what: str) -> InputRequired:
    return InputRequired(message=f"Enter {what}.")


# The shape of a member ID, for the required field of a transaction and the optional one of a search.
MEMBER_ID_FORMAT = [Length(max=20, message="A member ID is at most 20 characters."),
                    Regexp(r"^\s*[A-Za-z0-9]+\s*$", message="A member ID has letters and digits only.")]
MEMBER_ID = [_required("the member ID"), *MEMBER_ID_FORMAT]
PROCEDURE_CODE = [_required("a CPT or HCPCS code"),
                  Regexp(r"^\s*([0-9]{4}[0-9A-Za-z]|[A-Za-z][0-9]{4})\s*$",
                         message="A CPT/HCPCS code is 5 characters, e.g. 72148 or E0601.")]


class PayerForm(FlaskForm):
    payer_id = SelectField("Payer", validators=[InputRequired(message="Select a payer.")], validate_choice=False)

    def validate_payer_id(self, field):
        if not field.data or field.data not in field.choices:
            raise ValidationError("Select a payer.")


class PatientSearchForm(PayerForm):
    """Find a patient by member ID, or by last and first name; the date of birth always."""

    member_id = StringField("Member ID", validators=[Optional(), *MEMBER_ID_FORMAT])
    last_name = StringField("Patient last name", validators=[Optional(), Length(max=64, message="At most 64 characters.")])
    first_name = StringField("Patient first name", validators=[Optional(), Length(max=64, message="At most 64 characters.")])
    dob = USDateField("Patient date of birth", validators=[_required("the date of birth")])

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        named = (self.last_name.data or "").strip() and (self.first_name.data or "").strip()
        if not (self.member_id.data or "").strip() and not named:
            self.member_id.errors = [*self.member_id.errors, "Enter the member ID, or the patient's last and first name."]
            return False
        return valid


class EligibilityForm(PatientSearchForm):
    service_date = USDateField("Date of service", validators=[_required("the date of service")])


class AuthLookupForm(PayerForm):
    plan_id = SelectField("Plan", validators=[InputRequired(message="Select a plan.")], validate_choice=False)
    code = StringField("Procedure code (CPT/HCPCS)", validators=PROCEDURE_CODE)
    place_of_service = SelectField("Place of service", choices=PLACES_OF_SERVICE,
                                   validators=[InputRequired(message="Select a place of service.")])


def _select(message: str) -> list:
    return [InputRequired(message=message)]


class RegisteredSelect(SelectField):
    """A select of the account's registrations; a value not offered is refused with `message`."""

    def __init__(self, label, message: str, **kwargs):
        super().__init__(label, validators=_select(message), validate_choice=False, **kwargs)
        self.refusal = message

    def pre_validate(self, form):
        if self.data and self.data not in dict(self.choices):
            raise ValidationError(self.refusal)


class RequestHeaderForm(PatientSearchForm):
    """Step 1: who submits (organization, TIN), to whom, what kind of request, for whom."""

    organization_npi = RegisteredSelect("Organization", "Select a registered organization.")
    tin = RegisteredSelect("Tax ID (TIN)", "Select the organization's tax ID.")
    request_type = SelectField("Request type", choices={"": "Select a request type", **{t: t for t in REQUEST_TYPES}},
                               validators=_select("Select a request type."))
    service_type = SelectField("Service type", choices={"": "Select a service type", **{t: t for t in SERVICE_TYPES}},
                               validators=_select("Select a service type."))
    place_of_service = SelectField("Place of service", choices=PLACES_OF_SERVICE,
                                   validators=_select("Select a place of service."))


class ProviderStepForm(FlaskForm):
    requesting_npi = RegisteredSelect("Requesting (ordering) provider", "Select a registered requesting provider.")
    servicing_npi = RegisteredSelect("Rendering provider or facility", "Select the rendering provider or facility.")
    contact_name = StringField("Office contact name", validators=[Optional(), Length(max=80, message="At most 80 characters.")])
    contact_phone = StringField("Office contact phone", validators=[
        Optional(), Regexp(r"^\D*(\d\D*){10}$", message="Enter a 10-digit phone number.")])


class ServiceLineForm(FlaskForm):
    code = StringField("Procedure code (CPT/HCPCS)", validators=PROCEDURE_CODE)
    units = IntegerField("Units", validators=[InputRequired(message="Enter the number of units."),
                                              NumberRange(1, 9999, message="Units must be between 1 and 9999.")])
    diagnosis_codes = StringField("Diagnosis codes (ICD-10-CM, comma separated)", validators=[
        _required("at least one diagnosis code"), Length(max=80, message="At most 80 characters.")])
    from_date = USDateField("From date", validators=[_required("the from date")])
    to_date = USDateField("To date", validators=[_required("the to date")])
    place_of_service = SelectField("Place of service", choices=PLACES_OF_SERVICE,
                                   validators=[InputRequired(message="Select a place of service.")])

    def validate_to_date(self, field):
        if field.data and self.from_date.data and field.data < self.from_date.data:
            raise ValidationError("The to date must be on or after the from date.")


class AttachmentForm(FlaskForm):
    document_type = SelectField("Document type", validators=[InputRequired(message="Select a document type.")])
    file = FileField("PDF file")


class ReviewForm(FlaskForm):
    urgency = SelectField("Review timeframe", default="Standard", choices={
        "Standard": "Standard (decision within 7 calendar days)",
        "Expedited": "Expedited (decision within 72 hours: life, health or function at risk)"},
        validators=[DataRequired(message="Select the review timeframe.")])
    emergent = BooleanField("Retro request: the service was emergent (attested by the ordering provider)")
    attest = BooleanField("I attest that the information in this request is accurate and supported by the "
                          "medical record.", validators=[InputRequired(message="Confirm the attestation to submit.")])
    # Not Optional(): it would stop the chain before the urgency-dependent checks below.
    attesting_physician = StringField("Attesting physician (expedited requests)", validators=[
        Length(max=80, message="At most 80 characters.")])
    expedited_reason = TextAreaField("Clinical reason the standard timeframe would put the member at risk", validators=[
        Length(max=1000, message="At most 1,000 characters.")])

    network_exception = SelectField("Network exception (out-of-network servicing provider)", default="", choices={
        "": "Not requested (servicing provider in network)",
        **{reason: reason for reason in NETWORK_EXCEPTION_REASONS}})
    in_network_checked = TextAreaField("In-network providers checked (name, miles from the member, next available)",
                                       validators=[Length(max=1000, message="At most 1,000 characters.")])
    # Set by the view before validation: the servicing provider is outside a closed network plan's network.
    out_of_network = False

    def validate_network_exception(self, field):
        if self.out_of_network and not field.data:
            raise ValidationError("The servicing provider is not in this HMO/EPO plan's network: out-of-network "
                                  "services are covered only with an approved network exception. Select its reason.")
        if field.data and not self.out_of_network:
            raise ValidationError("A network exception is requested only for a servicing provider outside the "
                                  "plan's network.")

    def validate_in_network_checked(self, field):
        if self.network_exception.data and not (field.data or "").strip():
            raise ValidationError("A network exception lists the in-network providers checked and why none meets "
                                  "the access standard.")

    def validate_attesting_physician(self, field):
        if self.urgency.data == "Expedited" and not (field.data or "").strip():
            raise ValidationError("An expedited request names the treating physician who attests to the urgency.")

    def validate_expedited_reason(self, field):
        if self.urgency.data == "Expedited" and not (field.data or "").strip():
            raise ValidationError("An expedited request states the clinical reason the standard timeframe would "
                                  "put the member's life, health or function at risk.")


class AppealForm(FlaskForm):
    appeal_type = SelectField("Request type", choices={"": "Select a type", **{t: t for t in KINDS}},
                              validators=[InputRequired(message="Select a request type.")])
    level = SelectField("Appeal level", choices=LEVELS, default="1",
                        validators=[DataRequired(message="Select the appeal level.")])
    cited_auth_number = StringField("Authorization number on file (for an authorization denial)", validators=[
        Optional(), Length(max=24, message="An authorization number is at most 24 characters."),
        Regexp(r"^\s*[A-Za-z0-9-]+\s*$", message="An authorization number has letters, digits and dashes only.")])
    proof_of_filing_date = USDateField("Original filing date shown on your proof (for a timely filing denial)",
                                       validators=[Optional()])
    reason = SelectField("Reason", choices={"": "Select a reason", **{r: r for r in APPEAL_REASONS}},
                         validators=[InputRequired(message="Select a reason.")])
    contact_name = StringField("Contact name", validators=[_required("a contact name"),
                                                           Length(max=80, message="At most 80 characters.")])
    contact_phone = StringField("Contact phone", validators=[
        _required("a contact phone"), Regexp(r"^\D*(\d\D*){10}$", message="Enter a 10-digit phone number.")])
    letter_text = TextAreaField("Appeal letter", validators=[
        Optional(), Length(max=20000, message="The letter is limited to 20,000 characters.")])
    letter_file = FileField("Or upload the signed letter (PDF)")
    attachment_type = SelectField("Supporting document type", validators=[Optional()])
    attachment_file = FileField("Supporting document (PDF)")
