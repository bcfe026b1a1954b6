"""Keystone Mutual's forms: field names and messages in the payer's own vocabulary."""
from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    DecimalField,
    IntegerField,
    SelectChoice,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
    ValidationError,
)
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, Regexp

from admindesk.envs.payer_portal_b.fields import (
    DATE_FORMAT,
    MoneyField,
    PortalDateField,
    format_phone,
    split_codes,
    valid_npi,
)
from admindesk.envs.payer_portal_b.forms_continuation import ContinuationAnswers
from admindesk.envs.payer_portal_b.portal import DOCUMENT_TYPES
from admindesk.envs.payer_portal_b.rules.dme_bed import BED_INDICATIONS, POSITION_CHANGES
from admindesk.envs.payer_portal_b.rules.dme_clinical import (
    OXYGEN_GROUP_II_CONDITIONS,
    OXYGEN_TEST_STATES,
    OXYGEN_TESTERS,
    PAP_COMORBIDITIES,
)
from admindesk.envs.payer_portal_b.rules.genetic_testing import HEREDITARY_CRITERIA, NO_CRITERION
from admindesk.envs.payer_portal_b.rules.recovery_rules import RECOVERY_DISPUTE, WITHDRAW_RECOVERY
from admindesk.envs.payer_portal_b.rules.site_of_care import HOSPITAL_SITE_REASONS, NO_REASON
from admindesk.envs.payer_portal_b.rules.step_therapy import (
    CONVENTIONAL_AGENTS,
    OTHER_AGENTS,
    PREFERRED_BIOLOGICS,
    STEP_EXCEPTIONS,
    STEP_OUTCOMES,
    STEPS,
    trial_weeks,
)

SUBSCRIBER_ID = [DataRequired("Enter the Subscriber ID from the member's card."),
                 Regexp(r"^[A-Za-z0-9]{5,20}$", message="A Subscriber ID is 5 to 20 letters and digits.")]
SERVICE_CODE = [DataRequired("Enter a CPT or HCPCS code."),
                Regexp(r"^[A-Za-z0-9]{5}$", message="A CPT/HCPCS code is 5 letters or digits, e.g. 72148 or E0601.")]
PHONE = Regexp(r"^\(?\d{3}\)?[-. ]?\d{3}[-. ]?\d{4}$", message="Enter a 10-digit phone number.")


def options(pairs) -> list[SelectChoice]:
    """Select options from (value, label) pairs or plain values."""
    return [SelectChoice(*pair) if isinstance(pair, tuple) else SelectChoice(pair, pair) for pair in pairs]


def with_prompt(values) -> list[SelectChoice]:
    """Options led by an empty "Select..." choice, so that no answer is a validation error."""
    return options([("", "Select..."), *values])


YES_NO = options([("", "Not answered"), "No", "Yes"])
HOSPITAL_SITE_CHOICES = options([("", "Not applicable"), NO_REASON, *HOSPITAL_SITE_REASONS])
HEREDITARY_CHOICES = options([("", "Not applicable"), NO_CRITERION, *HEREDITARY_CRITERIA])
PLACES_OF_SERVICE = options([("11", "11 - Office"), ("12", "12 - Home"), ("19", "19 - Off-campus outpatient hospital"),
                             ("22", "22 - On-campus outpatient hospital"), ("24", "24 - Ambulatory surgical center"),
                             ("21", "21 - Inpatient hospital")])
DOC_TYPE_CHOICES = options(DOCUMENT_TYPES)
ATTACHMENT_SLOTS = 3
REQUEST_KINDS = ("Initial", "Continued coverage", "Replacement")
# Why an item is replaced (Keystone's replacement rule, dme_rules.py): an incident, or the end of its lifetime.
REPLACEMENT_REASONS = ("Loss", "Theft", "Irreparable damage (specific incident)", "Reasonable useful lifetime ended")
REPLACEMENT_MODIFIER = "RA"


def diagnosis_list(form, field) -> None:
    """1 to 12 ICD-10-CM codes shaped like A00 or A00.0000, separated by commas."""
    codes = split_codes(field.data)
    if not codes:
        raise ValidationError("Enter at least one ICD-10-CM diagnosis code.")
    if len(codes) > 12:
        raise ValidationError("Enter no more than 12 diagnosis codes.")
    for code in codes:
        if not (3 <= len(code) <= 8 and code[0].isalpha() and code[1:3].isalnum()):
            raise ValidationError(f"{code} is not an ICD-10-CM code (e.g. M54.16).")


