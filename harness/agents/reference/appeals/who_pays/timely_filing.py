"""Reference solution of template appeals/timely_filing: a claim denied CO-29 (filing limit
expired). The payer's filing limit (its provider manual: days from the date of service) against
the claim's clearinghouse history (the EHR claim page's submission history, each transmission
with its acknowledgement report) decides:
- the payer accepted a transmission (277CA Accepted, whatever the 999 said) within the limit:
  a level-1 reconsideration with that first acceptance report attached and its date as the
  proof-of-filing date; item Appeal Filed;
- no acceptance within the limit (a transmission the payer rejected proves no filing): nothing
  filed and nothing billed to the patient; item Write-off Requested with a note.
"""
from __future__ import annotations

import json
import re
from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

WRITE_OFF = "Write-off Requested"
SUBMISSIONS = "Transmissions of this claim and their acknowledgements"
SUBMISSION_COLUMNS = ("transmitted", "batch", "clearinghouse", "payer_status", "control_number", "detail", "note")


def submission_history(work: Work) -> list[dict[str, str]]:
    """The claim page's submission history, each row with its report's document id, every report
    opened in the viewer (the rows say what the payer answered; the reports show it)."""
    ehr_denials.back_to_claim(work)
    rows = ehr_steps.table_rows(work, SUBMISSIONS, SUBMISSION_COLUMNS)
    links = work.env.page_locator("#submissions tbody a:text-is('View report')").all()
    for row, link in zip(rows, links):
        row["report"] = link.get_attribute("href").rsplit("/", 1)[1]
    for number in range(1, len(rows) + 1):
        ehr_denials.back_to_claim(work)
        work.actor.click(f"#submissions tbody tr:nth-child({number}) a:text-is('View report')")
    if not rows:
        raise ScriptFailed("the claim page shows no submission history")
    return rows


def review(work: Work) -> None:
    """The Denials item, the claim and its remittance (a CO-29), then its clearinghouse history."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    if "29" not in work.notes["carcs"].split(", "):
        raise ScriptFailed(f"the claim is not denied CO-29: {work.notes['denials']}")
    work.notes["submissions"] = json.dumps(submission_history(work))  # notes hold text


def check_limit(work: Work) -> None:
    """The payer's provider manual (its Claims chapter) for the filing limit; the claim on the portal."""
    n = work.notes
    chapter = portal_a.manual_chapter(work, portal_a.PAYER_IDS[n["payer"]], "Claims")
    found = re.search(r"Timely filing limit: (\d+) days from the date of service", chapter)
    if found is None:
        raise ScriptFailed(f"the manual states no filing limit: {chapter[:300]}")
    days = int(found.group(1))
    last_day = parse_us_date(n["service_date"]) + timedelta(days=days)
    portal_a.open_claim(work, n["claim_number"])
    n.update(limit_days=str(days), last_day=f"{last_day:%m/%d/%Y}")


def first_acceptance(work: Work) -> dict[str, str] | None:
    """The earliest transmission the payer accepted on or before the limit's last day."""
    last_day = parse_us_date(work.need("last_day"))
    accepted = [row for row in json.loads(work.need("submissions"))
                if row["payer_status"] == "Accepted" and parse_us_date(row["transmitted"]) <= last_day]
    return accepted[0] if accepted else None


def history_text(work: Work) -> str:
    return "; ".join(f"{row['transmitted']} batch {row['batch']}: clearinghouse {row['clearinghouse']}, payer "
                     f"{row['payer_status']}" + (f" ({row['detail']})" if row["detail"] else "")
                     + (f", control # {row['control_number']}" if row["control_number"] else "")
                     for row in json.loads(work.need("submissions")))


