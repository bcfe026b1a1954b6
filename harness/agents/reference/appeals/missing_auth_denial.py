"""Reference solution of template appeals/missing_auth_denial: a claim line denied CO-197
(authorization absent) although the practice obtained an authorization.

The authorization is read where it lives: the claim's authorization field and the order's
authorization section in the EHR, then its case at the payer (portal A), whose determination gives
the approved units and dates. What it covers against the denied line (code, units, date of
service) decides, with the payer's provider manual (its CO-197 chapter and its retro rule):
- it covers the line and the claim went out without its number: one corrected claim (frequency
  code 7) carrying the number (route "reconsideration": a level-1 reconsideration citing it),
  recorded on the Denials item;
- it does not cover the line and the payer's rules leave nothing to file after the service:
  nothing filed, nothing billed to the patient; the item goes to Write-off Requested with a note.
"""
from __future__ import annotations

import re
from datetime import date, timedelta

from admindesk.harness.agents.reference import portal_a
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.appeals.who_pays.timely_filing import WRITE_OFF
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

ROUTES = ("reconsideration",)  # the payer's manual accepts either fix of a claim sent without the number
AUTH_ABSENT_CARC = "197"
APPEAL_FOLLOW_UP_DAYS = 14  # an overturned reconsideration's reprocessed payment shows within two weeks
RETRO_RULE = re.compile(r"within (\d+) calendar days after the date of service, for (emergent services only|any service)")
RETRO_SENTENCE = re.compile(r"(Retro-authorization is accepted|This payer does not accept retro-authorization)[^.]*\.")


def review(work: Work) -> None:
    """The Denials item, the claim (its authorization field and its line), the remittance's codes
    and the order's authorization section."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    lines = steps.read_claim_lines(work)
    if len(lines) != 1:
        raise ScriptFailed(f"this solution works one-line claims; the claim has {len(lines)} lines")
    work.notes.update(billed_code=lines[0]["code"], billed_units=lines[0]["units"])
    ehr_denials.open_remittance(work)
    if AUTH_ABSENT_CARC not in work.notes["carcs"].split(", "):
        raise ScriptFailed(f"the claim is not denied CO-197: {work.notes['denials']}")
    ehr_denials.back_to_claim(work)
    facts = ehr_denials.open_order_from_claim(work)
    if "auth_number" not in facts:
        raise ScriptFailed("the order records no approved authorization")
    work.notes["order_code"] = facts["service"].split()[0]


def find_auth(work: Work) -> None:
    """The order's authorization at the payer (its case: units and dates as the payer approved
    them), the payer's manual on CO-197 denials and retro-authorization, and the claim there."""
    n = work.notes
    decision = portal_a.open_case(work, work.need("auth_reference"))
    if decision.get("auth_number") != n["auth_number"]:
        raise ScriptFailed(f"the payer's case is not the authorization the order records: {decision}")
    n.update(payer_units=decision["units"], payer_start=decision["start"], payer_end=decision["end"])
    payer_id = portal_a.PAYER_IDS[n["payer"]]
    n["manual_rule"] = portal_a.manual_chapter(work, payer_id, "Authorization-absent denials")
    chapter = portal_a.manual_chapter(work, payer_id, "Retro authorization")
    rule = RETRO_SENTENCE.search(chapter)
    if rule is None:
        raise ScriptFailed(f"the manual states no retro-authorization rule: {chapter[:300]}")
    n["retro_rule"] = rule.group(0)
    portal_a.open_claim(work, n["claim_number"])


def gaps(work: Work) -> list[str]:
    """What the authorization does not cover of the denied line (empty: it covers it)."""
    n = work.notes
    service_day = parse_us_date(n["service_date"])
    start, end = parse_us_date(n["payer_start"]), parse_us_date(n["payer_end"])
    found = []
    if n["billed_code"] != n["order_code"]:
        found.append(f"it approves CPT {n['order_code']}, the line bills {n['billed_code']}")
    if int(n["billed_units"]) > int(n["payer_units"]):
        found.append(f"it approves {n['payer_units']} unit(s), the line bills {n['billed_units']}")
    if not start <= service_day <= end:
        found.append(f"its approved dates {n['payer_start']} through {n['payer_end']} do not include the date of "
                     f"service {n['service_date']}")
    return found


def retro_reaches(work: Work, today: date) -> bool:
    """Whether the payer's retro-authorization rule still reaches this (routine) service."""
    found = RETRO_RULE.search(work.need("retro_rule"))
    if found is None:
        return False  # the payer takes no retro-authorization
    last_day = parse_us_date(work.notes["service_date"]) + timedelta(days=int(found.group(1)))
    return today <= last_day and found.group(2) == "any service"


def appeal_letter(work: Work) -> str:
    n = work.notes
    return (f"Re: {work.patient_name}, DOB {work.patient['dob']}, member ID {n['member_id']}. Claim {n['claim_number']}, "
            f"date of service {n['service_date']}, CPT {n['billed_code']}.\n\n"
            f"{n['payer']} denied the claim {n['denials']} (authorization absent). The service was authorized: "
            f"authorization {n['auth_number']} (case {n['auth_reference']}) approves {n['payer_units']} unit(s) of CPT "
            f"{n['order_code']} from {n['payer_start']} through {n['payer_end']}, which includes the date of service. "
            "The claim was sent without the authorization number.\n\nPlease overturn the CO-197 denial and reprocess "
            f"and pay the claim under authorization {n['auth_number']}. Nothing is enclosed; the authorization is on "
            f"file with you. For questions, contact {n['user_name']} at {n['provider_phone']}.")


