"""Reference solution of template appeals/records_request: a payer held a claim for medical
records (CO-252) and its records-request letter, in the fax inbox, lists the records, the
channel and the response date.

The coordinator reads the letter's own dates (a copy re-faxed later keeps the original ones):
before its response date, the chart document of the date the letter lists (not a similar note of
another date) goes on the claim's level-1 reconsideration on portal A, as the letter says, and the
denial item records it; past that date and the claim's appeal deadline nothing is sent, the note
says why and the item asks for the write-off.
"""
from __future__ import annotations

import re
from datetime import date

from admindesk.harness.agents.reference import fax_steps, portal_a
from admindesk.harness.agents.reference.appeals import denial_facts, ehr_denials
from admindesk.harness.agents.reference.appeals.past_deadline import WRITE_OFF, portal_finding
from admindesk.harness.agents.reference.appeals.portal_appeal import check_portal, document_type, follow_up_day
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

RECORDS_REASON = "Missing information now provided"  # the reason the payer's letter names
LETTER_DATE = re.compile(r"Letter date:\s*(\d\d/\d\d/\d{4})")
RESPOND_BY = re.compile(r"by\s+(\d\d/\d\d/\d{4})")
# The letter's numbered list, between "Send:" and what follows it.
RECORDS_LIST = re.compile(r"Send:(.+?)(?:Send only|How to respond)", re.S)
US_DATE = re.compile(r"\d\d/\d\d/\d{4}")


def read_request(work: Work) -> dict[str, str]:
    """The payer's letter about this patient, found in the fax inbox by the number it came
    from: its date, its response date and the records it lists (into work.notes)."""
    spec = next(f for f in work.case["faxes"] if f.get("from_number"))
    name = work.patient_name
    row, _, text = fax_steps.find_fax(work, fax_steps.case_fax_number(work, spec["key"]),
                                      lambda page: name in page and "Send:" in page, f"a records request for {name}")
    text = " ".join(text.split())
    letter_date, respond_by, listed = LETTER_DATE.search(text), RESPOND_BY.search(text), RECORDS_LIST.search(text)
    if not (letter_date and respond_by and listed):
        raise ScriptFailed(f"fax {row['fax_id']} does not read as a records request: {text[:300]}")
    facts = {"request_fax": row["fax_id"], "request_received": row["received"], "letter_date": letter_date.group(1),
             "respond_by": respond_by.group(1), "records_asked": listed.group(1).strip()}
    work.notes.update(facts)
    return facts


def requested_document(work: Work, asked: str) -> tuple[str, date]:
    """The chart document the letter asks for, as (key, date): the one of the date the letter's
    list gives (a note of the same kind from another day is another encounter's record)."""
    days = {parse_us_date(day) for day in US_DATE.findall(asked)}
    dated = ((d["key"], date.fromisoformat(str(d["date"]))) for d in work.case.get("documents", []))
    matches = [(key, day) for key, day in dated if day in days]
    if len(matches) != 1:
        raise ScriptFailed(f"the chart holds {len(matches)} documents of the dates the letter lists: {asked}")
    return matches[0]


def review_request(work: Work) -> None:
    """The Denials item, the claim and its EOB, the order (for the office phone), the letter; then,
    when its response date has not passed, the record it lists, downloaded from the chart."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    work.notes["reasons"] = denial_facts.denial_reasons(work)
    ehr_denials.open_remittance(work)
    ehr_denials.open_order_from_claim(work)
    request = read_request(work)
    if parse_us_date(request["respond_by"]) < work.task.now.date():
        work.notes["late"] = "yes"
        return
    key, day = requested_document(work, request["records_asked"])
    file_name = ehr_denials.open_chart_document(work, key, download=True)
    title = work.notes[f"doc_{key}_title"]
    work.notes.update(attachment_file=file_name, attachment_title=f"{title}, dated {us_date(day)}")


def appeal_letter(work: Work) -> str:
    """The reconsideration's letter: who and what, the denial and the request it answers, what is
    enclosed, the request for payment and whom to call."""
    n = work.notes
    return (f"Re: Level 1 reconsideration of claim {n['claim_number']} - requested medical records\n\n"
            f"Patient: {work.patient_name}, date of birth {us_date(work.patient['dob'])}, member ID {n['member_id']}. "
            f"Claim {n['claim_number']}, date of service {n['service_date']}, {n['service']}, billed {n['billed']}.\n\n"
            f"{n['payer']} denied the claim on remittance {n['remittance_id']} of {n['paid_on']} with {n['denials']} "
            f"({n['codes_explained']}). Its records request dated {n['letter_date']} asks for: "
            f"{n['records_asked']}\n\nEnclosed is that record: {n['attachment_title']}. We request that "
            f"{n['payer']} adjudicate and pay claim {n['claim_number']} as billed.\n"
            f"Enclosed: {n['attachment_title']}.\n"
            f"For questions contact {n['user_name']}, Susquehanna Valley Health, at {n['provider_phone']}.")


def send_records(work: Work) -> dict[str, str]:
    """One level-1 reconsideration on portal A with the letter's reason and the record."""
    n = work.notes
    return portal_a.file_appeal(
        work, n["claim_number"], appeal_type="Reconsideration", reason=RECORDS_REASON, letter=appeal_letter(work),
        contact_name=n["user_name"], contact_phone=n["provider_phone"],
        attachment=(n["attachment_file"], document_type(n["attachment_title"], "A")))


