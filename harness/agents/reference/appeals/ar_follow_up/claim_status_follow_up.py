"""Reference solution of template appeals/claim_status_follow_up: a Denials item "No payer
response 45+ days" for a claim billed weeks ago with nothing back. The claim's status on the
payer's portal (a claim status inquiry by its number) decides:
- not on file (it never reached the payer): the payer's filing limit (its provider manual, days
  from the date of service) not yet passed, the same claim is resubmitted as an original claim
  (frequency 1) from the EHR claim page; item Claim Resubmitted with a follow-up date and a note;
- finalized and paid (the payment never posted in the EHR): nothing is sent again (a duplicate);
  a note traces the payment (date, amount, check/EFT number) and the item goes to the Payment
  Posting pool, left open.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from admindesk.harness.agents.reference import portal_a
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

RESUBMITTED = "Claim Resubmitted"
IN_PROGRESS = "In Progress"
POSTING_POOL = "Payment Posting (team pool)"
# When to look for the payer's acknowledgement of the resubmitted claim.
FOLLOW_UP_DAYS = 14


def review(work: Work) -> None:
    """The Denials item and its claim (billed, with nothing from the payer)."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)


def check_status(work: Work) -> None:
    """The claim by its number on the payer's portal; on file, its remittance."""
    n = work.notes
    if not portal_a.find_claim(work, n["claim_number"]):
        n["at_payer"] = "not on file"
        return
    n["at_payer"] = portal_a.claim_status(work)
    if n["at_payer"] in ("Paid", "Partially Paid"):
        work.actor.click(f"ul.tabs-local a:has-text('{portal_a.CLAIM_TABS['remittance']}')")
        n.update(paid_on=work.actor.fact("Paid on"), check_number=work.actor.fact("Check / EFT number"),
                 paid_amount=work.actor.fact("Amount paid"))


def check_limit(work: Work) -> None:
    """The payer's provider manual (its Claims chapter): the filing limit and its last day."""
    n = work.notes
    chapter = portal_a.manual_chapter(work, portal_a.PAYER_IDS[n["payer"]], "Claims")
    found = re.search(r"Timely filing limit: (\d+) days from the date of service", chapter)
    if found is None:
        raise ScriptFailed(f"the manual states no filing limit: {chapter[:300]}")
    last_day = parse_us_date(n["service_date"]) + timedelta(days=int(found.group(1)))
    n.update(limit_days=found.group(1), last_day=us_date(last_day))


def inquiry_text(work: Work) -> str:
    n = work.notes
    return (f"Claim status inquiry on {n['payer']}'s portal {us_date(work.task.now.date())}: no claim "
            f"{n['claim_number']} on file for member {n['member_id']}, date of service {n['service_date']} "
            f"(billed {n['submitted_on']}); the claim never reached the payer.")


def resubmit(work: Work) -> None:
    """The claim page's Resubmit claim: the filing deadline and what the inquiry showed."""
    n = work.notes
    if parse_us_date(n["last_day"]) < work.task.now.date():
        raise ScriptFailed(f"the filing limit ended {n['last_day']}: nothing to resubmit")
    ehr_denials.resubmit_original(work, n["last_day"], inquiry_text(work))
    n["resubmitted"] = us_date(work.task.now.date())


def note_text(work: Work) -> str:
    n = work.notes
    head = f"No payer response follow-up, claim {n['claim_number']} (DOS {n['service_date']}, billed {n['submitted_on']}). "
    if n["at_payer"] == "not on file":
        follow_up = work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS)
        return head + (f"{inquiry_text(work)} {n['payer']}'s provider manual: filing limit {n['limit_days']} days from "
                       f"the date of service, last day {n['last_day']}. Resubmitted the claim unchanged as an original "
                       f"claim (frequency 1) on {n['resubmitted']}, not a corrected claim. Follow up on "
                       f"{us_date(follow_up)}: confirm {n['payer']} acknowledged and has the claim on file.")
    return head + (f"{n['payer']}'s portal shows the claim {n['at_payer']}: paid {n['paid_amount']} on {n['paid_on']}, "
                   f"check/EFT {n['check_number']}. The payment has not been posted to this claim in the billing "
                   "system (no remittance on file here). Nothing resubmitted or filed: the payer has the claim and a "
                   "second copy would deny as a duplicate (CO-18). Routed to Payment Posting to locate and post the "
                   "payment to this claim.")


def record_resubmission(work: Work, note_text: Callable[[Work], str]) -> None:
    """The item once the claim went out again as an original claim: Claim Resubmitted with a
    follow-up date and the note (`note_text` reads the notes the resubmission left)."""
    if "resubmitted" not in work.notes:
        work.finish("The claim was not resubmitted; the item is unchanged.")
        return
    if work.doing("record_follow_up"):
        ehr_denials.set_item_status(work, RESUBMITTED,
                                    follow_up=work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
        ehr_denials.add_item_note(work, note_text(work))
    work.finish(note_text(work) + f" Item set to {RESUBMITTED}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_claim"):
        review(work)
    if "claim_number" not in work.notes:
        work.finish("Nothing done: the claim was not reviewed.")
        return
    if work.doing("check_status"):
        check_status(work)
    if "at_payer" not in work.notes:
        work.finish("Nothing done: the claim's status at the payer was not checked.")
        return
    n = work.notes
    if n["at_payer"] == "not on file":
        if work.doing("check_limit"):
            check_limit(work)
        if "last_day" not in n:
            work.finish("Nothing resubmitted: the payer's filing limit was not read.")
            return
        if work.doing("resubmit_claim"):
            resubmit(work)
        record_resubmission(work, note_text)
        return
    if "check_number" not in n:
        raise ScriptFailed(f"the payer shows the claim {n['at_payer']}, a status this solution does not work")
    if work.doing("trace_payment"):
        ehr_denials.add_item_note(work, note_text(work))
    if work.doing("route_to_posting"):
        ehr_denials.assign_to_pool(work, POSTING_POOL, IN_PROGRESS)
    work.finish(note_text(work) + " Item assigned to the Payment Posting pool, In Progress.")
