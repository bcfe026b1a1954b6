"""A case's duplicate claims: a CO-18 denial repeats a claim the payer already paid."""
from __future__ import annotations

from dataclasses import replace

from admindesk.envs.world.models import Claim, Remittance


def link_duplicates(billed: list[tuple[Claim, Remittance | None]]) -> list[tuple[Claim, Remittance | None]]:
    """Each CO-18 (duplicate) claim linked to the claim it repeats, as the world's duplicates
    are: the case's earlier paid claim for the same date of service and codes (none: left
    unlinked, which the world audit reports)."""
    claims = [claim for claim, _ in billed]
    linked = []
    for claim, remittance in billed:
        if any(adjustment.carc == "18" for line in claim.lines for adjustment in line.adjustments):
            codes = [line.code for line in claim.lines]
            original = next((other for other in claims if other is not claim and other.paid_amount > 0
                             and other.submitted_on < claim.submitted_on and other.service_date == claim.service_date
                             and [line.code for line in other.lines] == codes), None)
            if original is not None:
                claim = replace(claim, original_claim_number=original.claim_number)
        linked.append((claim, remittance))
    return linked
