"""Reference solution of template hmo_referral: a Keystone Mutual HMO member's specialist visit
needs a referral from the member's PCP of record (shown on Keystone's eligibility result). With
none on file, submit one in Keystone's Referrals under the PCP's NPI to the order's clinician; with
one on file that covers the visit, submit nothing. Record the referral on the order's
authorization (its number as the auth number, visits as units, its dates) and close the item."""
from __future__ import annotations

import re
from datetime import date, datetime

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"



def pcp_of_record(work: Work) -> str:
    """The PCP of record's NPI on the eligibility result page (open)."""
    shown = work.actor.fact("PCP of Record")
    match = re.search(r"NPI (\d{10})", shown)
    if match is None:
        raise ScriptFailed(f"no PCP of record on the eligibility result: {shown!r}")
    work.notes["pcp"] = shown.split(", NPI")[0]
    return match.group(1)


def read_referral(work: Work) -> dict[str, str]:
    """The open referral's detail page, dates in the EHR's MM/DD/YYYY."""
    actor = work.actor
    return {"number": actor.fact("Referral Number"), "visits": actor.fact("Visits"),
            "start": portal_b.ehr_date(actor.fact("Valid From")), "end": portal_b.ehr_date(actor.fact("Valid Through")),
            "specialty": actor.fact("Specialty"), "referring": actor.fact("Referring PCP")}


def submit_referral(work: Work, member: str, pcp_npi: str) -> dict[str, str]:
    """Keystone's New Referral form from the PCP of record to the order's clinician."""
    actor, notes = work.actor, work.notes
    portal_b.open_portal_b(work)
    actor.click("nav.sidebar a[href='/referrals/new']")
    actor.fill("input[name=subscriber_id]", member)
    actor.fill("input[name=subscriber_dob]", portal_b.portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=referring_npi]", pcp_npi)
    actor.fill("input[name=specialist_npi]", notes["provider_npi"])
    actor.select_option("select[name=specialty]", notes["specialty"])
    actor.fill("input[name=diagnosis_codes]", notes["diagnoses"])
    actor.fill("input[name=visits]", notes["units"])
    actor.fill("input[name=start_date]", portal_b.portal_b_date(parse_us_date(notes["planned"])))
    actor.click("main form button[type=submit]")
    if not actor.count("h1:has-text('Referral KR-')"):
        raise ScriptFailed(f"the referral was refused: {actor.text('main')[:600]}")
    return read_referral(work)


def find_referral(work: Work, member: str) -> dict[str, str]:
    """Referral Search by Subscriber ID; the approved referral to the order's specialty that covers
    the planned date, opened."""
    actor = work.actor
    portal_b.open_portal_b(work)
    actor.click("nav.sidebar a[href='/referrals']")
    actor.fill("form[role=search] input[name=q]", member)
    actor.click("form[role=search] button[type=submit]")
    planned = parse_us_date(work.need("planned"))
    for row in work.env.page_locator("main table.grid tbody tr").all():
        cells = [text.strip() for text in row.locator("td").all_inner_texts()]
        if len(cells) < 11 or cells[5] != work.notes["specialty"] or cells[9] != "Approved":
            continue
        start, end = (datetime.strptime(cells[i], "%d-%b-%Y").date() for i in (7, 8))
        if start <= planned <= end:
            actor.click(f"main table a:text-is('{cells[0]}')")
            return read_referral(work)
    raise ScriptFailed(f"no approved {work.notes['specialty']} referral of {member} covers {planned}")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    subtasks = {s.id for s in work.task.subtasks}
    on_file = "find_referral" in subtasks

    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        ehr_steps.open_order(work)
        work.notes["specialty"] = work.actor.fact("Specialty")
    if work.doing("verify_eligibility"):
        portal_b.open_portal_b(work)
        portal_b.check_eligibility(work, member, parse_us_date(work.need("planned")))
        work.notes["pcp_npi"] = pcp_of_record(work)
    referral: dict[str, str] = {}
    if on_file and work.doing("find_referral"):
        work.need("pcp_npi")
        referral = find_referral(work, member)
    if not on_file and work.doing("submit_referral"):
        referral = submit_referral(work, member, work.need("pcp_npi"))
    if work.doing("record_referral"):
        if not referral:
            raise ScriptFailed("no referral to record (none was found or submitted)")
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(work, status="Approved", payer=KEYSTONE, auth_number=referral["number"],
                                       units=referral["visits"], start=referral["start"], end=referral["end"])
        work.notes["recorded"] = referral["number"]
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        how = ("was already on file at Keystone Mutual (found in its Referral Search by subscriber id "
               f"{member}); no new referral was submitted" if on_file else
               "was submitted in Keystone Mutual's Referrals under the PCP's NPI and approved")
        ehr_steps.add_order_comment(
            work, f"HMO referral for this specialist visit (Keystone Mutual requires one from the PCP of record). "
                  f"Referral {referral.get('number', '')} from {referral.get('referring', '')} to "
                  f"{work.notes.get('provider', '')} ({referral.get('specialty', '')}), {referral.get('visits', '')} "
                  f"visit(s), valid {referral.get('start', '')} to {referral.get('end', '')}, {how}. Recorded on "
                  f"this order's authorization (referral number as the auth number).")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Keystone Mutual HMO referral {referral.get('number', 'none')} "
                f"({'already on file, nothing submitted' if on_file else 'submitted and approved'}) recorded on "
                f"order {work.notes.get('order_id', '')}.")
