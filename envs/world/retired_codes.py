"""Codes that are not billable on 2026 dates of service, with what replaced them.

ICD-10-CM categories that gained subcodes became headers (never billable); CPT and
HCPCS codes that were deleted cannot appear on a claim. The world never uses these
as billable codes, and the world audit rejects any record that does.
"""

from __future__ import annotations

from collections.abc import Iterable

# code -> why it is not billable in 2026 and what is billed instead.
NOT_BILLABLE_2026: dict[str, str] = {
    "G35": "ICD-10-CM header since FY2026; bill G35.A-G35.D (type of multiple sclerosis)",
    "G20": "ICD-10-CM header since FY2024; bill G20.A1-G20.C (Parkinson's disease with or without dyskinesia)",
    "N18.3": "ICD-10-CM header since FY2021; bill N18.30, N18.31 (3a) or N18.32 (3b)",
    "M51.36": "ICD-10-CM header since FY2025; bill M51.360, M51.361, M51.362 or M51.369",
    "K0553": "HCPCS deleted 04/01/2022; the CGM supply allowance is A4239 (non-adjunctive) or A4238",
    "K0554": "HCPCS deleted 04/01/2022; the CGM receiver is E2103 (non-adjunctive) or E2102",
    "99442": "CPT deleted 01/01/2025; audio-only visits are 98008-98015",
    "J2505": "HCPCS deleted 01/01/2022; pegfilgrastim is J2506 (per 0.5 mg) or a biosimilar Q-code",
}


def not_billable(codes: Iterable[str]) -> list[str]:
    """The codes among `codes` that are not billable on 2026 dates of service, in order."""
    return [code for code in codes if code.strip().upper() in NOT_BILLABLE_2026]