class GetForm(FlaskForm):
    """Search forms sent with GET: no CSRF token (they change nothing)."""

    class Meta:
        csrf = False


class EligibilityForm(FlaskForm):
    subscriber_id = StringField("Subscriber ID", SUBSCRIBER_ID)
    dob = PortalDateField("Subscriber Date of Birth (DD-MMM-YYYY)",
                          [InputRequired("Enter the date of birth.")])
    service_date = PortalDateField("Date of Service (DD-MMM-YYYY)", [Optional()],
                                   description="Leave blank for today.")


class RequirementLookupForm(GetForm):
    code = StringField("CPT/HCPCS code", SERVICE_CODE)


class ClinicalAnswers:
    """The clinical fields the medical policies' rules read (shared by two forms)."""

    conservative_therapy_weeks = IntegerField("Weeks of conservative therapy / prior treatment completed",
                                              [Optional(), NumberRange(0, 520, "Enter weeks between 0 and 520.")])
    red_flag_symptoms = SelectField("Red-flag symptoms, mechanical symptoms or acute injury documented?",
                                    choices=YES_NO, default="")
    prior_imaging = SelectField("Prior imaging (X-ray or other) of the area completed?", choices=YES_NO, default="")
    ahi = DecimalField("Apnea-Hypopnea Index (AHI), events/hour",
                       [Optional(), NumberRange(0, 150, "Enter an AHI between 0 and 150.")], places=1)
    spo2_rest = IntegerField("Resting SpO2 on room air (%)",
                             [Optional(), NumberRange(50, 100, "Enter an SpO2 between 50 and 100.")])
    hospital_site_reason = SelectField("Hospital outpatient infusion (place of service 19 or 22): documented reason",
                                       choices=HOSPITAL_SITE_CHOICES, default="",
                                       description="Site of care policy KM-RX-510; leave blank for another place of "
                                                   "service.")
    genetic_counseling = SelectField("Genetic testing: pre-test genetic counseling completed and documented?",
                                     choices=YES_NO, default="",
                                     description="Genetic testing policy KM-LAB-701; leave blank for other services.")
    hereditary_criterion = SelectField("Genetic testing: personal or family history criterion documented",
                                       choices=HEREDITARY_CHOICES, default="")
    changes_management = SelectField("Genetic testing: will the result change the member's management?",
                                     choices=YES_NO, default="")
    prior_germline_testing = SelectField("Genetic testing: germline testing of the same genes done before?",
                                         choices=YES_NO, default="")
    esi_repeat = SelectField("Epidural steroid injection: repeat (an earlier injection in the same region)?",
                             choices=YES_NO, default="",
                             description="Epidural steroid injection policy KM-PAIN-702; leave blank for other services.")
    esi_prior_relief_percent = IntegerField("ESI repeat: pain relief after the most recent injection (%)",
                                            [Optional(), NumberRange(0, 100, "Enter a relief between 0 and 100 percent.")])
    esi_relief_weeks = IntegerField("ESI repeat: weeks the relief lasted",
                                    [Optional(), NumberRange(0, 104, "Enter weeks between 0 and 104.")])
    esi_sessions_12_months = IntegerField("ESI: sessions in the same region in the 12 months before this one",
                                          [Optional(), NumberRange(0, 24, "Enter sessions between 0 and 24.")])

    def clinical_answers(self) -> dict:
        return {"conservative_therapy_weeks": self.conservative_therapy_weeks.data,
                "red_flag_symptoms": self.red_flag_symptoms.data or None,
                "prior_imaging": self.prior_imaging.data or None,
                "ahi": float(self.ahi.data) if self.ahi.data is not None else None,
                "spo2_rest": self.spo2_rest.data,
                "hospital_site_reason": self.hospital_site_reason.data or None,
                "genetic_counseling": self.genetic_counseling.data or None,
                "hereditary_criterion": self.hereditary_criterion.data or None,
                "changes_management": self.changes_management.data or None,
                "prior_germline_testing": self.prior_germline_testing.data or None,
                "esi_repeat": self.esi_repeat.data or None,
                "esi_prior_relief_percent": self.esi_prior_relief_percent.data,
                "esi_relief_weeks": self.esi_relief_weeks.data,
                "esi_sessions_12_months": self.esi_sessions_12_months.data}


