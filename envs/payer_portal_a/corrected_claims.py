"""Corrected claims: a replacement (frequency code 7) or void (8) of an adjudicated claim.

The payer refuses a correction for a claim never adjudicated (still pending), a claim
already voided or replaced by an open correction, and one past its corrected-claim
filing limit (counted from the original remittance). A replacement for a member whose
coverage here is secondary is denied OA-22 unless it carries the primary payer's paid
amount and EOB (coordination of benefits). A replacement whose test line still carries no
diagnosis the payer's coverage policy for the test lists is denied CO-167 again
(envs/world/diagnosis_coverage.py).
"""
from __future__ import annotations

from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.payer_portal_a import numbering
from admindesk.envs.payer_portal_a.lifecycle_models import ClaimEvent, CorrectedClaim, CorrectedClaimLine
from admindesk.envs.payer_portal_a.models import Claim, Member
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for
from admindesk.envs.world.diagnosis_coverage import NOT_COVERED, uncovered_line

ADJUDICATED = ("Paid", "Partially Paid", "Denied")
COB_REASON = ("OA-22: this care may be covered by another payer per coordination of benefits. The member's "
              "coverage with this payer is secondary; resubmit with the primary payer's paid amount and EOB.")


def correction_refusal(session: Session, claim: Claim, today: date) -> str | None:
    """Why no corrected claim can be filed for `claim`, quoting the payer's rule, or None."""
    if claim.status == "Voided":
        return f"Claim {claim.claim_number} was voided; submit a new claim instead."
    if claim.status != "Replaced" and (claim.status not in ADJUDICATED or claim.remittance is None):
        return (f"Claim {claim.claim_number} is {claim.status}: it was never paid or denied, so there is nothing "
                "to replace or void. Wait for the remittance.")
    open_one = session.scalar(select(CorrectedClaim).where(CorrectedClaim.original_claim_number == claim.claim_number,
                                                           CorrectedClaim.status.in_(("Accepted", "Voided"))))
    if open_one:
        return (f"Corrected claim {open_one.corrected_claim_number} ({open_one.status}) already replaces this "
                "claim; correct that one instead.")
    days = rules_for(claim.payer_id).corrected_claim_days
    last_day = claim.remittance.paid_on + timedelta(days=days)
    if last_day < today:
        return (f"{claim.payer.name} accepts corrected claims within {days} days of the original remittance "
                f"({claim.remittance.paid_on:%m/%d/%Y}), i.e. by {last_day:%m/%d/%Y}. This correction is past the "
                "corrected-claim filing limit.")
    return None


def file_correction(session: Session, claim: Claim, *, frequency_code: str, reason: str, auth_number: str | None,
                    primary_paid: float | None, primary_eob, lines: list[dict], username: str) -> CorrectedClaim:
    """Store the corrected claim with its own number and the status the payer gives it."""
    if frequency_code == "8":  # a void carries the original lines unchanged
        lines = [{"code": ln.code, "modifiers": list(ln.modifiers), "units": ln.units, "charge": ln.charge,
                  "diagnosis_codes": list(ln.diagnosis_codes)} for ln in claim.lines]
    corrected = CorrectedClaim(
        corrected_claim_number=numbering.corrected_claim_number(session), original_claim_number=claim.claim_number,
        payer_id=claim.payer_id, member_id=claim.member_id, frequency_code=frequency_code, auth_number=auth_number,
        correction_reason=reason, primary_paid_amount=primary_paid,
        primary_eob_file=primary_eob.filename if primary_eob else None,
        primary_eob_sha256=primary_eob.sha256 if primary_eob else None,
        total_charge=round(sum(line["charge"] for line in lines), 2), status="", status_reason="",
        submitted_at=clock.now(), submitted_by=username,
        lines=[CorrectedClaimLine(line_no=n, **line) for n, line in enumerate(lines, start=1)])
    member = session.get(Member, claim.coverage_id)
    if frequency_code == "8":
        corrected.status, corrected.status_reason = "Voided", f"Claim {claim.claim_number} is voided at your request."
        claim.status = "Voided"
    elif member is not None and member.coverage_rank > 1 and (primary_paid is None or primary_eob is None):
        corrected.status, corrected.status_reason = "Denied", COB_REASON
        corrected.denial_group, corrected.denial_carc = "OA", "22"
    elif (policy := uncovered_line(lines)) is not None:
        corrected.status, corrected.status_reason = "Denied", NOT_COVERED.format(code=policy.code, title=policy.title)
        corrected.denial_group, corrected.denial_carc = "CO", "167"
    else:
        corrected.status = "Accepted"
        corrected.status_reason = (f"Replacement of claim {claim.claim_number} accepted for adjudication; the "
                                   "original claim is replaced.")
        claim.status = "Replaced"
    session.add(corrected)
    kind = "Void" if frequency_code == "8" else "Replacement"
    session.add(ClaimEvent(claim_number=claim.claim_number, at=clock.now(),
                           status=f"{kind} claim {corrected.status.lower()}",
                           note=f"{kind} claim {corrected.corrected_claim_number} (frequency {frequency_code}): "
                                f"{corrected.status_reason}", username=username))
    return corrected
