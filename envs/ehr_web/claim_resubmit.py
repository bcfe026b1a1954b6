"""Resubmitting an unanswered claim as an original claim (frequency code 1), from the claim page:
when the payer's claim status inquiry finds no claim on file (it never reached adjudication), the
same claim goes again, unchanged, as a new submission. A claim the payer has on file is not sent
again (a second copy is denied as a duplicate, CO-18), and a change to an adjudicated claim is a
corrected claim (frequency 7), not this.

Rules (a refused resubmission writes nothing and says why):
- Only a claim without an answer from the payer: no remittance posted, not adjudicated.
- Once: a resubmitted claim waits for that submission's acknowledgement.
- Within the payer's filing limit: the deadline the coordinator read must not have passed (a
  late claim is denied CO-29 whatever is sent).
- What the inquiry showed is required; the claim page shows it with who resubmitted and when.
"""
from __future__ import annotations

from admindesk.envs.common import clock
from admindesk.envs.common.audit import describe
from admindesk.envs.common.web import current_username, db
from admindesk.envs.ehr_web.forms_changes import ResubmitClaimForm
from admindesk.envs.ehr_web.models_work import Claim, ClaimResubmission
from admindesk.envs.ehr_web.notes import store_note

ORIGINAL = "1"
UNANSWERED = "Pending"


def claim_problem(claim: Claim) -> str | None:
    """Why this claim cannot be resubmitted at all, or None."""
    if claim.resubmission is not None:
        return (f"This claim was resubmitted on {claim.resubmission.resubmitted_on:%m/%d/%Y}; wait for that "
                "submission's acknowledgement, a second copy would be a duplicate.")
    if claim.remittance is not None or claim.status != UNANSWERED:
        return (f"The payer has answered this claim (status {claim.status}); a change to it is a corrected claim "
                "and a dispute an appeal, not a resubmission.")
    return None


def resubmit(claim: Claim, form: ResubmitClaimForm) -> ClaimResubmission | None:
    """Check the filled form and resubmit the claim; None, with nothing written and the reasons as
    field errors, when refused."""
    describe(action="resubmit_claim", record_type="claim", record_id=claim.claim_number)
    valid = form.validate()
    problem = claim_problem(claim)
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
    sent = ClaimResubmission(claim_number=claim.claim_number, frequency_code=ORIGINAL, resubmitted_on=today,
                             filing_deadline=form.filing_deadline.data, reason=form.reason.data.strip(),
                             at=clock.now(), username=current_username())
    db().add(sent)
    store_note(claim.mrn, "claim", claim.claim_number,
               f"Claim resubmitted as an original claim (frequency 1), filing deadline "
               f"{sent.filing_deadline:%m/%d/%Y}. {sent.reason}")
    db().commit()
    describe(frequency_code=ORIGINAL)
    return sent
