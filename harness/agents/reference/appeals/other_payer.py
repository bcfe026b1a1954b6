"""Reference solution of template appeals/other_payer: the claim went to a payer that denied
it CO-109 (not its responsibility). That payer's letter in the fax inbox names the payer
responsible for the date of service and the member id there. That coverage is found in the
EHR registration by the member id (a look-alike coverage of the same payer is not it), its
eligibility for the date of service is confirmed in the responsible payer's portal and
recorded on the Coverage tab, and the claim goes to it as a new claim from the claim page.
Nothing is appealed or corrected at the denying payer.
"""
from __future__ import annotations

import re
from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_a, portal_b
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

BILLED_TO_OTHER_PAYER = "Billed to Other Payer"
COVERAGE_COLUMNS = ("rank", "payer", "plan", "product", "member_id", "group", "subscriber", "relationship", "pcp",
                    "effective", "termination")
# The letter names the responsible plan's member id ("member ID X" / "subscriber ID X").
MEMBER_ID = re.compile(r"(?:member|subscriber) ID ([A-Z0-9]{4,})")
FOLLOW_UP_DAYS = 30  # the new payer adjudicates within a payment cycle or two


def read_letter(work: Work) -> None:
    """The denying payer's letter in the fax inbox (from its claims line, about this patient):
    the member id it names as responsible."""
    number = fax_steps.case_fax_number(work, work.case["faxes"][0]["key"])
    row, _file, text = fax_steps.find_fax(
        work, number, lambda page: work.patient_name in page and "CO-109" in page, f"the CO-109 letter for "
        f"{work.patient_name}")
    ids = MEMBER_ID.findall(" ".join(text.split()))
    if len(ids) != 1:
        raise ScriptFailed(f"the letter does not name one member id: {ids}")
    work.notes.update(letter_fax=row["fax_id"], letter_member=ids[0])


def find_registered_coverage(work: Work) -> None:
    """The Coverage tab's row whose member id is the one the letter names."""
    ehr_denials.to_ehr_tab(work)
    work.actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    member = work.need("letter_member")
    rows = [row for row in ehr_steps.table_rows(work, "Insurance coverage on file", COVERAGE_COLUMNS)
            if row["member_id"] == member]
    if len(rows) != 1:
        raise ScriptFailed(f"the registration holds no coverage with member id {member}")
    work.notes.update(new_payer=rows[0]["payer"], new_plan=rows[0]["plan"], new_member=member)


def confirm_eligibility(work: Work) -> None:
    """The responsible payer's portal: eligibility for the date of service, then the result
    recorded as verified on the Coverage tab with the inquiry's reference."""
    payer, member = work.need("new_payer"), work.need("new_member")
    served = parse_us_date(work.need("service_date"))
    actor = work.actor
    if steps.portal_of(payer) == "b":
        portal_b.open_portal_b(work)
        portal_b.stay_signed_in(work)
        portal_b.check_eligibility(work, member, served)
        result, reference = actor.text("main h2 span.status"), actor.text("p:has-text('Inquiry') strong")
    else:
        payer_id = next(pid for pid, name in portal_a.PAYER_NAMES.items() if name == payer)
        result = portal_a.check_eligibility(work, member, payer_id, served)
        reference = actor.text("p:has-text('Inquiry reference') strong")
    if result != "Active":
        raise ScriptFailed(f"{payer} reports member {member} {result} on {us_date(served)}")
    work.notes.update(eligibility_reference=reference)
    ehr_denials.to_ehr_tab(work)
    ehr_steps.record_coverage_verification(
        work, "responsible", "Verified - Active",
        f"{payer} eligibility for date of service {us_date(served)}: active (inquiry {reference}), after "
        f"{work.notes['payer']}'s CO-109 letter named this plan.", reference)


def bill_new_claim(work: Work) -> None:
    """The denied claim's page: Bill another payer, to the coverage with the letter's member id."""
    actor, notes = work.actor, work.notes
    ehr_denials.back_to_claim(work)
    actor.select_containing("#bill-other select[name=coverage_id]", f"({work.need('new_member')})")
    actor.fill("#bill-other textarea[name=reason]",
               f"{notes['payer']} denied claim {notes['claim_number']} CO-109 / N418 on {notes['paid_on']}; its "
               f"letter (fax {notes['letter_fax']}) names {notes['new_payer']} member {notes['new_member']} as "
               f"responsible for the date of service. Eligibility confirmed active for {notes['service_date']} "
               f"(inquiry {work.need('eligibility_reference')}).")
    actor.click("#bill-other button:text-is('Bill as new claim')")
    if not actor.count(".alert-success:has-text('New claim')"):
        raise ScriptFailed(f"the new claim was not billed: {actor.text('main')[:400]}")
    notes.update(new_claim=actor.fact("Claim #"), new_claim_status=actor.fact("Status"))


def follow_up_day(work: Work):
    return work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS)


def note_text(work: Work) -> str:
    """The item note: the denial, who is responsible and why, the new claim and the follow-up."""
    notes = work.notes
    return (f"Claim {notes['claim_number']} (date of service {notes['service_date']}, billed {notes['billed']}) was "
            f"denied CO-109 / N418 by {notes['payer']} (remittance {notes['remittance_id']}, {notes['paid_on']}): "
            f"not its responsibility. Its letter (fax {notes['letter_fax']}) names {notes['new_payer']} "
            f"({notes['new_plan']}, member {notes['new_member']}); eligibility confirmed active for the date of "
            f"service (inquiry {notes['eligibility_reference']}) and the coverage verified in registration. Billed "
            f"new claim {notes['new_claim']} to {notes['new_payer']}; nothing appealed or corrected at "
            f"{notes['payer']}. Follow up on {follow_up_day(work):%m/%d/%Y} for {notes['new_payer']}'s "
            "adjudication.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        ehr_denials.open_denial_item(work)
        ehr_denials.open_claim(work)
        ehr_denials.open_remittance(work)
        if "109" not in work.notes["carcs"].split(", "):
            raise ScriptFailed(f"the remittance shows {work.notes['denials']}, not CO-109")
        read_letter(work)
    if work.doing("check_eligibility"):
        work.need("letter_member")  # the letter names whose coverage to confirm
        find_registered_coverage(work)
        confirm_eligibility(work)
    if work.doing("bill_new_claim"):
        work.need("eligibility_reference")  # nothing is billed before the coverage is confirmed
        bill_new_claim(work)
    if work.doing("record_new_claim"):
        ehr_denials.set_item_status(work, BILLED_TO_OTHER_PAYER, follow_up=follow_up_day(work),
                                    reference=work.need("new_claim"))
    if work.doing("explain"):
        work.need("new_claim")
        ehr_denials.add_item_note(work, note_text(work))
    work.finish(f"Claim {work.notes.get('claim_number', '(unknown)')} was denied CO-109 by "
                f"{work.notes.get('payer', '')}; its letter names {work.notes.get('new_payer', '')} (member "
                f"{work.notes.get('new_member', '')}), whose coverage was confirmed active for the date of service. "
                f"Billed new claim {work.notes.get('new_claim', '(none)')} to {work.notes.get('new_payer', '')}; "
                f"nothing was appealed or corrected at {work.notes.get('payer', '')}. The Denials item is set to "
                f"{BILLED_TO_OTHER_PAYER} with that number and a follow-up on {follow_up_day(work):%m/%d/%Y}.")
