"""Reference solution of template appeals/level2_appeal: the denial item records a level-1
appeal the payer upheld. Read the claim, its EOB and the chart (the document the decision
lacked is downloaded), open the level-1 appeal on the payer's portal for its decision, date
and reason, and read the level-2 window (portal A: the decision letter's "Next level" line;
Keystone Mutual: its Appeal Status page). Inside the window: file the level 2 with that
document and a letter answering the decision, record it on the item and leave a note.
Past it: file nothing, write down why and set the item to Write-off Requested.
"""
from __future__ import annotations

import re
from datetime import date, timedelta

from admindesk.harness.agents.reference import portal_a, portal_b
from admindesk.harness.agents.reference.appeals import denial_facts, ehr_denials
from admindesk.harness.agents.reference.appeals.portal_appeal import (
    clinical_facts,
    document_type,
    follow_up_day,
    portal_of,
    proof_document,
)
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

WRITE_OFF = "Write-off Requested"
LEVEL2_FORMS = {"A": ("Formal Appeal", "Medical necessity"), "B": ("Formal appeal", "Medical necessity")}
PORTAL_A_WINDOW = re.compile(r"within (\d+) days of this notice \(by (\d\d/\d\d/\d{4})\)")
# Keystone Mutual's Appeal Status page: the window each later level opens, by that level.
KEYSTONE_WINDOWS = {"2": re.compile(r"opens a level 2 appeal for (\d+) days"),
                    "External review": re.compile(r"opens an external review for (\d+) days")}


def review_denial(work: Work, download: bool) -> None:
    """The Denials item (the reference of the appeal it records: `prior_reference`), the claim
    and its denied lines, the EOB, the chart documents (the proof downloaded when it will be
    sent) and the order."""
    ehr_denials.open_denial_item(work)
    work.notes["prior_reference"] = work.actor.fact("Appeal / corrected claim #")
    ehr_denials.open_claim(work)
    work.notes["reasons"] = denial_facts.denial_reasons(work)
    ehr_denials.open_remittance(work)
    attach = proof_document(work) if download else None
    for document in work.case.get("documents", []):
        name = ehr_denials.open_chart_document(work, document["key"], download=document["key"] == attach)
        if name:
            work.notes.update(attachment_file=name, attachment_title=work.notes[f"doc_{attach}_title"])
    ehr_denials.open_order_from_claim(work)


def _portal_a_decision(work: Work) -> dict[str, str]:
    actor = work.actor
    shown = {"decision": actor.fact("Decision"), "reason": actor.fact("Reason"),
             "decided": actor.fact("Decided").split()[0]}
    actor.click("xpath=//dt[normalize-space()='Decision letter']/following-sibling::dd[1]/a")
    window = PORTAL_A_WINDOW.search(" ".join(actor.text("div.letter-body").split()))
    if window is None:
        raise ScriptFailed("the decision letter states no next-level window")
    return {**shown, "window_days": window.group(1), "last_day": window.group(2)}


def _portal_b_decision(work: Work, next_level: str) -> dict[str, str]:
    actor = work.actor
    status = actor.text("#appeal-status")
    decided = portal_b.appeal_decided_on(work)
    if decided is None:
        raise ScriptFailed(f"appeal shows no decision date: {status}")
    shown = {"decision": status.split("Decision:")[-1].strip(),
             "reason": actor.text("section[aria-labelledby='appeal-status'] p"),
             "decided": decided.strftime("%m/%d/%Y")}
    actor.click("main a:has-text('Appeal Status')")
    window = KEYSTONE_WINDOWS[next_level].search(" ".join(actor.text("main p.lede").split()))
    if window is None:
        raise ScriptFailed(f"Keystone Mutual's Appeal Status page states no window for {next_level}")
    last_day = parse_us_date(shown["decided"]) + timedelta(days=int(window.group(1)))
    return {**shown, "window_days": window.group(1), "last_day": last_day.strftime("%m/%d/%Y")}


def read_decision(work: Work, portal: str, next_level: str = "2") -> dict[str, str]:
    """The claim on the payer's portal (EOB and appeals tabs), then the decided appeal the item
    records (level 1 before a level 2, level 2 before an external review): its decision, date
    and reason, and the window `next_level` has from that decision (Keystone's level names)."""
    reference = work.need("prior_reference")
    facts = denial_facts.portal_claim(work, work.need("claim_number"))
    if not any(reference in row for row in facts["appeals"]):
        raise ScriptFailed(f"appeal {reference} is not on the claim's appeals tab: {facts['appeals']}")
    work.actor.click(f"main table a:text-is('{reference}')")
    decision = _portal_a_decision(work) if portal == "A" else _portal_b_decision(work, next_level)
    if decision["decision"].lower() == "overturned":
        raise ScriptFailed(f"appeal {reference} overturned the denial; there is no later level to file")
    return decision


