"""Reference solution of template appeals/member_id_correction: a claim denied CARC 31 (the payer
cannot identify the patient as its member). The payer's eligibility searched by the patient's
name and date of birth (not by the member id billed: that one is the problem, and may be someone
else's) gives the member the payer holds on the date of service; registration's coverage is
corrected to it on the Coverage tab (member id, subscriber, relationship, effective date as the
payer gives them); within the payer's filing limit (its provider manual) the claim is resubmitted
from the claim page as an original claim (frequency 1) under the corrected id, not a corrected
claim or an appeal; item Claim Resubmitted with a follow-up date and a note.
"""
from __future__ import annotations

from datetime import timedelta

from admindesk.harness.agents.reference import portal_a
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.appeals.ar_follow_up.claim_status_follow_up import (
    FOLLOW_UP_DAYS,
    check_limit,
    record_resubmission,
)
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

UNIDENTIFIED = "31"


def review(work: Work) -> None:
    """The Denials item, the claim (the member id billed) and its remittance's codes."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    if UNIDENTIFIED not in work.notes["carcs"].split(", "):
        raise ScriptFailed(f"the claim is not denied CARC 31: {work.notes['denials']}")


def check_eligibility(work: Work) -> None:
    """The payer's eligibility for the date of service, the member searched by name and date of birth."""
    n, actor = work.notes, work.actor
    status = portal_a.check_eligibility(work, "", portal_a.PAYER_IDS[n["payer"]], parse_us_date(n["service_date"]))
    subscriber, relationship = actor.fact("Subscriber").rsplit(" (", 1)
    n.update(elig_status=status, elig_reference=actor.text("p:has-text('Inquiry reference') strong"),
             payer_member=actor.fact("Member ID"), payer_subscriber=subscriber,
             payer_relationship=relationship.rstrip(")"), payer_effective=actor.fact("Coverage begins"))


def correct_registration(work: Work) -> None:
    """The Coverage tab's Correct coverage: the billed coverage set to the payer's enrollment."""
    n, actor = work.notes, work.actor
    ehr_denials.to_ehr_tab(work)
    actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    actor.select_containing("#correct select[name=coverage_id]", f"({n['member_id']})")
    actor.fill("#correct input[name=member_id]", n["payer_member"])
    actor.fill("#correct input[name=subscriber_name]", n["payer_subscriber"])
    actor.select_option("#correct select[name=relationship]", n["payer_relationship"])
    actor.fill("#correct input[name=effective_date]", n["payer_effective"])
    actor.fill("#correct textarea[name=reason]",
               f"Claim {n['claim_number']} denied CO-{UNIDENTIFIED} under member ID {n['member_id']}. {n['payer']} "
               f"eligibility by name and date of birth (inquiry {n['elig_reference']}): member ID {n['payer_member']}, "
               f"subscriber {n['payer_subscriber']} ({n['payer_relationship']}), coverage from {n['payer_effective']}.")
    actor.click("#correct button:text-is('Save correction')")
    if not actor.count(".alert-success:has-text('Coverage corrected')"):
        raise ScriptFailed(f"the coverage was not corrected: {actor.text('#correct')[:400]}")
    n["corrected"] = "yes"


def resubmit(work: Work) -> None:
    """The claim page's Resubmit claim, under the corrected member id, within the filing limit."""
    n = work.notes
    if parse_us_date(n["last_day"]) < work.task.now.date():
        raise ScriptFailed(f"the filing limit ended {n['last_day']}: nothing to resubmit")
    ehr_denials.resubmit_original(
        work, n["last_day"],
        f"{n['payer']} could not identify the patient under member ID {n['member_id']} (CO-{UNIDENTIFIED}). Its "
        f"eligibility by name and date of birth (inquiry {n['elig_reference']}) holds the patient as member "
        f"{n['payer_member']}, active on the date of service {n['service_date']}; registration corrected.")
    n["resubmitted"] = us_date(work.task.now.date())


def note_text(work: Work) -> str:
    n = work.notes
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    return (f"Claim {n['claim_number']} (DOS {n['service_date']}) denied {n['denials']}: {n['payer']} could not "
            f"identify the patient under member ID {n['member_id']}. Its eligibility by name and date of birth "
            f"(inquiry {n['elig_reference']}) shows the patient as member {n['payer_member']}, subscriber "
            f"{n['payer_subscriber']} ({n['payer_relationship']}), coverage from {n['payer_effective']}, "
            f"{n['elig_status']} on the date of service. Registration corrected to it. Filing limit "
            f"{n['limit_days']} days from the date of service, last day {n['last_day']}: resubmitted the claim as an "
            f"original claim (frequency 1) under member ID {n['payer_member']} on {n['resubmitted']}, not a "
            f"corrected claim or an appeal. Follow up on {follow_up}: confirm {n['payer']} accepted it.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if "carcs" not in work.notes:
        work.finish("Nothing done: the denial was not reviewed.")
        return
    if work.doing("check_eligibility"):
        check_eligibility(work)
    n = work.notes
    if n.get("elig_status") != "Active":
        work.finish("Nothing corrected or resubmitted: the payer's membership for the date of service was not found.")
        return
    if work.doing("correct_registration"):
        correct_registration(work)
    if "corrected" not in n:
        work.finish("Nothing resubmitted: the registration was not corrected.")
        return
    if work.doing("resubmit_claim"):
        check_limit(work)
        resubmit(work)
    record_resubmission(work, note_text)
