"""The payer's own "Precertification Request Fax Form" PDF for fax-only services.

Rendered with the kit's deterministic PDF writer: one policy always gives the same bytes.
"""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common.documents.pdf import render_pdf
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT, format_phone
from admindesk.envs.payer_portal_b.models import MedicalPolicy, PayerProfile, PolicyCode, ProcedureCode

BLANK = "______________________________"


def fax_form_filename(policy: MedicalPolicy) -> str:
    return f"Keystone_Mutual_Precertification_Fax_Form_{policy.policy_number}.pdf"


def render_fax_form(session: Session, policy: MedicalPolicy, payer: PayerProfile) -> bytes:
    """The blank request form for one policy's services, with the fax number to send it to."""
    codes = session.scalars(select(ProcedureCode).join(PolicyCode, PolicyCode.code == ProcedureCode.code)
                            .where(PolicyCode.policy_number == policy.policy_number).order_by(ProcedureCode.code))
    services = "; ".join(f"{c.code} {c.description}" for c in codes)
    fields = [
        ("Service", policy.title),
        ("Medical policy", f"{policy.policy_number} (effective {policy.effective_date.strftime(DATE_FORMAT)})"),
        ("Service codes", services),
        ("Fax completed form to", f"{format_phone(payer.precert_fax)} (Precertification)"),
        ("Appeals fax", format_phone(payer.appeals_fax)),
        ("Provider services", format_phone(payer.phone)),
    ]
    body = "\n".join([
        "SECTION 1 - SUBSCRIBER",
        f"Subscriber name: {BLANK}   Subscriber ID: {BLANK}",
        f"Date of birth (DD-MMM-YYYY): {BLANK}",
        "",
        "SECTION 2 - PROVIDERS",
        f"Rendering Provider name and NPI: {BLANK}",
        f"Referring Provider name and NPI: {BLANK}",
        f"Contact name, phone and fax: {BLANK}",
        "",
        "SECTION 3 - SERVICE REQUESTED",
        f"CPT/HCPCS code: {BLANK}   Units: ________",
        f"ICD-10-CM diagnosis codes: {BLANK}",
        f"Date of Service From / To (DD-MMM-YYYY): {BLANK}",
        "Review type:  [ ] Standard   [ ] Urgent (72 hours)",
        "",
        "SECTION 4 - CLINICAL INFORMATION",
        f"Clinical summary: {BLANK}{BLANK}",
        f"Required documentation: {policy.required_documentation}",
        "",
        "Criteria summary:",
        policy.criteria_text.strip(),
        "",
        f"Requests for {policy.title} are accepted by fax only. Fax this form with the clinical "
        f"documentation to Keystone Mutual Precertification at {format_phone(payer.precert_fax)}. "
        "Incomplete forms are returned without review.",
    ])
    return render_pdf(title=f"Precertification Request Fax Form - {policy.title}", fields=fields, body=body,
                      letterhead=f"{payer.name}\nPrecertification Department\nPayer ID {payer.payer_code}",
                      footer=f"{payer.name} form KM-PRF-{policy.policy_number}")
