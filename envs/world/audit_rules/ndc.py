"""The world audit's NDC check: a line denied for its National Drug Code (RARC M119) bills a drug.

Only a HCPCS drug code is billed with an NDC, so an M119 remark on any other line (an
administration or a visit) is a denial no payer gives.
"""
from __future__ import annotations

from admindesk.envs.world.world import World

NDC_REMARK = "M119"
DRUG_CATEGORY = "drug"
KINDS = {"ndc_denial_not_a_drug": "an M119 (NDC) remark on a line whose code is not a HCPCS drug code"}


def audit_ndc_denials(world: World, report) -> None:
    """Add every M119 remark on a line that bills no drug to `report` (an AuditReport)."""
    for claim in world.claims:
        for line in claim.lines:
            if not any(adjustment.rarc == NDC_REMARK for adjustment in line.adjustments):
                continue
            report.family_counts["drug"]["NDC denials"] += 1
            if world.codes.procedures[line.code].category != DRUG_CATEGORY:
                report.add("ndc_denial_not_a_drug", "drug", claim.claim_number,
                           f"line {line.line_no} ({line.code}) is not a drug code")
