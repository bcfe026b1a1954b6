"""Cover-sheet templates: the shared cover pages a sender picks from when composing.

Each template gives the cover sheet its title and a notice printed above the comments
(what the recipient is asked to do). The HIPAA confidentiality notice is on every one.
Templates are part of the server's configuration (an administrator's job), not records.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CoverTemplate:
    """One cover-sheet layout: its name in the picker, the title it prints, its notice."""

    key: str
    name: str
    title: str
    notice: str
    use_for: str


TEMPLATES: dict[str, CoverTemplate] = {t.key: t for t in (
    CoverTemplate("standard", "Standard (HIPAA)", "FAX COVER SHEET", "",
                  "Any fax without a more specific template."),
    CoverTemplate("prior_auth", "Prior authorization request", "PRIOR AUTHORIZATION REQUEST",
                  "Prior authorization request enclosed. Please fax the determination or any request for "
                  "additional information to the sender's fax line below.",
                  "Requests and clinical records sent to a payer's utilization management intake."),
    CoverTemplate("appeal", "Appeal / reconsideration", "PROVIDER APPEAL - RECONSIDERATION REQUEST",
                  "Provider appeal enclosed. Please route to the appeals unit and acknowledge receipt.",
                  "Appeals, reconsiderations and corrected-claim letters to a payer's appeals unit."),
    CoverTemplate("dme_order", "DME order packet", "DME ORDER - PLEASE PROCESS",
                  "Durable medical equipment order packet enclosed (written order and supporting records). "
                  "Please confirm receipt with your order number or list any missing items.",
                  "Order packets to DME suppliers."),
    CoverTemplate("records", "Medical records release", "MEDICAL RECORDS - CONFIDENTIAL",
                  "Records released in answer to your request. Re-disclosure is prohibited without the "
                  "patient's authorization.",
                  "Records sent in answer to a records request."),
)}
DEFAULT_TEMPLATE = "standard"


def template(key: str | None) -> CoverTemplate:
    """The template stored on a draft or job (the standard one for an unknown key)."""
    return TEMPLATES.get(key or DEFAULT_TEMPLATE, TEMPLATES[DEFAULT_TEMPLATE])