def stop_note(work: Work, portal: dict) -> str:
    """Why nothing was sent: the letter's dates as it states them, the appeal deadline, today."""
    n = work.notes
    today = work.task.now.date()
    return (f"Claim {n['claim_number']} for {work.patient_name} (DOB {work.patient['dob']}), {n['payer']} member "
            f"{n['member_id']}, date of service {n['service_date']}, billed {n['billed']}: denied {n['reasons']}. "
            f"The payer's records request (fax {n['request_fax']}, received {n['request_received']}, a copy of the "
            f"letter dated {n['letter_date']}) asked for {n['records_asked']} by {n['respond_by']}. The remittance "
            f"{n['remittance_id']} of {n['paid_on']} gives an appeal deadline of {n['appeal_deadline']}; "
            f"{portal_finding(portal)}. Today is {today:%m/%d/%Y}: both dates have passed, so the "
            f"records were not sent and nothing was filed (no reconsideration, appeal, corrected claim or fax). "
            f"Request: the revenue cycle supervisor to approve writing off the {n['billed']} balance as a contractual "
            f"adjustment, or to escalate if an exception applies; the patient is not to be billed. "
            f"Item set to {WRITE_OFF}.")


def solve_late(work: Work) -> None:
    """Past the letter's response date: confirm the appeal window closed, write it down, close."""
    portal: dict = {}
    if work.doing("confirm_deadline"):
        portal = denial_facts.portal_claim(work, work.need("claim_number"))
        if not portal["passed"]:
            raise ScriptFailed(f"the payer's portal shows the appeal window still open: {portal}")
    if work.doing("document_stop"):
        work.need("portal_deadline")  # the note reports what the portal confirmed
        ehr_denials.add_item_note(work, stop_note(work, portal))
        work.notes["stop_documented"] = "yes"
    if work.doing("close_item"):
        work.need("stop_documented")  # a write-off request goes up only with its reason written down
        ehr_denials.set_item_status(work, WRITE_OFF)
    work.finish(f"Nothing was sent: the payer's records request (letter of {work.notes['letter_date']}) had to be "
                f"answered by {work.notes['respond_by']} and the claim's appeal deadline was "
                f"{work.notes['appeal_deadline']}, both before today. The Denials item is set to {WRITE_OFF} "
                f"with a note asking the supervisor to approve the write-off.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_request"):
        review_request(work)
    if "respond_by" not in work.notes:
        work.finish("Nothing sent: the payer's records request was not read.")
        return
    if work.notes.get("late"):
        solve_late(work)
        return
    if work.doing("check_portal"):
        check_portal(work, "A")
    if "portal_deadline" not in work.notes:
        work.finish("Nothing sent: the claim and its appeal deadline were not checked on the payer's portal.")
        return
    appeal: dict[str, str] = {}
    if work.doing("send_records"):
        appeal = send_records(work)
    if not appeal:
        work.finish("No records were sent; the denial item is unchanged.")
        return
    n = work.notes
    follow_up = follow_up_day(appeal)
    if work.doing("record_appeal"):
        ehr_denials.record_filed_appeal(work, appeal, follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Denial {n['denials']} on claim {n['claim_number']} (DOS {n['service_date']}, {n['payer']}). "
                  f"The payer's records request (letter dated {n['letter_date']}, fax {n['request_fax']}) asked for "
                  f"{n['records_asked']} by {n['respond_by']}, on a portal reconsideration. Sent on payer portal A on "
                  f"{appeal['submitted']}: level 1 reconsideration {appeal['reference']}, reason {RECORDS_REASON}, "
                  f"attached {n['attachment_title']}. Status: {appeal['status']}, decision due "
                  f"{appeal['decision_due']}. Follow up on {follow_up:%m/%d/%Y} for the payer's decision; if none "
                  f"has come, call the payer.")
    work.finish(f"Sent the records {n['payer']} asked for on claim {n['claim_number']} ({n['denials']}): "
                f"{n['attachment_title']} on a level 1 reconsideration on payer portal A, reference "
                f"{appeal['reference']}, {appeal['status']}. "
                f"Denial item {n['item_id']} set to Appeal Filed, follow-up {follow_up:%m/%d/%Y}.")
