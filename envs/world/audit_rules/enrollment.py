"""The world audit's provider enrollment checks: a B7 denial and a clinician's claims agree with the
clinician's enrollment records.

A claim denied B7 (the rendering provider not eligible to be paid on the date of service) names a
clinician with an enrollment on file with the claim's payer whose directory participation date is
after the date of service (or who does not participate yet): otherwise the payer had no reason to deny.
A clinician with enrollments on file (a new clinician) has no claim paid by a payer it is not
enrolled with, nor paid for a service before that payer logged its application.
"""
from __future__ import annotations

from admindesk.envs.world.world import World

ENROLLMENT_CARC = "B7"
KINDS = {
    "enrollment_denial_unexplained": "a B7 denial whose rendering clinician has no enrollment on file with the payer "
                                     "dated after the date of service",
    "enrollment_paid_before_application": "a claim a payer paid for a clinician with enrollments on file, for a "
                                          "service before that payer logged its application (or with no enrollment)",
}


def audit_enrollments(world: World, report) -> None:
    """Add every enrollment inconsistency of `world` to `report` (an AuditReport)."""
    on_file = {(e.npi, e.payer_id): e for e in world.provider_enrollments}
    new_clinicians = {e.npi for e in world.provider_enrollments}
    for claim in world.claims:
        enrollment = on_file.get((claim.rendering_npi, claim.payer_id))
        if ENROLLMENT_CARC in {a.carc for line in claim.lines for a in line.adjustments}:
            report.family_counts["enrollment"]["denials"] += 1
            if enrollment is None or (enrollment.effective is not None and enrollment.effective <= claim.service_date):
                report.add("enrollment_denial_unexplained", "enrollment", claim.claim_number,
                           f"no enrollment of {claim.rendering_npi} with {claim.payer_id} dated after "
                           f"{claim.service_date}")
        elif claim.rendering_npi in new_clinicians and claim.status in ("Paid", "Partially Paid") and (
                enrollment is None or enrollment.received_on is None
                or claim.service_date < enrollment.received_on):
            report.add("enrollment_paid_before_application", "enrollment", claim.claim_number,
                       f"{claim.rendering_npi} was not enrolled with {claim.payer_id} on {claim.service_date}")
