"""Reference solution of template appeals/recoupment: Keystone's overpayment notice will take
a paid claim's payment back as a duplicate of a claim it paid first. Open the item and the
claim in the EHR, then the claim on Keystone's portal (its Overpayment Recovery panel names
the claim paid first, the amount and the dispute date) and the claim paid first, and compare
their service lines (code, modifiers, units) for the same date. The same service: file
nothing, resolve the item with a note. Different services: dispute the recovery (level-1
reconsideration, reason Overpayment recovery) and record it as Appeal Filed.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.appeals.portal_appeal import follow_up_day
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

LINE_COLUMNS = ("line", "code", "modifiers", "units", "diagnoses", "billed", "paid")


def keystone_lines(work: Work) -> list[tuple[str, str, str]]:
    """The open Keystone claim's service lines as (code, modifiers, units)."""
    rows = work.env.page_locator("main table.grid tbody tr").all()
    lines = [dict(zip(LINE_COLUMNS, (cell.inner_text().strip() for cell in row.locator("td").all()))) for row in rows]
    if not lines:
        raise ScriptFailed(f"the claim shows no service lines: {work.actor.text('main')[:300]}")
    return [(line["code"], line["modifiers"], line["units"]) for line in lines]


def describe(lines: list[tuple[str, str, str]]) -> str:
    return ", ".join(f"{code}" + (f"-{modifiers}" if modifiers else "") + f" x{units}"
                     for code, modifiers, units in lines)


def review_recovery(work: Work) -> dict[str, str]:
    """The item and claim in the EHR, then the recovery and both claims on Keystone's portal."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    n = work.notes
    portal_b.open_claim(work, n["claim_number"])
    actor = work.actor
    recovery = {"first": actor.fact("Claim Paid First"), "amount": actor.fact("Amount"),
                "dispute_by": actor.fact("Dispute By"), "offset_on": actor.fact("Offset On or After"),
                "notice": actor.fact("Notice").split()[0], "service_date": actor.fact("Date of Service")}
    mine = keystone_lines(work)
    recovery["lines"] = describe(mine)
    actor.click(f"main a:text-is('{recovery['first']}')")
    portal_b.stay_signed_in(work)
    if actor.fact("Date of Service") != recovery["service_date"]:
        raise ScriptFailed(f"claim {recovery['first']} is for another date of service")
    first = keystone_lines(work)
    recovery.update(first_lines=describe(first), same="yes" if sorted(first) == sorted(mine) else "")
    return recovery


def dispute_letter(work: Work, recovery: dict[str, str]) -> str:
    n, patient = work.notes, work.patient
    return (f"Dispute of overpayment recovery, notice {recovery['notice']}: claim {n['claim_number']}, patient "
            f"{patient['first_name']} {patient['last_name']} (DOB {patient['dob']}, member ID {n['member_id']}), "
            f"date of service {n['service_date']}, amount {recovery['amount']}. The notice treats this claim as a "
            f"duplicate of claim {recovery['first']}, but the two claims bill different services: claim "
            f"{recovery['first']} billed {recovery['first_lines']} and claim {n['claim_number']} billed "
            f"{recovery['lines']}, two separate procedures on the same date as the procedure note documents. "
            f"Neither payment duplicates the other. Please withdraw the recovery and keep the payment on claim "
            f"{n['claim_number']}. Questions: {n['user_name']}, billing office.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    recovery: dict[str, str] = {}
    if work.doing("review_recovery"):
        recovery = review_recovery(work)
    if not recovery:
        work.finish("Nothing changed: the recovery was not reviewed.")
        return
    n = work.notes
    compared = (f"claim {n['claim_number']} ({recovery['lines']}) and claim {recovery['first']} "
                f"({recovery['first_lines']}), both date of service {n['service_date']}")
    if recovery["same"]:
        if work.doing("resolve_item"):
            ehr_denials.set_item_status(work, "Resolved")
        if work.doing("explain"):
            ehr_denials.add_item_note(
                work, f"Keystone overpayment notice {recovery['notice']}: it recovers {recovery['amount']} paid on "
                      f"{compared}. Same service billed twice: claim {n['claim_number']} repeats claim "
                      f"{recovery['first']}, which keeps its payment. The recovery is right; Keystone offsets it on "
                      f"or after {recovery['offset_on']}. Nothing disputed; item resolved.")
        work.finish(f"Claim {n['claim_number']} repeats claim {recovery['first']} (the same service on the same "
                    f"date), so Keystone's recovery of {recovery['amount']} is right and will be offset on or after "
                    f"{recovery['offset_on']}. Nothing was filed; the item is Resolved.")
        return
    appeal: dict[str, str] = {}
    if work.doing("dispute_recovery"):
        appeal = portal_b.file_appeal(
            work, n["claim_number"], kind="Reconsideration", reason="Overpayment recovery",
            outcome="Withdraw the overpayment recovery", explanation=dispute_letter(work, recovery),
            appellant=n["user_name"], service_day=parse_us_date(n["service_date"]), billed=n["billed"],
            attachments=[])
    if not appeal:
        work.finish("Stopped: the recovery was not disputed.")
        return
    follow_up = follow_up_day(appeal)
    if work.doing("record_appeal"):
        ehr_denials.record_filed_appeal(work, appeal, follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Keystone overpayment notice {recovery['notice']} would recover {recovery['amount']} as a "
                  f"duplicate, but {compared} are different services. Disputed the recovery: appeal "
                  f"{appeal['reference']} (level 1 reconsideration, Overpayment recovery), {appeal['status']}, "
                  f"decision due {appeal['decision_due']}; Keystone holds the recovery meanwhile. Follow up on "
                  f"{follow_up:%m/%d/%Y}.")
    work.finish(f"Keystone's duplicate finding is wrong: {compared} are different services. Dispute "
                f"{appeal['reference']} filed ({appeal['status']}); the item is Appeal Filed, follow-up "
                f"{follow_up:%m/%d/%Y}.")