def send_fix(work: Work) -> dict[str, str]:
    """One corrected claim carrying the number (or, on route "reconsideration", a reconsideration
    citing it); returns the payer's number, status and, for an appeal, its dates."""
    n = work.notes
    if work.route == "reconsideration":
        shown = portal_a.file_appeal(work, n["claim_number"], appeal_type="Reconsideration",
                                     reason="Authorization was on file", letter=appeal_letter(work),
                                     contact_name=n["user_name"], contact_phone=n["provider_phone"],
                                     cited_auth=n["auth_number"])
        return {"kind": "reconsideration", "number": shown["reference"], "status": shown["decision"] or shown["status"],
                "submitted": shown["submitted"]}
    change = steps.Replacement(reason=f"Adds authorization number {n['auth_number']}, approved for CPT "
                                      f"{n['order_code']} on the date of service, in answer to the CO-197 denial. "
                                      "Nothing else changed.", auth_number=n["auth_number"])
    shown = steps.submit_replacement(work, "a", n["claim_number"], change)
    return {"kind": "corrected claim", "number": shown["number"], "status": shown["status"]}


def record_fix(work: Work, filed: dict[str, str]) -> date:
    """The Denials item: Corrected Claim Sent or Appeal Filed, the payer's number, a follow-up date."""
    if filed["kind"] == "corrected claim":
        steps.record_on_item(work, filed["number"])
        return steps.follow_up_day(work)
    follow_up = work.task.now.date() + timedelta(days=APPEAL_FOLLOW_UP_DAYS)
    ehr_denials.record_appeal(work, reference=filed["number"], submitted_on=parse_us_date(filed["submitted"]),
                              follow_up=follow_up)
    return follow_up


def blank_as(value: str) -> str:
    """A claim field as a note says it: the EHR shows an empty one as "None"."""
    return "(blank)" if value in ("", "None") else value


def route_of_this_item(work: Work, subtask: str) -> None:
    """Stop when what was read points to a route this work item has no step for (it is another
    patient's claim, or not the item that was assigned)."""
    if subtask not in {s.id for s in work.task.subtasks}:
        raise ScriptFailed(f"what the authorization covers calls for {subtask!r}, which is not this item's work")


def auth_text(work: Work) -> str:
    n = work.notes
    return (f"Claim {n['claim_number']} ({n['payer']}, member {n['member_id']}, DOS {n['service_date']}, CPT "
            f"{n['billed_code']} x {n['billed_units']}) denied {n['denials']} (remittance {n['remittance_id']}, "
            f"{n['paid_on']}). Authorization on file for the order: {n['auth_number']} (case {n['auth_reference']}), "
            f"{n['payer_units']} unit(s) of CPT {n['order_code']}, {n['payer_start']} through {n['payer_end']}; the "
            f"claim's auth field reads {blank_as(n['claim_auth'])}. ")


def fix_note(work: Work, filed: dict[str, str], follow_up: date) -> str:
    return auth_text(work) + (
        f"It covers the billed code, units and date of service; the claim went out without its number. Filed a "
        f"{filed['kind']} on portal A carrying authorization {work.notes['auth_number']}: {filed['number']}, "
        f"{filed['status']}. Follow up on {follow_up:%m/%d/%Y} for the payment.")


def write_off_note(work: Work, not_covered: list[str]) -> str:
    n = work.notes
    return auth_text(work) + (
        f"It does not cover the line: {'; '.join(not_covered)}. {n['payer']}'s provider manual: an approved "
        f"authorization changes only before it expires and never to a past start date. {n['retro_rule']} This "
        "routine service is outside that, so nothing can be filed (no corrected claim, reconsideration, change or "
        "retro request). The CO-197 is a contractual adjustment: the patient is not billed. Request: the revenue "
        "cycle supervisor to approve writing off the balance.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if work.doing("find_auth"):
        find_auth(work)
    work.need("payer_end")  # the decision needs the payer's own dates
    not_covered = gaps(work)
    if not not_covered:
        if blank_as(work.notes["claim_auth"]) != "(blank)":
            raise ScriptFailed("the claim carries the number of an authorization that covers it; CO-197 has another cause")
        route_of_this_item(work, "send_fix")
        filed: dict[str, str] = {}
        if work.doing("send_fix"):
            filed = send_fix(work)
        if not filed:
            work.finish("Nothing filed; the denial item is unchanged.")
            return
        follow_up = work.task.now.date()
        if work.doing("record_fix"):
            follow_up = record_fix(work, filed)
        if work.doing("explain"):
            ehr_denials.add_item_note(work, fix_note(work, filed, follow_up))
        work.finish(fix_note(work, filed, follow_up))
        return
    if retro_reaches(work, work.task.now.date()):
        raise ScriptFailed("the payer's retro rule still reaches this service; this solution files no retro request")
    route_of_this_item(work, "document_write_off")
    if work.doing("document_write_off"):
        ehr_denials.add_item_note(work, write_off_note(work, not_covered))
        work.notes["write_off_documented"] = "yes"
    if work.doing("close_item"):
        work.need("write_off_documented")  # a write-off request goes up only with its reason written down
        ehr_denials.set_item_status(work, WRITE_OFF)
    work.finish(write_off_note(work, not_covered) + f" Nothing filed; denial item set to {WRITE_OFF}.")
