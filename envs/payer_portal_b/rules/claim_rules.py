"""Keystone Mutual's rules for corrected claims (frequency code 7 replacement, 8 void).

Refused outright (nothing is written), checked by `correction_problem`:

- a claim never adjudicated (still Pending, no EOB): there is nothing to correct yet;
- a claim already replaced or voided by a processed corrected claim;
- a void of a claim Keystone paid nothing on (a void takes a payment back);
- past the corrected-claim limit: 365 days after the original claim's EOB.

Otherwise the corrected claim is adjudicated by `adjudicate`, first match decides, and
every outcome is a row:

1. Void (8): "Voided"; the original payment is recouped and the claim is "Voided".
2. Claim filing limit: a claim (a corrected one too) must be received within 180 days of
   the date of service. Later, it is denied CO-29 unless it carries proof of timely
   filing: a clearinghouse acceptance report number and an acceptance date within the
   180 days.
3. Coordination of benefits: when the subscriber's other coverage is primary, the claim
   must carry the primary payer, its paid amount and its EOB (PDF); without them it is
   denied OA-22. With them Keystone pays as secondary: its allowance less what the
   primary paid.
4. Authorization: a line whose code falls under a medical policy needs the approved
   authorization number (precertification or DME request) covering the date of service;
   otherwise CO-197.
5. NCCI edits (envs/world/ncci.py): a line still included in another line of the same date (a
   column-2 code without an NCCI-associated modifier, an office visit beside a minor procedure
   without modifier 25) is denied CO-97, as it was on the original claim.
6. NDC reporting (the Reimbursement page): a line billing a drug (a HCPCS drug code) must
   carry the NDC of the product given, qualifier N4, 11 digits, its unit of measure and
   quantity; a drug line without it is denied CO-16 with RARC M119, as on the original.
7. "Processed": Keystone allows the contract's share of billed charges on every line (its
   fee schedule, on the reimbursement page);
   the original claim becomes "Replaced".
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.payer_portal_b.claim_models import CorrectedClaim
from admindesk.envs.payer_portal_b.fields import DATE_FORMAT
from admindesk.envs.payer_portal_b.models import (
    Claim,
    DmeRequest,
    ExplanationOfBenefits,
    PolicyCode,
    PrecertRequest,
    ProcedureCode,
    Subscriber,
)
from admindesk.envs.payer_portal_b.rules.appeal_rules import contract_share
from admindesk.envs.world import ncci

FREQUENCY_CODES = {"7": "Replacement of prior claim", "8": "Void/cancel of prior claim"}
CLAIM_FILING_DAYS = 180
CORRECTED_CLAIM_DAYS = 365
ADJUDICATED = ("Paid", "Partially Paid", "Denied")
PROCESSED = ("Processed", "Processed as secondary", "Voided")
DRUG_CATEGORY = "drug"  # the code set's category of HCPCS drug codes (J-codes), billed with an NDC


@dataclass(frozen=True)
class CorrectedClaimFacts:
    """What the provider sent: frequency, lines, authorization, COB and timely-filing proof."""

    frequency_code: str
    lines: tuple[dict, ...]
    authorization_number: str | None
    primary_payer: str | None
    primary_paid_amount: float | None
    has_primary_eob: bool
    clearinghouse_report_number: str | None
    clearinghouse_accepted_on: date | None


@dataclass(frozen=True)
class Adjudication:
    """Status, CAS group and CARC of a denial, the reason in words, and the money."""

    status: str
    reason: str
    group_code: str | None = None
    carc: str | None = None
    allowed: float = 0.0
    paid: float = 0.0


def original_eob(session: Session, claim_number: str) -> ExplanationOfBenefits | None:
    return session.scalars(select(ExplanationOfBenefits).where(
        ExplanationOfBenefits.claim_number == claim_number, ExplanationOfBenefits.kind == "Original")).first()


def correction_problem(session: Session, claim: Claim, frequency_code: str, today: date) -> str | None:
    """Why Keystone refuses any corrected claim of this kind for `claim`, or None."""
    done = session.scalars(select(CorrectedClaim).where(
        CorrectedClaim.original_claim_number == claim.claim_number, CorrectedClaim.status.in_(PROCESSED))).first()
    if done is not None:
        return (f"Claim {claim.claim_number} was already {done.status.lower()} by corrected claim "
                f"{done.corrected_claim_number}.")
    eob = original_eob(session, claim.claim_number)
    if claim.status not in ADJUDICATED or eob is None:
        return (f"Claim {claim.claim_number} has not been adjudicated ({claim.status}); a corrected claim can "
                "replace or void only a claim Keystone Mutual has processed.")
    if frequency_code == "8" and claim.paid_amount <= 0:
        return (f"Keystone Mutual paid nothing on claim {claim.claim_number}; a void (frequency code 8) "
                "reverses a payment. Use a replacement (frequency code 7) to correct it.")
    last_day = eob.paid_on + timedelta(days=CORRECTED_CLAIM_DAYS)
    if today > last_day:
        return (f"The corrected-claim limit for claim {claim.claim_number} ended on {last_day.strftime(DATE_FORMAT)} "
                f"({CORRECTED_CLAIM_DAYS} days after its EOB of {eob.paid_on.strftime(DATE_FORMAT)}).")
    return None


def adjudicate(session: Session, claim: Claim, subscriber: Subscriber, facts: CorrectedClaimFacts,
               today: date) -> Adjudication:
    """Apply the rules of the module docstring, in order (correction_problem passed first)."""
    if facts.frequency_code == "8":
        return Adjudication("Voided", f"Claim {claim.claim_number} voided; the payment of "
                            f"${claim.paid_amount:,.2f} will be recouped.", paid=-claim.paid_amount)
    late = _filing_limit_problem(claim.service_date, facts, today)
    if late is not None:
        return Adjudication("Denied", late, "CO", "29")
    secondary = subscriber.coverage_rank > 1
    if secondary and not (facts.primary_payer and facts.primary_paid_amount is not None and facts.has_primary_eob):
        return Adjudication("Denied", f"{subscriber.other_coverage} is the subscriber's primary coverage. Submit the "
                            "claim with the primary payer's name, its paid amount and its EOB attached.", "OA", "22")
    missing = _authorization_problem(session, claim, facts)
    if missing is not None:
        return Adjudication("Denied", missing, "CO", "197")
    bundled = ncci.bundled_lines(list(facts.lines))
    if bundled:
        return Adjudication("Denied", " ".join(edit.reason() for edit in bundled), "CO", "97")
    no_ndc = _ndc_problem(session, facts)
    if no_ndc is not None:
        return Adjudication("Denied", no_ndc, "CO", "16")
    allowed = round(sum(line["charge"] for line in facts.lines) * contract_share(session), 2)
    if secondary:
        paid = round(max(allowed - facts.primary_paid_amount, 0.0), 2)
        return Adjudication("Processed as secondary", f"Processed as secondary to {facts.primary_payer}: "
                            f"allowed ${allowed:,.2f} less the primary's ${facts.primary_paid_amount:,.2f}.",
                            allowed=allowed, paid=paid)
    return Adjudication("Processed", f"Replacement of claim {claim.claim_number} processed.", allowed=allowed,
                        paid=allowed)


def apply_to_original(claim: Claim, outcome: Adjudication) -> None:
    """A processed replacement or void supersedes the original claim."""
    if outcome.status == "Voided":
        claim.status = "Voided"
    elif outcome.status in PROCESSED:
        claim.status = "Replaced"


def _filing_limit_problem(service_date: date, facts: CorrectedClaimFacts, today: date) -> str | None:
    last_day = service_date + timedelta(days=CLAIM_FILING_DAYS)
    if today <= last_day:
        return None
    limit = (f"Keystone Mutual's claim filing limit is {CLAIM_FILING_DAYS} days from the date of service "
             f"{service_date.strftime(DATE_FORMAT)} (by {last_day.strftime(DATE_FORMAT)})")
    if not (facts.clearinghouse_report_number and facts.clearinghouse_accepted_on):
        return f"{limit}, and no proof of timely filing was given."
    if facts.clearinghouse_accepted_on > last_day:
        return (f"{limit}; the clearinghouse acceptance {facts.clearinghouse_report_number} of "
                f"{facts.clearinghouse_accepted_on.strftime(DATE_FORMAT)} is after it.")
    return None


def _ndc_problem(session: Session, facts: CorrectedClaimFacts) -> str | None:
    """Drug lines sent without their NDC (the form lets a line carry all four NDC fields or none)."""
    missing = [f"line {line['line_no']} ({line['code']})" for line in facts.lines if not line.get("ndc")
               and getattr(session.get(ProcedureCode, line["code"]), "category", None) == DRUG_CATEGORY]
    if not missing:
        return None
    return (f"M119: {', '.join(missing)} bills a drug without its National Drug Code. Report the NDC of the "
            "product given on every drug line: qualifier N4, the 11-digit NDC, its unit of measure and quantity.")


def _authorization_problem(session: Session, claim: Claim, facts: CorrectedClaimFacts) -> str | None:
    governed = [line["code"] for line in facts.lines if session.get(PolicyCode, line["code"]) is not None]
    if not governed:
        return None
    number = facts.authorization_number
    dos = claim.service_date
    precert = number and session.scalars(select(PrecertRequest).where(
        PrecertRequest.authorization_number == number, PrecertRequest.subscriber_id == claim.subscriber_id,
        PrecertRequest.status == "Approved", PrecertRequest.service_code.in_(governed),
        PrecertRequest.approved_start <= dos, PrecertRequest.approved_end >= dos)).first()
    dme = number and session.scalars(select(DmeRequest).where(
        DmeRequest.authorization_number == number, DmeRequest.subscriber_id == claim.subscriber_id,
        DmeRequest.status == "Approved", DmeRequest.hcpcs_code.in_(governed))).first()
    if precert or dme:
        return None
    shown = f"Authorization {number}" if number else "No authorization number"
    return (f"{', '.join(governed)} requires precertification. {shown} does not match an approved "
            f"authorization for subscriber {claim.subscriber_id} covering {dos.strftime(DATE_FORMAT)}.")
