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

from admindesk.harness.agents.reference import fax_steps
from admindesk.harness.agents.reference.appeals import ehr_denials, rebill_steps
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

# The letter names the responsible plan's member id ("member ID X" / "subscriber ID X").
MEMBER_ID = re.compile(r"(?:member|subscriber) ID ([A-Z0-9]{4,})")


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


def confirm_eligibility(work: Work) -> None:
    """The letter's coverage in registration, its eligibility for the date of service at its
    payer, verified on the Coverage tab."""
    rebill_steps.find_registered_coverage(work, work.need("letter_member"))
    rebill_steps.confirm_eligibility(work, f"after {work.notes['payer']}'s CO-109 letter named this plan.")


def bill_new_claim(work: Work) -> None:
    """The denied claim's page: Bill another payer, to the coverage with the letter's member id."""
    notes = work.notes
    rebill_steps.bill_new_claim(
        work, f"{notes['payer']} denied claim {notes['claim_number']} CO-109 / N418 on {notes['paid_on']}; its "
              f"letter (fax {notes['letter_fax']}) names {notes['new_payer']} member {notes['new_member']} as "
              f"responsible for the date of service. Eligibility confirmed active for {notes['service_date']} "
              f"(inquiry {work.need('eligibility_reference')}).")


def note_text(work: Work) -> str:
    """The item note: the denial, who is responsible and why, the new claim and the follow-up."""
    notes = work.notes
    return (f"Claim {notes['claim_number']} (date of service {notes['service_date']}, billed {notes['billed']}) was "
            f"denied CO-109 / N418 by {notes['payer']} (remittance {notes['remittance_id']}, {notes['paid_on']}): "
            f"not its responsibility. Its letter (fax {notes['letter_fax']}) names {notes['new_payer']} "
            f"({notes['new_plan']}, member {notes['new_member']}); eligibility confirmed active for the date of "
            f"service (inquiry {notes['eligibility_reference']}) and the coverage verified in registration. Billed "
            f"new claim {notes['new_claim']} to {notes['new_payer']}; nothing appealed or corrected at "
            f"{notes['payer']}. Follow up on {rebill_steps.follow_up_day(work):%m/%d/%Y} for {notes['new_payer']}'s "
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
        confirm_eligibility(work)
    if work.doing("bill_new_claim"):
        work.need("eligibility_reference")  # nothing is billed before the coverage is confirmed
        bill_new_claim(work)
    if work.doing("record_new_claim"):
        rebill_steps.record_new_claim(work)
    if work.doing("explain"):
        work.need("new_claim")
        ehr_denials.add_item_note(work, note_text(work))
    work.finish(f"Claim {work.notes.get('claim_number', '(unknown)')} was denied CO-109 by "
                f"{work.notes.get('payer', '')}; its letter names {work.notes.get('new_payer', '')} (member "
                f"{work.notes.get('new_member', '')}), whose coverage was confirmed active for the date of service. "
                f"Billed new claim {work.notes.get('new_claim', '(none)')} to {work.notes.get('new_payer', '')}; "
                f"nothing was appealed or corrected at {work.notes.get('payer', '')}. The Denials item is set to "
                f"{rebill_steps.BILLED_TO_OTHER_PAYER} with that number and a follow-up on "
                f"{rebill_steps.follow_up_day(work):%m/%d/%Y}.")