class StepTherapyAnswers:
    """The request's Step Therapy section (policy KM-RX-505): each step's drug, the dates it was
    taken and why it was stopped. The weeks the policy reads are counted from the dates."""

    step1_drug = SelectField("Step 1 (conventional agent): drug", default="",
                             choices=options([("", "Not applicable"), *CONVENTIONAL_AGENTS, *OTHER_AGENTS]),
                             description="Step therapy policy KM-RX-505; leave blank for other services.")
    step1_start = PortalDateField("Step 1: start date (DD-MMM-YYYY)", [Optional()])
    step1_end = PortalDateField("Step 1: stop date (DD-MMM-YYYY)", [Optional()])
    step1_outcome = SelectField("Step 1: outcome", choices=options([("", "Not answered"), *STEP_OUTCOMES]),
                                default="")
    step2_drug = SelectField("Step 2 (preferred biologic): drug", default="",
                             choices=options([("", "Not applicable"), *PREFERRED_BIOLOGICS, *OTHER_AGENTS]))
    step2_start = PortalDateField("Step 2: start date (DD-MMM-YYYY)", [Optional()])
    step2_end = PortalDateField("Step 2: stop date (DD-MMM-YYYY)", [Optional()])
    step2_outcome = SelectField("Step 2: outcome", choices=options([("", "Not answered"), *STEP_OUTCOMES]),
                                default="")

    def _step_fields(self, step: str):
        return (getattr(self, f"{step}_{part}") for part in ("drug", "start", "end", "outcome"))

    def _check_step(self, step: str) -> None:
        """A step names its drug and outcome together; a drug that was taken has both dates, in order."""
        drug, start, end, outcome = self._step_fields(step)
        number = step[-1]
        if drug.data and not outcome.data:
            raise ValidationError(f"Select the outcome of the step {number} drug.")
        if outcome.data and not drug.data:
            raise ValidationError(f"Select the step {number} drug.")
        if outcome.data and outcome.data != STEP_EXCEPTIONS[1] and not (start.data and end.data):
            raise ValidationError(f"Enter the step {number} drug's start and stop dates (DD-MMM-YYYY); only a "
                                  "contraindication (never started) has none.")
        if start.data and end.data and end.data < start.data:
            raise ValidationError(f"The step {number} stop date cannot be before its start date.")

    def validate_step1_outcome(self, field) -> None:
        self._check_step("step1")

    def validate_step2_outcome(self, field) -> None:
        self._check_step("step2")

    def step_answers(self) -> dict:
        answers: dict = {}
        for step in STEPS:
            drug, start, end, outcome = self._step_fields(step)
            answers |= {f"{step}_drug": drug.data or None, f"{step}_outcome": outcome.data or None,
                        f"{step}_start": start.data.isoformat() if start.data else None,
                        f"{step}_end": end.data.isoformat() if end.data else None,
                        f"{step}_weeks": trial_weeks(start.data, end.data)}
        return answers


def service_span(start, end) -> None:
    """The last date of service is on or after the first, at most a year later."""
    if start and end and end < start:
        raise ValidationError("The last date of service cannot be before the first.")
    if start and end and (end - start).days > 365:
        raise ValidationError("A request can span at most one year.")


