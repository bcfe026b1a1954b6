"""The world audit's faxed-EOB check: an explanation of benefits in the fax inbox states what
the patient's paid claim for that date of service and service received.

A case's faxed EOB is typed as text while the claim's payment is priced by the payer's rules
(Keystone's fee schedule, for one): when the pricing changes, the letter must follow, or the
coordinator reads two amounts for one payment and the case has no right answer.
"""
from __future__ import annotations

import re

from admindesk.envs.world.review_rules import family_of
from admindesk.envs.world.world import World

KINDS = {"eob_fax_disagrees": "a faxed explanation of benefits whose paid amount is not what the patient's claim "
                              "for its date of service and service was paid"}
SERVICE = re.compile(r"Date of service: (\d{4}-\d{2}-\d{2})\s+Service: (\S+)")
PAID = re.compile(r"Paid to provider: ([\d,]+\.\d{2})")


def audit_eob_faxes(world: World, report) -> None:
    """Add every faxed EOB whose paid amount no paid claim of its patient, date and service shows."""
    for fax in world.faxes:
        text = "\n".join(fax.pages_text)
        service, paid = SERVICE.search(text), PAID.search(text)
        if "Explanation of Benefits" not in text or service is None or paid is None:
            continue
        dos, code = service.groups()
        report.family_counts[family_of(code)]["faxed EOBs"] += 1
        amount = float(paid.group(1).replace(",", ""))
        payments = [round(sum(line.paid for line in claim.lines), 2) for claim in world.claims
                    if claim.mrn == fax.mrn and claim.service_date.isoformat() == dos
                    and any(line.code == code for line in claim.lines)]
        if amount not in payments:
            report.add("eob_fax_disagrees", family_of(code), fax.id,
                       f"the EOB says {amount:.2f} paid for {code} on {dos}; the patient's claims were paid "
                       f"{', '.join(f'{p:.2f}' for p in payments) or 'nothing (no such claim)'}")
