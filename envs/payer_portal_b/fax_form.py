"""The payer's own "Precertification Request Fax Form" PDF for fax-only services: printed
blank for a pen, or filled in online (the policy's "Fill In Online" screen) and downloaded.

Every field sits on its own line as "<label>: <value>", blank as a rule of underscores, so
the precertification fax intake reads a received form back by its labels (`read_form`).
Rendered with the kit's deterministic PDF writer: the same entries give the same bytes.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT, format_phone
from admindesk.envs.payer_portal_b.models import MedicalPolicy, PayerProfile, PolicyCode, ProcedureCode

FORM_TITLE = "Precertification Request Fax Form"
BLANK = "______________________________"
# The form's fields in print order, by section: (key, label as printed).
SECTIONS = (
    ("SECTION 1 - SUBSCRIBER", (("subscriber_name", "Subscriber name"), ("subscriber_id", "Subscriber ID"),
                                ("subscriber_dob", "Subscriber date of birth (DD-MMM-YYYY)"))),
    ("SECTION 2 - PROVIDERS", (("rendering_provider", "Rendering provider name and NPI"),
                               ("referring_provider", "Referring provider name and NPI (if different)"),
                               ("contact", "Contact name, phone and fax"))),
    ("SECTION 3 - SERVICE REQUESTED", (("service_code", "CPT/HCPCS code"), ("units", "Units"),
                                       ("diagnosis_codes", "ICD-10-CM diagnosis codes"),
                                       ("service_dates", "Date of service from / to (DD-MMM-YYYY)"),
                                       ("review_type", "Review type (Standard or Urgent - 72 hours)"))),
    ("SECTION 4 - CLINICAL INFORMATION", (("clinical_summary", "Clinical summary"),)),
)
FORM_FIELDS = tuple(field for _section, fields in SECTIONS for field in fields)
# Fields the intake does not require: the referring provider is named only when different.
OPTIONAL_FIELDS = frozenset({"referring_provider"})
_NPI = re.compile(r"\b\d{10}\b")


def fax_form_filename(policy: MedicalPolicy) -> str:
    return f"Keystone_Mutual_Precertification_Fax_Form_{policy.policy_number}.pdf"


def policy_codes(session: Session, policy: MedicalPolicy) -> list[ProcedureCode]:
    """The service codes the policy covers, by code."""
    return list(session.scalars(select(ProcedureCode).join(PolicyCode, PolicyCode.code == ProcedureCode.code)
                                .where(PolicyCode.policy_number == policy.policy_number)
                                .order_by(ProcedureCode.code)))


def render_fax_form(session: Session, policy: MedicalPolicy, payer: PayerProfile,
                    entries: Mapping[str, str] | None = None) -> bytes:
    """The request form for one policy's services, with the fax number to send it to:
    blank, or filled with `entries` (field key -> text; a key left out stays blank)."""
    entries = entries or {}
    services = "; ".join(f"{c.code} {c.description}" for c in policy_codes(session, policy))
    fields = [
        ("Service", policy.title),
        ("Medical policy", f"{policy.policy_number} (effective {policy.effective_date.strftime(DATE_FORMAT)})"),
        ("Service codes", services),
        ("Fax completed form to", f"{format_phone(payer.precert_fax)} (Precertification)"),
        ("Appeals fax", format_phone(payer.appeals_fax)),
        ("Provider services", format_phone(payer.phone)),
    ]
    lines: list[str] = []
    for heading, section_fields in SECTIONS:
        lines.append(heading)
        lines.extend(f"{label}: {entries.get(key) or BLANK}" for key, label in section_fields)
        lines.append("")
    body = "\n".join([
        *lines,
        f"Required documentation: {policy.required_documentation}",
        "",
        "Criteria summary:",
        policy.criteria_text.strip(),
        "",
        f"Requests for {policy.title} are accepted by fax only. Fax this form with the clinical "
        f"documentation to Keystone Mutual Precertification at {format_phone(payer.precert_fax)}. "
        "Incomplete forms are returned without review.",
    ])
    return render_pdf(title=f"{FORM_TITLE} - {policy.title}", fields=fields, body=body,
                      letterhead=f"{payer.name}\nPrecertification Department\nPayer ID {payer.payer_code}",
                      footer=f"{payer.name} form KM-PRF-{policy.policy_number}")


def read_form(text: str) -> dict[str, str]:
    """A received form's entries by field key, as printed ("" for a blank or absent field)."""
    entries = {}
    for key, label in FORM_FIELDS:
        match = re.search(rf"^{re.escape(label)}:[ \t]*(.*)$", text, re.MULTILINE)
        value = match.group(1).strip() if match else ""
        entries[key] = "" if not value.strip("_ ") else value
    return entries


def missing_fields(entries: Mapping[str, str]) -> list[str]:
    """The labels of the required fields a received form leaves blank, in print order (a
    rendering provider without an NPI counts as blank)."""
    def blank(key: str) -> bool:
        value = entries.get(key, "")
        return not value or (key == "rendering_provider" and not _NPI.search(value))

    return [label for key, label in FORM_FIELDS if key not in OPTIONAL_FIELDS and blank(key)]