class PrecertForm(FlaskForm, ClinicalAnswers, StepTherapyAnswers, ContinuationAnswers):
    """The one long precertification request form."""

    subscriber_id = StringField("Subscriber ID", SUBSCRIBER_ID)
    subscriber_dob = PortalDateField("Subscriber Date of Birth (DD-MMM-YYYY)",
                                     [InputRequired("Enter the date of birth.")])
    rendering_npi = StringField("Rendering Provider NPI", [DataRequired("Enter the Rendering Provider NPI."), valid_npi])
    referring_npi = StringField("Referring Provider NPI", [Optional(), valid_npi])
    place_of_service = SelectField("Place of Service", choices=PLACES_OF_SERVICE, default="11")
    urgency = SelectField("Review Type", choices=options([("Standard", "Standard (15 days)"),
                                                          ("Urgent", "Urgent (72 hours)")]))
    admission_type = SelectField("Admission Type", choices=options(["Elective", ("Emergent", "Emergent admission")]),
                                 default="Elective",
                                 description="Retro-authorization: emergent admissions only, within 2 business days.")
    service_code = StringField("Service Code (CPT/HCPCS)", SERVICE_CODE)
    units = IntegerField("Units Requested", [InputRequired("Enter the number of units."),
                                             NumberRange(1, 999, "Units must be between 1 and 999.")], default=1)
    service_code_2 = StringField("Line 2 Service Code (optional)", [Optional(), Regexp(r"^[A-Za-z0-9]{5}$",
                                 message="A CPT/HCPCS code is 5 letters or digits.")])
    units_2 = IntegerField("Line 2 Units", [Optional(), NumberRange(1, 999, "Units must be between 1 and 999.")])
    service_code_3 = StringField("Line 3 Service Code (optional)", [Optional(), Regexp(r"^[A-Za-z0-9]{5}$",
                                 message="A CPT/HCPCS code is 5 letters or digits.")])
    units_3 = IntegerField("Line 3 Units", [Optional(), NumberRange(1, 999, "Units must be between 1 and 999.")])
    diagnosis_codes = StringField("Diagnosis Codes (ICD-10-CM, comma separated)", [diagnosis_list])
    start_date = PortalDateField("Date of Service From (DD-MMM-YYYY)", [InputRequired("Enter the first date of service.")])
    end_date = PortalDateField("Date of Service To (DD-MMM-YYYY)", [InputRequired("Enter the last date of service.")])
    clinical_summary = TextAreaField("Clinical Summary", [
        DataRequired("Describe the clinical history supporting the request."),
        Length(20, 4000, "The clinical summary must be 20 to 4000 characters.")])
    contact_name = StringField("Contact Name", [DataRequired("Enter the contact name."), Length(max=128)])
    contact_phone = StringField("Contact Phone", [DataRequired("Enter the contact phone number."), PHONE])
    document_type_1 = SelectField("Attachment 1 type", choices=DOC_TYPE_CHOICES)
    attachment_1 = FileField("Attachment 1 (PDF)")
    document_type_2 = SelectField("Attachment 2 type", choices=DOC_TYPE_CHOICES)
    attachment_2 = FileField("Attachment 2 (PDF)")
    document_type_3 = SelectField("Attachment 3 type", choices=DOC_TYPE_CHOICES)
    attachment_3 = FileField("Attachment 3 (PDF)")

    def extra_lines(self) -> list[tuple[str, int]]:
        """Lines 2 and 3 as (code, units) when a code is given (units default to 1)."""
        return [(code.data.strip().upper(), units.data or 1)
                for code, units in ((self.service_code_2, self.units_2), (self.service_code_3, self.units_3))
                if (code.data or "").strip()]

    def validate_end_date(self, field) -> None:
        service_span(self.start_date.data, field.data)