def level2_letter(work: Work, decision: dict[str, str]) -> str:
    """The level-2 letter: who and what, the upheld decision it appeals, the answer to what
    that decision found missing, the request, the enclosure and whom to call."""
    n = work.notes
    return (f"Re: Level 2 appeal of claim {n['claim_number']} (level 1 appeal {n['prior_reference']})\n\n"
            f"Patient: {work.patient_name}, date of birth {us_date(work.patient['dob'])}, member ID "
            f"{n['member_id']}. Claim {n['claim_number']}, date of service {n['service_date']}, {n['service']} "
            f"(diagnoses {n['diagnoses']}), billed {n['billed']}, ordered by {n['provider']}.\n\n"
            f"{n['payer']} denied the claim with {n['denials']} ({n['codes_explained']}). Our level 1 appeal "
            f"{n['prior_reference']} was upheld on {decision['decided']}: \"{decision['reason']}\"\n\n"
            f"That record is enclosed: {n['attachment_title']}. It documents {'; '.join(clinical_facts(work))}. "
            f"With it the chart meets {n['payer']}'s medical-necessity criteria for {n['service']}, which answers "
            f"the reason the level 1 decision gave.\n\n"
            f"We request that {n['payer']} overturn the denial at level 2 and reprocess and pay claim "
            f"{n['claim_number']}.\nEnclosed: {n['attachment_title']}.\n"
            f"For questions contact {n['user_name']}, Susquehanna Valley Health, at {n['provider_phone']}.")


def file_level2(work: Work, portal: str, decision: dict[str, str]) -> dict[str, str]:
    n = work.notes
    kind, reason = LEVEL2_FORMS[portal]
    attachment = (n["attachment_file"], document_type(n["attachment_title"], portal))
    if portal == "B":
        return portal_b.file_appeal(
            work, n["claim_number"], kind=kind, reason=reason, explanation=level2_letter(work, decision),
            appellant=n["user_name"], service_day=parse_us_date(n["service_date"]), billed=n["billed"],
            attachments=[attachment], level="2")
    return portal_a.file_appeal(
        work, n["claim_number"], appeal_type=kind, reason=reason, letter=level2_letter(work, decision),
        contact_name=n["user_name"], contact_phone=n["provider_phone"], attachment=attachment, level="2")


def stop_note(work: Work, decision: dict[str, str], today: date) -> str:
    n = work.notes
    return (f"Claim {n['claim_number']} for {work.patient_name} (DOB {work.patient['dob']}), {n['payer']} member "
            f"{n['member_id']}, date of service {n['service_date']}: denied {n['reasons']}. Level 1 appeal "
            f"{n['prior_reference']} was {decision['decision'].lower()} on {decision['decided']} "
            f"(\"{decision['reason']}\"). The payer's portal gives {decision['window_days']} days from that decision "
            f"for a level 2 appeal: the last day was {decision['last_day']}. Today is {today:%m/%d/%Y}, so the "
            f"level 2 window has closed (the first-level deadline on the EOB, {n['appeal_deadline']}, passed "
            f"too). No level 2 appeal, corrected claim or fax was filed. Request: the revenue cycle supervisor "
            f"to approve writing off the {n['billed']} balance as a contractual adjustment, or to escalate if "
            f"an exception applies; the patient is not to be billed. Item set to {WRITE_OFF}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    feasible, portal = work.task.feasible, None
    if work.doing("review_denial"):
        review_denial(work, download=feasible)
    decision: dict[str, str] = {}
    if work.doing("read_decision"):
        portal = portal_of(work)
        decision = read_decision(work, portal)
    if not decision:
        work.finish("Nothing filed: the level-1 decision and the level-2 window were not read.")
        return
    today = work.task.now.date()
    window_open = parse_us_date(decision["last_day"]) >= today
    if feasible != window_open:
        raise ScriptFailed(f"the level 2 window ends {decision['last_day']}; the task says feasible={feasible}")
    if not feasible:
        if work.doing("document_stop"):
            ehr_denials.add_item_note(work, stop_note(work, decision, today))
            work.notes["stop_documented"] = "yes"
        if work.doing("close_item"):
            work.need("stop_documented")  # a write-off request goes up only with its reason written down
            ehr_denials.set_item_status(work, WRITE_OFF)
        work.finish(f"Nothing was filed: level 1 appeal {work.notes['prior_reference']} was upheld on "
                    f"{decision['decided']} and the level 2 window closed on {decision['last_day']}, before today "
                    f"({today:%m/%d/%Y}). The Denials item is set to {WRITE_OFF} with a note for the supervisor.")
        return
    appeal: dict[str, str] = {}
    if work.doing("file_appeal"):
        appeal = file_level2(work, portal, decision)
    if not appeal:
        work.finish("No level 2 appeal was filed; the denial item is unchanged.")
        return
    n, kind = work.notes, LEVEL2_FORMS[portal][0]
    follow_up = follow_up_day(appeal)
    if work.doing("record_appeal"):
        ehr_denials.record_filed_appeal(work, appeal, follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Denial {n['denials']} on claim {n['claim_number']} (DOS {n['service_date']}, {n['payer']}). "
                  f"Level 1 appeal {n['prior_reference']} was upheld on {decision['decided']}: {decision['reason']} "
                  f"Filed a level 2 {kind.lower()} on {appeal['submitted']} (window open until "
                  f"{decision['last_day']}), reference {appeal['reference']}, with {n['attachment_title']} to answer "
                  f"that decision. Payer status: {appeal['status']}, decision due {appeal['decision_due']}. Follow "
                  f"up on {follow_up:%m/%d/%Y} for the payer's decision; if none has come, call the payer.")
    work.finish(f"Level 1 appeal {n['prior_reference']} was upheld on {decision['decided']}. Filed a level 2 "
                f"{kind.lower()} of claim {n['claim_number']}: reference {appeal['reference']}, {appeal['status']} "
                f"(decision due {appeal['decision_due']}), with {n['attachment_title']} attached. Denial item "
                f"{n['item_id']} set to Appeal Filed, follow-up {follow_up:%m/%d/%Y}.")