def appeal_letter(work: Work, proof: dict[str, str]) -> str:
    n = work.notes
    return (f"Re: {work.patient_name}, DOB {work.patient['dob']}, member ID {n['member_id']}. Claim {n['claim_number']}, "
            f"date of service {n['service_date']}, billed {n['billed']}.\n\n"
            f"{n['payer']} denied the claim {n['denials']} (the time limit for filing has expired) on remittance "
            f"{n['remittance_id']} of {n['paid_on']}, counting the claim received {n['submitted_on']}. That date is a "
            f"resubmission, not the first filing. The claim was first transmitted on {proof['transmitted']} in "
            f"clearinghouse batch {proof['batch']}, and {n['payer']} accepted it for processing that day (277CA "
            f"acceptance, payer claim control number {proof['control_number']}), within the {n['limit_days']}-day "
            f"filing limit counted from the date of service (last day {n['last_day']}). The claim was timely filed.\n\n"
            f"Enclosed: the clearinghouse acknowledgement report of {proof['transmitted']}. Please overturn the CO-29 "
            f"denial and reprocess and pay the claim. For questions, contact {n['user_name']} at {n['provider_phone']}.")


def file_appeal(work: Work, proof: dict[str, str]) -> dict[str, str]:
    """Download the acceptance report, then one level-1 reconsideration on portal A with it."""
    n = work.notes
    ehr_denials.open_order_from_claim(work)  # the office's phone for the contact
    ehr_denials.back_to_claim(work)
    number = next(i for i, row in enumerate(json.loads(n["submissions"]), 1) if row["report"] == proof["report"])
    work.actor.click(f"#submissions tbody tr:nth-child({number}) a:text-is('View report')")
    file_name = ehr_steps.click_to_download(work, "a.pv-btn[download]", proof["report"])
    return portal_a.file_appeal(work, n["claim_number"], appeal_type="Reconsideration", reason="Timely filing proof",
                                letter=appeal_letter(work, proof), contact_name=n["user_name"],
                                contact_phone=n["provider_phone"], proof_of_filing=proof["transmitted"],
                                attachment=(file_name, "Other"))


def note_text(work: Work, proof: dict[str, str] | None, appeal: dict[str, str]) -> str:
    n = work.notes
    head = (f"Claim {n['claim_number']} (DOS {n['service_date']}, {n['billed']}) denied {n['denials']} by {n['payer']}, "
            f"which counted the claim received {n['submitted_on']}. {n['payer']}'s provider manual: filing limit "
            f"{n['limit_days']} days from the date of service, last day {n['last_day']}. Clearinghouse history: "
            f"{history_text(work)}. ")
    if proof is not None:
        return head + (f"{n['payer']} first accepted the claim on {proof['transmitted']} (control # "
                       f"{proof['control_number']}), within the limit: filed a level 1 reconsideration on portal A with "
                       f"that acceptance report, reference {appeal['reference']}, {appeal['status']}, decision due "
                       f"{appeal['decision_due']}. Follow up on {appeal['decision_due']}.")
    return head + (f"No transmission {n['payer']} accepted falls within the limit (a front-end rejection is no proof "
                   f"of filing; the accepted claim went out {n['submitted_on']}), so there is nothing to appeal. "
                   "Nothing filed; the patient is not billed for a late filing. Request: the revenue cycle supervisor "
                   "to approve writing off the balance as a timely filing adjustment.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if "submissions" not in work.notes:
        work.finish("Nothing done: the claim's clearinghouse history was not reviewed.")
        return
    if work.doing("check_limit"):
        check_limit(work)
    if "last_day" not in work.notes:
        work.finish("Nothing done: the payer's filing limit was not read.")
        return
    proof, appeal = first_acceptance(work), {}
    if proof is not None:
        if work.doing("file_appeal"):
            appeal = file_appeal(work, proof)
        if not appeal:
            work.finish("No reconsideration was filed; the denial item is unchanged.")
            return
        if work.doing("record_appeal"):
            ehr_denials.record_filed_appeal(work, appeal)
        if work.doing("explain"):
            ehr_denials.add_item_note(work, note_text(work, proof, appeal))
    else:
        if work.doing("document_write_off"):
            ehr_denials.add_item_note(work, note_text(work, None, appeal))
            work.notes["write_off_documented"] = "yes"
        if work.doing("close_item"):
            work.need("write_off_documented")  # a write-off request goes up only with its reason written down
            ehr_denials.set_item_status(work, WRITE_OFF)
    work.finish(note_text(work, proof, appeal) + (" Denial item set to Appeal Filed." if proof else
                                                  f" Denial item set to {WRITE_OFF}."))
