"""Reference solution of template appeals/appeal_follow_up: the denial item records an appeal
the desk filed, and its follow-up date has come. Open the item (its appeal reference) and the
claim, look the appeal up on the payer's portal by that reference, and file nothing. Still in
review: keep Appeal Filed with the next follow-up the day after the decision is due, and note
the status. Overturned: note the decision and what the payer did with the claim, and resolve
the item.
"""
from __future__ import annotations

import re
from datetime import timedelta

from admindesk.harness.agents.reference import portal_b
from admindesk.harness.agents.reference.appeals import denial_facts, ehr_denials
from admindesk.harness.agents.reference.appeals.portal_appeal import portal_of
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE_DUE = re.compile(r"decision will be issued by (\d\d-[A-Z][a-z]{2}-\d{4})")


def _portal_a_status(work: Work) -> dict[str, str]:
    actor = work.actor
    if actor.fact("Status") != "Decided":
        return {"status": actor.fact("Status"), "due": actor.fact("Decision due")}
    return {"status": "Decided", "decision": actor.fact("Decision"), "reason": actor.fact("Reason"),
            "decided": actor.fact("Decided").split()[0]}


def _portal_b_status(work: Work) -> dict[str, str]:
    actor = work.actor
    heading = actor.text("#appeal-status")
    section = actor.text("section[aria-labelledby='appeal-status'] p")
    if "Decision:" not in heading:
        due = KEYSTONE_DUE.search(" ".join(section.split()))
        if due is None:
            raise ScriptFailed(f"the appeal in review shows no decision-due date: {section}")
        return {"status": heading.removeprefix("Status:").strip(),
                "due": portal_b.shown_date(due.group(1)).strftime("%m/%d/%Y")}
    decided = portal_b.appeal_decided_on(work)
    if decided is None:
        raise ScriptFailed(f"the decided appeal shows no decision date: {heading}")
    return {"status": "Decided", "decision": heading.split("Decision:")[-1].strip(), "reason": section,
            "decided": decided.strftime("%m/%d/%Y")}


def check_status(work: Work) -> dict[str, str]:
    """The item (the appeal reference it records), the claim, then the claim on the payer's
    portal (its status and payment after any reprocessing) and the appeal with that reference."""
    ehr_denials.open_denial_item(work)
    reference = work.actor.fact("Appeal / corrected claim #")
    work.notes["appeal_reference"] = reference
    ehr_denials.open_claim(work)
    claim = denial_facts.portal_claim(work, work.need("claim_number"))
    if not any(reference in row for row in claim["appeals"]):
        raise ScriptFailed(f"appeal {reference} is not on the claim's appeals tab: {claim['appeals']}")
    work.actor.click(f"main table a:text-is('{reference}')")
    portal = portal_of(work)
    shown = _portal_a_status(work) if portal == "A" else _portal_b_status(work)
    return {**shown, "portal": portal, "claim_status": claim["status"], "paid": claim["paid"],
            "paid_on": claim["paid_on"]}


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    appeal: dict[str, str] = {}
    if work.doing("check_status"):
        appeal = check_status(work)
    if not appeal:
        work.finish("Nothing changed: the appeal was not looked up at the payer.")
        return
    n, reference = work.notes, work.notes["appeal_reference"]
    where = f"claim {n['claim_number']} (DOS {n['service_date']}, {n['payer']})"
    if appeal["status"] != "Decided":
        follow_up = parse_us_date(appeal["due"]) + timedelta(days=1)
        if work.doing("record_status"):
            ehr_denials.set_item_status(work, "Appeal Filed", follow_up=follow_up)
        if work.doing("explain"):
            ehr_denials.add_item_note(
                work, f"Follow-up of appeal {reference} on {where}: checked on the payer's portal today; the appeal "
                      f"is {appeal['status']}, decision due {appeal['due']}. Nothing was filed again. The item stays "
                      f"Appeal Filed; next follow-up {follow_up:%m/%d/%Y}, the day after the decision is due (call "
                      f"the payer if no decision has come).")
        work.finish(f"Appeal {reference} on {where} is still {appeal['status']} at the payer, decision due "
                    f"{appeal['due']}. Nothing was filed again; the item stays Appeal Filed with a new follow-up "
                    f"date of {follow_up:%m/%d/%Y}.")
        return
    if appeal["decision"].lower() != "overturned":
        raise ScriptFailed(f"appeal {reference} was {appeal['decision']}; this template resolves an overturn only")
    if work.doing("record_status"):
        ehr_denials.set_item_status(work, "Resolved")
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Follow-up of appeal {reference} on {where}: the payer overturned the denial on "
                  f"{appeal['decided']} (\"{appeal['reason']}\"). The payer's portal shows the claim {appeal['claim_status']}, "
                  f"{appeal['paid']} paid on {appeal['paid_on']}. Nothing was filed; item resolved.")
    work.finish(f"Appeal {reference} on {where} was overturned on {appeal['decided']}; the payer shows the claim "
                f"{appeal['claim_status']} ({appeal['paid']} paid on {appeal['paid_on']}). Nothing was filed; the "
                f"Denials item is Resolved.")