class FaxRequestForm(FlaskForm):
    """The Precertification Request Fax Form of a fax-only policy, filled in online; the
    service code is one of the policy's (its choices are set by the view)."""

    subscriber_name = StringField("Subscriber Name", [DataRequired("Enter the subscriber's name."), Length(max=128)])
    subscriber_id = StringField("Subscriber ID", SUBSCRIBER_ID)
    subscriber_dob = PortalDateField("Subscriber Date of Birth (DD-MMM-YYYY)",
                                     [InputRequired("Enter the date of birth.")])
    rendering_name = StringField("Rendering Provider Name", [DataRequired("Enter the Rendering Provider name."),
                                                             Length(max=128)])
    rendering_npi = StringField("Rendering Provider NPI", [DataRequired("Enter the Rendering Provider NPI."), valid_npi])
    # Optional, but named and numbered together (no Optional(): it would skip the check of the pair).
    referring_name = StringField("Referring Provider Name", [Length(max=128)])
    referring_npi = StringField("Referring Provider NPI", [valid_npi])
    contact_name = StringField("Contact Name", [DataRequired("Enter the contact name."), Length(max=128)])
    contact_phone = StringField("Contact Phone", [DataRequired("Enter the contact phone number."), PHONE])
    contact_fax = StringField("Contact Fax", [Optional(), PHONE])
    service_code = SelectField("Service Code (CPT/HCPCS)", validators=[DataRequired("Select the service code.")])
    units = IntegerField("Units Requested", [InputRequired("Enter the number of units."),
                                             NumberRange(1, 999, "Units must be between 1 and 999.")], default=1)
    diagnosis_codes = StringField("Diagnosis Codes (ICD-10-CM, comma separated)", [diagnosis_list])
    start_date = PortalDateField("Date of Service From (DD-MMM-YYYY)", [InputRequired("Enter the first date of service.")])
    end_date = PortalDateField("Date of Service To (DD-MMM-YYYY)", [InputRequired("Enter the last date of service.")])
    urgency = SelectField("Review Type", choices=options([("Standard", "Standard (15 days)"),
                                                          ("Urgent", "Urgent (72 hours)")]))
    clinical_summary = TextAreaField("Clinical Summary", [
        DataRequired("Describe the clinical history supporting the request."),
        Length(20, 4000, "The clinical summary must be 20 to 4000 characters.")])

    def validate_end_date(self, field) -> None:
        service_span(self.start_date.data, field.data)

    def validate_referring_name(self, field) -> None:
        if (self.referring_npi.data or "").strip() and not (field.data or "").strip():
            raise ValidationError("Enter the Referring Provider name with the NPI.")

    def validate_referring_npi(self, field) -> None:
        if (self.referring_name.data or "").strip() and not (field.data or "").strip():
            raise ValidationError("Enter the Referring Provider NPI with the name.")

    def entries(self) -> dict[str, str]:
        """The form's fields as printed on the PDF (fax_form.SECTIONS keys)."""
        def provider(name, npi) -> str:
            return f"{name.data.strip()}, NPI {npi.data.strip()}" if (npi.data or "").strip() else ""

        contact = f"{self.contact_name.data.strip()}, phone {format_phone(_digits(self.contact_phone.data))}"
        if (self.contact_fax.data or "").strip():
            contact += f", fax {format_phone(_digits(self.contact_fax.data))}"
        return {
            "subscriber_name": self.subscriber_name.data.strip(),
            "subscriber_id": self.subscriber_id.data.strip().upper(),
            "subscriber_dob": self.subscriber_dob.data.strftime(DATE_FORMAT),
            "rendering_provider": provider(self.rendering_name, self.rendering_npi),
            "referring_provider": provider(self.referring_name, self.referring_npi),
            "contact": contact,
            "service_code": self.service_code.data,
            "units": str(self.units.data),
            "diagnosis_codes": ", ".join(split_codes(self.diagnosis_codes.data)),
            "service_dates": " / ".join(day.strftime(DATE_FORMAT) for day in (self.start_date.data, self.end_date.data)),
            "review_type": "Urgent - 72 hours" if self.urgency.data == "Urgent" else "Standard",
            "clinical_summary": " ".join(self.clinical_summary.data.split()),
        }


def _digits(phone: str) -> str:
    return "".join(ch for ch in phone if ch.isdigit())


class AdditionalInfoForm(FlaskForm, ClinicalAnswers):
    """Documents (and corrected answers) sent for a pended request."""

    document_type = SelectField("Document type", choices=DOC_TYPE_CHOICES)
    attachment = FileField("Document (PDF)")


class ClaimSearchForm(GetForm):
    claim_number = StringField("Claim Number", [Optional(), Length(max=20)])
    subscriber_id = StringField("Subscriber ID", [Optional(), Length(max=20)])
    service_from = PortalDateField("Date of Service From (DD-MMM-YYYY)", [Optional()])
    service_to = PortalDateField("Date of Service To (DD-MMM-YYYY)", [Optional()])


APPEAL_RELATIONSHIPS = ["Rendering provider", "Billing office staff", "Authorized representative",
                        "Subscriber", "Parent or guardian"]
# A payment dispute needs no attachment (the reimbursement page says so), nor does a dispute of
# an overpayment recovery (Keystone reviews both from its own claim records).
PAYMENT_DISPUTE = "Payment amount"
NO_ATTACHMENT_NEEDED = (PAYMENT_DISPUTE, RECOVERY_DISPUTE)
APPEAL_REASONS = ["Medical necessity", "Precertification / authorization on file", "Coding or billing error",
                  "Timely filing", "Benefit or eligibility determination", PAYMENT_DISPUTE, RECOVERY_DISPUTE]
APPEAL_OUTCOMES = ["Overturn the denial and pay the claim", "Reprocess the claim with corrections",
                   "Adjust the payment amount", "Reconsider the benefit determination", WITHDRAW_RECOVERY]


APPEAL_LEVELS = options([("1", "Level 1"), ("2", "Level 2"), ("External review", "External review")])
APPEAL_KINDS = ["Reconsideration", "Formal appeal", "Clinical appeal"]


