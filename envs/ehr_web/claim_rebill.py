"""Billing a claim again. To another payer: a payer that denied the claim as not its
responsibility (CARC 109) is not appealed; the same service goes as a new claim (frequency
code 1) to the coverage that is responsible.

Rules (a refused bill writes nothing and says why):
- Only a denied claim is billed to another payer, and only once: a second new claim for the
  same denial is a duplicate, and a balance already transferred to the patient is the patient's.
- The coverage must be another payer's: to the same payer a change is a corrected claim and
  a dispute an appeal.
- The coverage must be in force on the date of service as registration holds it (effective on
  or before it, not terminated before it): correct the registration first.
The new claim carries the denied claim's lines, provider and site unchanged, the chosen
coverage's payer and member id, status Submitted, and a claim note with the reason.

Resubmitting an unanswered claim as an original claim (frequency code 1), from the claim page:
when the payer's claim status inquiry finds no claim on file (it never reached adjudication), the
same claim goes again, unchanged, as a new submission. A claim the payer has on file is not sent
again (a second copy is denied as a duplicate, CO-18), and a change to an adjudicated claim is a
corrected claim (frequency 7), not this.

A claim the payer denied because it could not identify the patient as its member (CARC 31) was
never adjudicated under a valid member either: once registration holds the member id the payer
has (its eligibility by the patient's name and date of birth), the claim goes again the same way,
as an original claim under the corrected member id, not a corrected claim or an appeal.

Rules (a refused resubmission writes nothing and says why):
- Only a claim without an answer from the payer (no remittance posted, not adjudicated), or one
  denied CARC 31 whose coverage registration has since corrected (its member id now differs from
  the one billed) and holds in force on the date of service.
- Once: a resubmitted claim waits for that submission's acknowledgement.
- Within the payer's filing limit: the deadline the coordinator read must not have passed (a
  late claim is denied CO-29 whatever is sent).
- What the inquiry showed is required; the claim page shows it with who resubmitted and when.
"""
from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.state.sequences import next_value
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms_changes import ResubmitClaimForm
from admindesk.envs.ehr_web.models import Coverage
from admindesk.envs.ehr_web.models_work import Claim, ClaimLine, ClaimResubmission
from admindesk.envs.ehr_web.notes import store_note

SUBMITTED = "Submitted"
CLAIM_SEQUENCE, CLAIM_START = "ehr_billed_claim", 1001


def _fmt(day: date | None) -> str:
    return day.strftime("%m/%d/%Y") if day else "open-ended"


def bill_problem(session: Session, claim: Claim, coverage: Coverage, denied: bool) -> str | None:
    """Why the denied `claim` cannot be billed to `coverage` as a new claim, or None."""
    if not denied:
        return f"Claim {claim.claim_number} is not denied; only a denied claim is billed to another payer."
    if claim.transfer is not None:
        return (f"Claim {claim.claim_number}'s balance was transferred to the patient on {claim.transfer.at:%m/%d/%Y}; "
                "it is not billed to another payer as well.")
    earlier = session.scalar(select(Claim).where(Claim.billed_from == claim.claim_number))
    if earlier is not None:
        return (f"Claim {earlier.claim_number} already bills this service to {earlier.payer.name}; "
                "a second claim would be a duplicate.")
    if coverage.payer_id == claim.payer_id:
        return (f"{coverage.payer.name} denied this claim; a change to it is a corrected claim and a dispute an "
                "appeal, not a new claim.")
    dos = claim.service_date
    if coverage.effective_date > dos or (coverage.termination_date is not None and coverage.termination_date < dos):
        return (f"{coverage.payer.name} coverage {coverage.member_id} is registered from "
                f"{_fmt(coverage.effective_date)} to {_fmt(coverage.termination_date)}, which does not include the "
                f"date of service {_fmt(dos)}. Check eligibility and correct the registration first.")
    return None


def new_claim_number(session: Session, claim: Claim) -> str:
    """The billing system's next claim number, in the service year (a B series beside the payers' own)."""
    return f"CLM{claim.service_date:%y}-B{next_value(session, CLAIM_SEQUENCE, CLAIM_START):04d}"


