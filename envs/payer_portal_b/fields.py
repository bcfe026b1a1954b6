"""Form fields in Keystone Mutual's conventions: DD-MMM-YYYY dates, NPIs, code lists, phone numbers."""
from __future__ import annotations

from datetime import date, datetime

from wtforms import DecimalField, StringField, ValidationError

from admindesk.envs.common.npi import is_valid_npi

DATE_FORMAT = "%d-%b-%Y"
DATE_HINT = "DD-MMM-YYYY, for example 16-Nov-2026"


def parse_portal_date(text: str) -> date:
    """Parse `16-Nov-2026` (month name in any case); ValueError otherwise."""
    return datetime.strptime(text.strip(), DATE_FORMAT).date()


def iso_portal_date(text: str | None) -> str:
    """A date stored as ISO text (a JSON answer) shown as DD-MMM-YYYY; blank when absent."""
    return date.fromisoformat(text).strftime(DATE_FORMAT) if text else ""


class PortalDateField(StringField):
    """A text box holding a DD-MMM-YYYY date; `.data` is a date (or None when blank)."""

    def __init__(self, label=None, validators=None, **kwargs):
        render_kw = {"placeholder": "DD-MMM-YYYY", "autocomplete": "off", **kwargs.pop("render_kw", {})}
        super().__init__(label, validators, render_kw=render_kw, **kwargs)
        self.raw_text = ""

    def process_formdata(self, valuelist):
        self.raw_text = (valuelist[0] if valuelist else "").strip()
        self.data = None
        if self.raw_text:
            try:
                self.data = parse_portal_date(self.raw_text)
            except ValueError as exc:
                raise ValueError(f"Enter the date as {DATE_HINT}.") from exc

    def _value(self):
        if self.raw_text:
            return self.raw_text
        return self.data.strftime(DATE_FORMAT) if self.data else ""


def valid_npi(form, field) -> None:
    """WTForms validator: 10 digits with a correct NPI check digit (blank is left to Optional)."""
    value = (field.data or "").strip()
    if value and not is_valid_npi(value):
        raise ValidationError("Enter a valid 10-digit NPI.")


def split_codes(text: str | None) -> list[str]:
    """'M54.16, m51.26' -> ['M54.16', 'M51.26'] (commas or spaces between codes)."""
    return [part.upper() for part in (text or "").replace(",", " ").split() if part]


class MoneyField(DecimalField):
    """A dollar amount; "$2,097.27" is read as 2097.27 (coordinators copy amounts with symbols)."""

    def process_formdata(self, valuelist):
        cleaned = [value.replace("$", "").replace(",", "").strip() for value in valuelist]
        super().process_formdata(cleaned)


def format_phone(number: str | None) -> str:
    """Keystone writes phone and fax numbers with dots: '8005550177' -> '800.555.0177'; anything else unchanged."""
    if number and len(number) == 10 and number.isdigit():
        return f"{number[:3]}.{number[3:6]}.{number[6:]}"
    return number or ""
