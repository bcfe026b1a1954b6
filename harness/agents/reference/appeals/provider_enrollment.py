"""Reference solution of template appeals/provider_enrollment: a claim the payer denied B7 (the
rendering provider not eligible to be paid on the date of service). The rendering clinician's
enrollment with that payer decides: the practice's credentialing record (EHR, Provider
Credentialing) and the payer's network directory (portal A, Provider Network) give when the payer
logged the complete application; the payer's manual dates participation from that day, whatever
later participation date the directory and welcome letter show:
- logged on or before the date of service: a level-1 reconsideration on portal A with the payer's
  welcome letter (a received fax), recorded as Appeal Filed; the item stays with the desk;
- logged after it: nothing is appealed nor rebilled under another clinician; the item goes to the
  Provider Enrollment / Credentialing pool, left In Progress, with a note of the enrollment facts.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_a
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

ENROLLMENT_CARC = "B7"
CREDENTIALING_POOL = "Provider Enrollment / Credentialing (team pool)"
RECONSIDERATION_REASON = "Other"
ENROLLMENT_COLUMNS = ("payer", "submitted_on", "received_on", "status", "effective", "welcome_letter")
NETWORK_FACTS = {"Network status": "network_status", "Application logged complete": "network_received",
                 "Participation effective (directory)": "network_effective"}


def review_denial(work: Work) -> None:
    """The Denials item, the claim (its rendering clinician), its EOB and the order (the office's phone)."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    rendering = work.actor.fact("Rendering provider")  # "Dawn Mitchell, DPT (NPI 1761314453)"
    found = re.match(r"(.+) \(NPI (\d{10})\)$", rendering)
    if not found:
        raise ScriptFailed(f"the claim shows no rendering clinician: {rendering!r}")
    work.notes.update(clinician=found.group(1), npi=found.group(2))
    ehr_denials.open_remittance(work)
    if ENROLLMENT_CARC not in work.notes["carcs"].split(", "):
        raise ScriptFailed(f"the remittance shows {work.notes['denials']}, not B7")
    ehr_denials.open_order_from_claim(work)


def credentialing_record(work: Work) -> None:
    """EHR Provider Credentialing: the clinician by NPI, and its enrollment with the claim's payer."""
    actor, n = work.actor, work.notes
    npi, clinician, payer = work.need("npi"), work.need("clinician"), work.need("payer")
    ehr_denials.to_ehr_tab(work)
    actor.click("nav.activitybar a:has-text('Provider Credentialing')")
    actor.fill("#q", npi)
    actor.click("main form button:text-is('Search')")
    actor.click(f"xpath=//table//tr[td[normalize-space()='{npi}']]//a")
    rows = ehr_steps.table_rows(work, f"Enrollment of {clinician} with each payer", ENROLLMENT_COLUMNS)
    others = [f"{r['payer']} ({r['status']}, effective {r['effective']})" for r in rows if r["payer"] != payer]
    row = next((r for r in rows if r["payer"] == payer), None)
    n.update(other_enrollments="; ".join(others) or "none",
             ehr_status=row["status"] if row else "No enrollment on file",
             ehr_submitted=row["submitted_on"] if row else "none")
    ehr_denials.open_denial_item(work)  # back to the work item: the credentialing screens are no chart page


def network_record(work: Work) -> None:
    """Portal A's Provider Network lookup for the payer and NPI, and the clinician's record."""
    actor, n = work.actor, work.notes
    npi = work.need("npi")
    portal_a.open_portal_a(work)
    actor.click("nav.top-tabs a:has-text('Provider Network')")
    actor.select_option("#payer_id", work.need("payer"))
    actor.fill("#npi", npi)
    actor.click("main form button:text-is('Search network')")
    actor.click(f"xpath=//main//tr[td[normalize-space()='{npi}']]//a")
    n.update({key: actor.fact(label) for label, key in NETWORK_FACTS.items()})


def review_enrollment(work: Work) -> None:
    """The practice's record, the payer's directory, then the payer's rule (its manual)."""
    credentialing_record(work)
    network_record(work)
    payer_id = portal_a.PAYER_IDS[work.need("payer")]
    work.notes["rule"] = portal_a.manual_chapter(work, payer_id, "Provider enrollment")
    if "from the day we received the complete application" not in work.notes["rule"]:
        raise ScriptFailed(f"the manual's enrollment chapter gives no effective-date rule: {work.notes['rule'][:200]}")


def enrolled_on_service_date(work: Work) -> bool:
    """The payer's rule: participation counts from the day it logged the complete application."""
    received = work.need("network_received")
    return received[:2].isdigit() and parse_us_date(received) <= parse_us_date(work.need("service_date"))


def handoff_note(work: Work) -> str:
    n = work.notes
    return (f"Hand-off to Provider Enrollment / Credentialing. Claim {n['claim_number']} (DOS {n['service_date']}, "
            f"billed {n['billed']}) was denied {n['denials']} by {n['payer']} (remittance {n['remittance_id']}, "
            f"{n['paid_on']}): rendering clinician {n['clinician']}, NPI {n['npi']}, was not enrolled with "
            f"{n['payer']} on the date of service. Our credentialing record: application sent {n['ehr_submitted']}, "
            f"status {n['ehr_status']}. {n['payer']}'s directory: {n['network_status']}, application logged complete "
            f"{n['network_received']}, participation effective {n['network_effective']}. Other payers: "
            f"{n['other_enrollments']}. {n['payer']}'s manual dates participation from the day it received the "
            "complete application, which is after the date of service, so no appeal was filed. Do not rebill under "
            "another clinician's NPI. Item assigned to the credentialing pool to work the enrollment gap.")


def welcome_letter(work: Work) -> None:
    """The payer's welcome letter for the clinician, from the fax inbox (downloaded)."""
    key = next(f["key"] for f in work.case["faxes"] if f.get("from_number"))
    npi = work.need("npi")
    row, file_name, _ = fax_steps.find_fax(work, fax_steps.case_fax_number(work, key),
                                           lambda text: npi in text and "welcome" in text.lower(),
                                           f"the welcome letter of NPI {npi}")
    work.notes.update(letter_file=file_name,
                      letter_title=f"welcome letter (fax {row['fax_id']} received {row['received']})")


def reconsideration_letter(work: Work) -> str:
    n = work.notes
    return (f"Re: {work.patient_name}, DOB {work.patient['dob']}, member ID {n['member_id']}. Claim {n['claim_number']}, "
            f"date of service {n['service_date']}, billed {n['billed']}.\n\n"
            f"The claim was denied {n['denials']} (remittance {n['remittance_id']} of {n['paid_on']}) as if the "
            f"rendering clinician, {n['clinician']} (NPI {n['npi']}), was not eligible to be paid on the date of "
            f"service. {n['payer']} logged the clinician's complete enrollment application on {n['network_received']}, before the "
            f"date of service; the directory's participation date of {n['network_effective']} is the day the record "
            "was loaded. Under the provider manual's enrollment chapter, participation is effective from the day the "
            "complete application was received, so the clinician participated on the date of service.\n\n"
            f"Enclosed: the {n['letter_title']}. Please reprocess and pay the claim. For questions, contact "
            f"{n['user_name']} at {n['provider_phone']}.")


def appeal_note(work: Work, appeal: dict[str, str]) -> str:
    n = work.notes
    return (f"Claim {n['claim_number']} (DOS {n['service_date']}, {n['billed']}) denied {n['denials']} by {n['payer']}: "
            f"rendering clinician {n['clinician']}, NPI {n['npi']}. {n['payer']} logged the complete application on "
            f"{n['network_received']} (before the DOS); its directory shows participation from {n['network_effective']}, "
            "but its manual dates participation from the application's receipt. Filed a level 1 reconsideration on "
            f"portal A with the welcome letter, reference {appeal['reference']}, {appeal['status']}, decision due "
            f"{appeal['decision_due']}. Follow up on {appeal['decision_due']}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review_denial(work)
    if work.doing("review_enrollment"):
        review_enrollment(work)
    if "network_received" not in work.notes:
        work.finish("Nothing done: the clinician's enrollment was not checked.")
        return
    if not enrolled_on_service_date(work):
        if work.doing("hand_off"):
            ehr_denials.assign_to_pool(work, CREDENTIALING_POOL)
        if work.doing("explain"):
            ehr_denials.add_item_note(work, handoff_note(work))
        work.finish(handoff_note(work))
        return
    appeal = {}
    if work.doing("file_reconsideration"):
        welcome_letter(work)
        portal_a.open_portal_a(work)
        portal_a.open_claim(work, work.need("claim_number"))
        n = work.notes
        appeal = portal_a.file_appeal(work, n["claim_number"], appeal_type="Reconsideration",
                                      reason=RECONSIDERATION_REASON, letter=reconsideration_letter(work),
                                      contact_name=n["user_name"], contact_phone=n["provider_phone"],
                                      attachment=(n["letter_file"], "Other"))
    if not appeal:
        work.finish("No reconsideration was filed; the denial item is unchanged.")
        return
    if work.doing("record_outcome"):
        ehr_denials.record_filed_appeal(work, appeal)
    if work.doing("explain"):
        ehr_denials.add_item_note(work, appeal_note(work, appeal))
    work.finish(appeal_note(work, appeal))