class AppealBasics(FlaskForm):
    """What every Keystone appeal states: level, type, appellant, explanation, attestation, letter.

    On its own it is the pre-service appeal form (of a denied precertification).
    """

    level = SelectField("Appeal Level", choices=APPEAL_LEVELS, default="1")
    kind = SelectField("Appeal Type", choices=with_prompt(APPEAL_KINDS),
                       validators=[DataRequired("Select the appeal type.")])
    appellant_name = StringField("Appellant Name", [DataRequired("Enter the appellant's name."), Length(max=128)])
    appellant_relationship = SelectField("Appellant Relationship to Subscriber",
                                         choices=with_prompt(APPEAL_RELATIONSHIPS),
                                         validators=[DataRequired("Select the appellant's relationship.")])
    explanation = TextAreaField("Detailed Explanation", [
        DataRequired("Explain why the determination should change."),
        Length(50, 8000, "The explanation must be 50 to 8000 characters.")])
    attestation = BooleanField("I attest that the information in this appeal is true and complete.",
                               [DataRequired("You must attest before the appeal can be filed.")])
    document_type_1 = SelectField("Attachment 1 type", choices=DOC_TYPE_CHOICES, default="Letter of medical necessity")
    attachment_1 = FileField("Attachment 1 (PDF, required)")


class AppealForm(AppealBasics):
    """Keystone Mutual's Provider Appeal Form (form KM-APL-1)."""

    claim_number = StringField("Claim Number", [DataRequired("Enter the claim number."), Length(max=20)])
    attachment_1 = FileField("Attachment 1 (PDF, required except for a payment amount or overpayment "
                             "recovery dispute)")
    service_date = PortalDateField("Date of Service (DD-MMM-YYYY)", [InputRequired("Enter the date of service.")])
    billed_amount = MoneyField("Billed Amount ($)", [InputRequired("Enter the billed amount."),
                                                      NumberRange(0.01, 10_000_000, "Enter an amount above $0.")],
                                 places=2)
    reason_category = SelectField("Appeal Reason Category", choices=with_prompt(APPEAL_REASONS),
                                  validators=[DataRequired("Select the reason category.")])
    requested_outcome = SelectField("Requested Outcome", choices=with_prompt(APPEAL_OUTCOMES),
                                    validators=[DataRequired("Select the outcome you request.")])
    document_type_2 = SelectField("Attachment 2 type", choices=DOC_TYPE_CHOICES, default="Clinical notes")
    attachment_2 = FileField("Attachment 2 (PDF)")


