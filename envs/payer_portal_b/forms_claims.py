"""The corrected claim form (frequency code 7 or 8) with its service lines."""
from __future__ import annotations

import re

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    DecimalField,
    FieldList,
    Form,
    FormField,
    IntegerField,
    SelectField,
    StringField,
    TextAreaField,
    ValidationError,
)
from wtforms.validators import DataRequired, Length, NumberRange, Optional, Regexp

from admindesk.envs.payer_portal_b.fields import MoneyField, PortalDateField
from admindesk.envs.payer_portal_b.forms import diagnosis_list, with_prompt
from admindesk.envs.payer_portal_b.rules.claim_rules import FREQUENCY_CODES

LINE_SLOTS = 4
MODIFIERS = Regexp(r"^\s*([A-Za-z0-9]{2}\s*(,\s*|\s+)?){0,4}$",
                   message="Modifiers are up to four 2-character codes, e.g. 25, RT.")


NDC_QUALIFIER = "N4"  # the X12 qualifier that says the product ID is an NDC in 5-4-2 format
NDC_UNITS = {"UN": "Unit", "ML": "Milliliter", "GR": "Gram", "F2": "International unit"}
NDC_DIGITS = re.compile(r"^\d{11}$")
NDC_5_4_2 = re.compile(r"^\d{5}-\d{4}-\d{2}$")


def ndc_digits(text: str) -> str:
    """An NDC as its digits alone (hyphens and spaces dropped)."""
    return re.sub(r"[\s-]", "", text or "")


class ClaimLineForm(Form):
    """One service line; a line with no code is left out. A drug line also carries the NDC of
    the product given: qualifier N4, the 11-digit NDC, its unit of measure and quantity."""

    code = StringField("Procedure Code", [Optional(), Regexp(r"^[A-Za-z0-9]{5}$",
                                                             message="A CPT/HCPCS code is 5 letters or digits.")])
    modifiers = StringField("Modifiers", [Optional(), MODIFIERS])
    units = IntegerField("Units", [Optional(), NumberRange(1, 9999, "Units must be between 1 and 9999.")])
    charge = MoneyField("Charge ($)", [Optional(), NumberRange(0.01, 999999, "Enter a charge above $0.")], places=2)
    ndc_qualifier = StringField("NDC Qualifier", [Optional()])
    ndc = StringField("NDC (11 digits, 5-4-2)", [Optional()])
    ndc_unit = StringField("NDC Unit of Measure (UN, ML, GR, F2)", [Optional()])
    ndc_quantity = DecimalField("NDC Quantity", [Optional(), NumberRange(0.001, 99999.999,
                                                                       "The NDC quantity must be above 0.")],
                                places=3)

    def validate_code(self, field) -> None:
        if field.data and (self.units.data is None or self.charge.data is None):
            raise ValidationError("A line with a code needs its units and charge.")

    def validate_ndc_qualifier(self, field) -> None:
        if field.data and field.data.strip().upper() != NDC_QUALIFIER:
            raise ValidationError(f"The product ID qualifier for an NDC is {NDC_QUALIFIER}.")

    def validate_ndc(self, field) -> None:
        given = (self.ndc_qualifier.data, field.data, self.ndc_unit.data, self.ndc_quantity.data)
        if not any(value not in (None, "") for value in given):
            return
        if not all(value not in (None, "") for value in given):
            raise ValidationError("An NDC is reported with all four fields: qualifier N4, the NDC, its unit of "
                                  "measure and its quantity.")
        text = field.data.strip()
        if not NDC_DIGITS.match(ndc_digits(text)) or ("-" in text and not NDC_5_4_2.match(text)):
            raise ValidationError("An NDC on a claim has 11 digits in the 5-4-2 format (e.g. 12345-6789-01); a "
                                  "10-digit NDC as printed on the package needs a leading zero in its short "
                                  "segment.")

    def validate_ndc_unit(self, field) -> None:
        if field.data and field.data.strip().upper() not in NDC_UNITS:
            raise ValidationError("The NDC unit of measure is one of " + ", ".join(
                f"{code} ({name})" for code, name in NDC_UNITS.items()) + ".")

    def ndc_fields(self) -> dict:
        """The line's NDC, normalised (11 digits, upper-case codes), or nothing when none is given."""
        if not self.ndc.data:
            return {}
        return {"ndc_qualifier": self.ndc_qualifier.data.strip().upper(), "ndc": ndc_digits(self.ndc.data),
                "ndc_unit": self.ndc_unit.data.strip().upper(), "ndc_quantity": float(self.ndc_quantity.data)}


class CorrectedClaimForm(FlaskForm):
    """A replacement or void of an adjudicated claim, with COB and timely-filing proof."""

    frequency_code = SelectField("Claim Frequency Code", choices=with_prompt(
        [(code, f"{code} - {label}") for code, label in FREQUENCY_CODES.items()]),
        validators=[DataRequired("Select the claim frequency code (7 or 8).")])
    authorization_number = StringField("Authorization Number", [Optional(), Length(max=20)])
    diagnosis_codes = StringField("Diagnosis Codes (ICD-10-CM, comma separated)", [diagnosis_list])
    lines = FieldList(FormField(ClaimLineForm), min_entries=LINE_SLOTS, max_entries=LINE_SLOTS)
    correction_reason = TextAreaField("Reason for the Correction", [
        DataRequired("Explain what the corrected claim changes."),
        Length(10, 1000, "The reason must be 10 to 1000 characters.")])
    primary_payer = StringField("Primary Payer (when Keystone is secondary)", [Optional(), Length(max=128)])
    primary_paid_amount = MoneyField("Primary Payer Paid Amount ($)",
                                     [Optional(), NumberRange(0, 999999, "Enter an amount of $0 or more.")], places=2)
    primary_eob = FileField("Primary Payer's EOB (PDF)")
    clearinghouse_report_number = StringField("Clearinghouse Acceptance Report Number",
                                              [Optional(), Length(max=32)])
    clearinghouse_accepted_on = PortalDateField("Clearinghouse Acceptance Date (DD-MMM-YYYY)", [Optional()])

    def entered_lines(self) -> list[dict]:
        """The lines with a code, numbered in order."""
        rows = [line for line in self.lines if line.code.data]
        return [{"line_no": number, "code": row.code.data.strip().upper(),
                 "modifiers": ",".join(row.modifiers.data.replace(",", " ").upper().split()),
                 "units": row.units.data, "charge": float(row.charge.data)} | row.form.ndc_fields()
                for number, row in enumerate(rows, start=1)]

    def validate_frequency_code(self, field) -> None:
        if field.data == "7" and not any(line.code.data for line in self.lines):
            raise ValidationError("A replacement claim needs at least one service line.")

    def validate(self, extra_validators=None) -> bool:
        """Field validators, then: proof of timely filing is the report number and its date together."""
        valid = super().validate(extra_validators)
        date_field = self.clearinghouse_accepted_on
        if not date_field.errors and bool(date_field.data) != bool((self.clearinghouse_report_number.data or "").strip()):
            date_field.errors = [*date_field.errors,
                                 "Proof of timely filing needs both the report number and the acceptance date."]
            return False
        return valid
