"""Clinicians' enrollment with payers, as the EHR's credentialing record and portal A's network
directory both show it.

A clinician with no enrollment on file (the background world's clinicians) participates with every
payer since a day drawn from the NPI, so the two apps agree without storing a row per payer. A
clinician with an enrollment on file (a case's new clinician) is enrolled with the payers on file
only: with any other payer it has no enrollment at all.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

PARTICIPATING = "Participating"
# Days between the credentialing team sending an application and the payer logging it complete.
DEFAULT_RECEIPT_DAYS = 6


@dataclass(frozen=True)
class Enrollment:
    """One clinician's enrollment with one payer, as both apps show it."""

    payer_id: str
    submitted_on: date | None
    received_on: date | None
    status: str
    effective: date | None
    welcome_letter_on: date | None = None


def default_since(npi: str) -> date:
    """The day a background clinician's participation began (2014-2022, from the NPI's digits)."""
    return date(2014 + int(npi[2:4]) % 9, 1 + int(npi[4:6]) % 12, 1)


def enrollments(npi: str, payer_ids: list[str], on_file: list) -> list[Enrollment]:
    """The clinician's enrollments with `payer_ids`: the ones on file (rows with payer_id, submitted_on,
    received_on, status, effective, welcome_letter_on), else the default participation with each payer."""
    if on_file:
        return [Enrollment(row.payer_id, row.submitted_on, row.received_on, row.status, row.effective,
                           row.welcome_letter_on) for row in on_file if row.payer_id in payer_ids]
    since = default_since(npi)
    return [Enrollment(payer_id, since - timedelta(days=DEFAULT_RECEIPT_DAYS), since, PARTICIPATING, since)
            for payer_id in payer_ids]