class DmeForm(FlaskForm):
    """Keystone Mutual's DME request (one page)."""

    subscriber_id = StringField("Subscriber ID", SUBSCRIBER_ID)
    subscriber_dob = PortalDateField("Subscriber Date of Birth (DD-MMM-YYYY)",
                                     [InputRequired("Enter the date of birth.")])
    hcpcs_code = StringField("HCPCS Code", SERVICE_CODE)
    quantity = IntegerField("Quantity", [InputRequired("Enter the quantity."),
                                         NumberRange(1, 99, "Quantity must be between 1 and 99.")], default=1)
    diagnosis_codes = StringField("Diagnosis Codes (ICD-10-CM, comma separated)", [diagnosis_list])
    ordering_npi = StringField("Ordering Provider NPI", [DataRequired("Enter the ordering provider's NPI."), valid_npi])
    supplier_npi = SelectField("DME Supplier", validators=[DataRequired("Select the DME supplier.")])
    face_to_face_date = PortalDateField("Face-to-Face Evaluation Date (DD-MMM-YYYY)",
                                        [InputRequired("Enter the face-to-face evaluation date.")])
    order_date = PortalDateField("Detailed Written Order Date (DD-MMM-YYYY)",
                                 [InputRequired("Enter the date of the written order.")])
    ahi = DecimalField("Apnea-Hypopnea Index (AHI), events/hour",
                       [Optional(), NumberRange(0, 150, "Enter an AHI between 0 and 150.")], places=1)
    spo2_rest = IntegerField("Resting SpO2 on room air (%)",
                             [Optional(), NumberRange(50, 100, "Enter an SpO2 between 50 and 100.")])
    spo2_exertion = IntegerField("SpO2 with exertion (%)",
                                 [Optional(), NumberRange(50, 100, "Enter an SpO2 between 50 and 100.")])
    request_kind = SelectField("Request Type", choices=options(REQUEST_KINDS), default="Initial")
    sleep_test_date = PortalDateField("Sleep Test Date (DD-MMM-YYYY)", [Optional()])
    comorbidities = SelectMultipleField("Documented Comorbidities (AHI 5-14)", choices=options(PAP_COMORBIDITIES),
                                        validate_choice=True)
    spo2_on_oxygen = IntegerField("SpO2 with exertion on oxygen (%)",
                                  [Optional(), NumberRange(50, 100, "Enter an SpO2 between 50 and 100.")])
    pao2 = IntegerField("PaO2 on room air (mmHg)", [Optional(), NumberRange(20, 150, "Enter a PaO2 between 20 and 150.")])
    oxygen_conditions = SelectMultipleField("Group II Findings", choices=options(OXYGEN_GROUP_II_CONDITIONS))
    hematocrit = DecimalField("Hematocrit (%)", [Optional(), NumberRange(10, 80, "Enter a hematocrit between 10 and 80.")],
                              places=1)
    oxygen_test_date = PortalDateField("Oxygen Test Date (DD-MMM-YYYY)", [Optional()])
    oxygen_test_by = SelectField("Oxygen Test Performed By", choices=with_prompt(OXYGEN_TESTERS), default="")
    oxygen_test_state = SelectField("Member's State at Testing", choices=with_prompt(OXYGEN_TEST_STATES), default="")
    bed_indication = SelectField("Hospital Bed: Qualifying Condition", choices=with_prompt(BED_INDICATIONS), default="")
    bed_position_changes = SelectField("Semi-Electric Bed: Body Position Changes", choices=with_prompt(POSITION_CHANGES),
                                       default="")
    initial_request_id = StringField("Prior DME Request ID (continued coverage: the approved trial; replacement: "
                                     "the item replaced)", [Optional(), Length(max=20)])
    replacement_reason = SelectField("Replacement Reason", choices=with_prompt(REPLACEMENT_REASONS), default="")
    replacement_date = PortalDateField("Planned Replacement Delivery (DD-MMM-YYYY)", [Optional()])
    modifier = StringField("HCPCS Modifier", [Optional(), Length(max=2)])
    device_setup_date = PortalDateField("Device Setup Date (DD-MMM-YYYY)", [Optional()])
    adherence_start = PortalDateField("Adherence Period Start (DD-MMM-YYYY, 30 days)", [Optional()])
    nights_4h = IntegerField("Nights with 4+ Hours of Use in the Period",
                             [Optional(), NumberRange(0, 30, "Enter 0 to 30 nights.")])
    written_order = FileField("Detailed Written Order (PDF, required)")
    document_type_2 = SelectField("Supporting document type", choices=DOC_TYPE_CHOICES, default="Sleep study report")
    attachment_2 = FileField("Supporting document (PDF)")
    document_type_3 = SelectField("Second supporting document type", choices=DOC_TYPE_CHOICES, default="Clinical notes")
    attachment_3 = FileField("Second supporting document (PDF)")

    def validate_face_to_face_date(self, field) -> None:
        # Continued coverage gives the re-evaluation during the trial, after the trial's written order.
        if self.request_kind.data == "Continued coverage":
            return
        if field.data and self.order_date.data and field.data > self.order_date.data:
            raise ValidationError("The face-to-face evaluation must be on or before the order date.")

    def validate_request_kind(self, field) -> None:
        if field.data == "Replacement":
            if not (self.initial_request_id.data and self.replacement_reason.data and self.replacement_date.data):
                raise ValidationError("A replacement request needs the DME request ID of the item replaced, the "
                                      "replacement reason and the planned replacement delivery date.")
            if (self.modifier.data or "").strip().upper() != REPLACEMENT_MODIFIER:
                raise ValidationError(f"A replacement of the same item is billed with HCPCS modifier "
                                      f"{REPLACEMENT_MODIFIER}: enter it in HCPCS Modifier.")
        if field.data == "Continued coverage" and not (self.initial_request_id.data and self.device_setup_date.data
                                                       and self.adherence_start.data and self.nights_4h.data is not None):
            raise ValidationError("A continued-coverage request needs the approved trial's DME request ID, the device "
                                  "setup date, the adherence period start and the nights with 4+ hours of use.")
