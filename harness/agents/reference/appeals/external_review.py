"""Reference solution of template appeals/external_review: the denial item records a level-2
appeal the payer upheld, as it had the level 1. Read the claim, its EOB and the chart (the
letter of medical necessity downloaded), open the level-2 appeal on the payer's portal for
its decision, date and reason, and read the external-review window that decision opens
(portal A: the decision letter's "Next level" line; Keystone Mutual: its Appeal Status
page). Request the independent external review there as the payer says (a clinical appeal at
the external-review level) with that letter and a request answering the decision, record it
on the item and leave a note.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import portal_a, portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.appeals.level2_appeal import read_decision, review_denial
from admindesk.harness.agents.reference.appeals.portal_appeal import (
    clinical_facts,
    document_type,
    follow_up_day,
    portal_of,
)
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

# Each portal's external-review level and the request's type and reason on its appeal form.
EXTERNAL_FORMS = {"A": ("External", "Clinical Appeal", "Medical necessity"),
                  "B": ("External review", "Clinical appeal", "Medical necessity")}


def review_request(work: Work, decision: dict[str, str]) -> str:
    """The request to the independent reviewer: who and what, the two upheld decisions, the
    answer to what the level-2 decision found missing, the request, the enclosure and whom to call."""
    n = work.notes
    return (f"Re: Request for independent external review of claim {n['claim_number']} (level 2 appeal "
            f"{n['prior_reference']})\n\n"
            f"Patient: {work.patient_name}, date of birth {us_date(work.patient['dob'])}, member ID "
            f"{n['member_id']}. Claim {n['claim_number']}, date of service {n['service_date']}, {n['service']} "
            f"(diagnoses {n['diagnoses']}), billed {n['billed']}, ordered by {n['provider']}.\n\n"
            f"{n['payer']} denied the claim with {n['denials']} ({n['codes_explained']}). The level 1 and level 2 "
            f"appeals were upheld; the level 2 decision of {decision['decided']} (appeal {n['prior_reference']}) "
            f"states: \"{decision['reason']}\"\n\n"
            f"The enclosed {n['attachment_title']} documents {'; '.join(clinical_facts(work))}. With it the chart "
            f"meets {n['payer']}'s medical-necessity criteria for {n['service']}, which answers the reason the level 2 "
            f"decision gave.\n\n"
            f"We request that an independent review organization review this medical necessity denial, overturn it, "
            f"and that {n['payer']} reprocess and pay claim {n['claim_number']}.\n"
            f"Enclosed: {n['attachment_title']}.\n"
            f"For questions contact {n['user_name']}, Susquehanna Valley Health, at {n['provider_phone']}.")


def file_review(work: Work, portal: str, decision: dict[str, str]) -> dict[str, str]:
    n = work.notes
    level, kind, reason = EXTERNAL_FORMS[portal]
    attachment = (n["attachment_file"], document_type(n["attachment_title"], portal))
    if portal == "B":
        return portal_b.file_appeal(
            work, n["claim_number"], kind=kind, reason=reason, explanation=review_request(work, decision),
            appellant=n["user_name"], service_day=parse_us_date(n["service_date"]), billed=n["billed"],
            attachments=[attachment], level=level)
    return portal_a.file_appeal(
        work, n["claim_number"], appeal_type=kind, reason=reason, letter=review_request(work, decision),
        contact_name=n["user_name"], contact_phone=n["provider_phone"], attachment=attachment, level=level)


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review_denial(work, download=True)
    decision: dict[str, str] = {}
    portal = None
    if work.doing("read_decision"):
        portal = portal_of(work)
        decision = read_decision(work, portal, next_level="External review")
    if not decision:
        work.finish("Nothing filed: the level-2 decision and the external review window were not read.")
        return
    today = work.task.now.date()
    if parse_us_date(decision["last_day"]) < today:
        raise ScriptFailed(f"the external review window ended {decision['last_day']}; every case of this "
                           "template is inside it")
    review: dict[str, str] = {}
    if work.doing("file_review"):
        review = file_review(work, portal, decision)
    if not review:
        work.finish("No external review was requested; the denial item is unchanged.")
        return
    n = work.notes
    follow_up = follow_up_day(review)
    if work.doing("record_review"):
        ehr_denials.record_appeal(work, reference=review["reference"], submitted_on=parse_us_date(review["submitted"]),
                                  follow_up=follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Denial {n['denials']} on claim {n['claim_number']} (DOS {n['service_date']}, {n['payer']}). "
                  f"Level 1 and level 2 appeals upheld; level 2 appeal {n['prior_reference']} decided on "
                  f"{decision['decided']}: {decision['reason']} The payer allows {decision['window_days']} days from "
                  f"that decision for an independent external review (last day {decision['last_day']}). Requested "
                  f"the external review on {review['submitted']}, reference {review['reference']}, as a clinical "
                  f"appeal with {n['attachment_title']}. Payer status: {review['status']}, decision due "
                  f"{review['decision_due']}. Follow up on {follow_up:%m/%d/%Y} for the reviewer's decision, which is "
                  f"final.")
    work.finish(f"Level 2 appeal {n['prior_reference']} was upheld on {decision['decided']}. Requested an independent "
                f"external review of claim {n['claim_number']}: reference {review['reference']}, {review['status']} "
                f"(decision due {review['decision_due']}), with {n['attachment_title']} attached. Denial item "
                f"{n['item_id']} set to Appeal Filed, follow-up {follow_up:%m/%d/%Y}.")