def bill_other_payer(session: Session, claim: Claim, coverage: Coverage, reason: str, today: date) -> Claim:
    """Create the new claim to `coverage` with the denied claim's lines and a note saying why
    (the caller checked `bill_problem` and commits)."""
    new = Claim(claim_number=new_claim_number(session, claim), mrn=claim.mrn, payer_id=coverage.payer_id,
                coverage_id=coverage.id, member_id=coverage.member_id, service_date=claim.service_date,
                billing_npi=claim.billing_npi, rendering_npi=claim.rendering_npi, facility_id=claim.facility_id,
                submitted_on=today, total_charge=claim.total_charge, paid_amount=0.0, status=SUBMITTED,
                order_id=claim.order_id, auth_number=None, billed_from=claim.claim_number)
    session.add(new)
    session.add_all(ClaimLine(claim_number=new.claim_number, line_no=line.line_no, code=line.code,
                              modifiers=line.modifiers, units=line.units, charge=line.charge,
                              diagnosis_codes=line.diagnosis_codes, paid=0.0) for line in claim.lines)
    store_note(claim.mrn, "claim", new.claim_number,
               f"New claim to {coverage.payer.name} (member {coverage.member_id}) for the service denied on claim "
               f"{claim.claim_number}. {reason.strip()}")
    session.flush()
    return new


# ---- resubmitting an unanswered claim ----------------------------------------------------
ORIGINAL = "1"
UNANSWERED = "Pending"
UNIDENTIFIED = "31"  # CARC 31: patient cannot be identified as our insured


def identity_denied(claim: Claim) -> bool:
    """The payer denied the claim because it could not identify the patient as its member."""
    return any(adj.carc_code == UNIDENTIFIED for line in claim.lines for adj in line.adjustments)


def _identity_problem(claim: Claim) -> str | None:
    coverage = db().get(Coverage, claim.coverage_id) if claim.coverage_id else None
    if coverage is None:
        return "The claim has no registered coverage to correct; register the coverage the payer holds first."
    if coverage.member_id == claim.member_id:
        return (f"{claim.payer.name} could not identify the patient under member ID {claim.member_id} (CARC 31), "
                "which registration still holds: correct the coverage to the payer's enrollment (Coverage tab) "
                "before resubmitting.")
    dos = claim.service_date
    if not coverage.active_on(dos):
        return (f"{coverage.payer.name} coverage {coverage.member_id} is registered from "
                f"{_fmt(coverage.effective_date)} to {_fmt(coverage.termination_date)}, which does not include the "
                f"date of service {_fmt(dos)}.")
    return None


def resubmitted_member_id(claim: Claim) -> str:
    """The member id a resubmission carries: registration's corrected one after a CARC 31 denial."""
    coverage = db().get(Coverage, claim.coverage_id) if claim.coverage_id else None
    return coverage.member_id if coverage is not None and identity_denied(claim) else claim.member_id


def resubmit_problem(claim: Claim) -> str | None:
    """Why this claim cannot be resubmitted at all, or None."""
    if claim.resubmission is not None:
        return (f"This claim was resubmitted on {claim.resubmission.resubmitted_on:%m/%d/%Y}; wait for that "
                "submission's acknowledgement, a second copy would be a duplicate.")
    if identity_denied(claim):
        return _identity_problem(claim)
    if claim.remittance is not None or claim.status != UNANSWERED:
        return (f"The payer has answered this claim (status {claim.status}); a change to it is a corrected claim "
                "and a dispute an appeal, not a resubmission.")
    return None


def resubmit(claim: Claim, form: ResubmitClaimForm) -> ClaimResubmission | None:
    """Check the filled form and resubmit the claim; None, with nothing written and the reasons as
    field errors, when refused."""
    describe(action="resubmit_claim", record_type="claim", record_id=claim.claim_number)
    valid = form.validate()
    problem = resubmit_problem(claim)
    if problem:
        form.reason.errors = list(form.reason.errors) + [problem]
        return None
    today = clock.today()
    if valid and form.filing_deadline.data < today:
        form.filing_deadline.errors = list(form.filing_deadline.errors) + [
            f"The payer's filing deadline {form.filing_deadline.data:%m/%d/%Y} has passed; a resubmission would be "
            "denied for timely filing (CO-29)."]
        valid = False
    if valid and form.filing_deadline.data < claim.service_date:
        form.filing_deadline.errors = list(form.filing_deadline.errors) + [
            "The filing deadline falls before the date of service; it is counted from it."]
        valid = False
    if not valid:
        return None
    sent = ClaimResubmission(claim_number=claim.claim_number, frequency_code=ORIGINAL,
                             member_id=resubmitted_member_id(claim), resubmitted_on=today,
                             filing_deadline=form.filing_deadline.data, reason=form.reason.data.strip(),
                             at=clock.now(), username=current_username())
    db().add(sent)
    store_note(claim.mrn, "claim", claim.claim_number,
               f"Claim resubmitted as an original claim (frequency 1) under member ID {sent.member_id}, filing "
               f"deadline {sent.filing_deadline:%m/%d/%Y}. {sent.reason}")
    db().commit()
    describe(frequency_code=ORIGINAL)
    return sent
