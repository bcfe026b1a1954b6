"""Reference solution of template appeals/cob_corrected_claim: the claim went to the
patient's secondary payer as if it were primary and was denied OA-22. The coverages in the
EHR say which payer is primary; that payer's paid claim for the same service (and its
remittance) says what it paid; its EOB waits in the fax inbox. One corrected claim
(frequency code 7) goes to the secondary with the primary's name, paid amount and EOB, and
the Denials item records it.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from admindesk.harness.agents.reference import ehr_steps, fax_steps
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

BILLING_COLUMNS = ("claim", "service_date", "payer", "member_id", "codes", "charge", "paid", "status")


def read_coverages(work: Work) -> dict[str, str]:
    """The chart's Coverage tab: which payer is primary and which secondary (by rank)."""
    work.actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    ranks = {row["rank"]: row for row in ehr_steps.table_rows(work, ehr_steps.COVERAGE_TABLE,
                                                                     ehr_steps.COVERAGE_COLUMNS)}
    if "Primary" not in ranks or "Secondary" not in ranks:
        raise ScriptFailed(f"the chart does not list a primary and a secondary coverage: {sorted(ranks)}")
    facts = {"primary_payer": ranks["Primary"]["payer"], "primary_member_id": ranks["Primary"]["member_id"],
             "secondary_payer": ranks["Secondary"]["payer"]}
    work.notes.update(facts)
    return facts


def open_primary_claim(work: Work) -> dict[str, str]:
    """The chart's Billing tab, the primary payer's paid claim for the denied claim's date of
    service, then its remittance: what the primary paid and when."""
    actor, notes = work.actor, work.notes
    actor.click("nav[aria-label='Chart sections'] a:text-is('Billing')")
    rows = [row for row in ehr_steps.table_rows(work, "Claims, newest service date first", BILLING_COLUMNS)
            if row["service_date"] == notes["service_date"] and row["payer"] == notes["primary_payer"]
            and row["status"] in ("Paid", "Partially Paid")]
    if len(rows) != 1:
        raise ScriptFailed(f"expected one paid {notes['primary_payer']} claim on {notes['service_date']}, found {rows}")
    actor.click(f"main a:text-is('{rows[0]['claim']}')")
    actor.click("a:text-is('View remittance (EOB)')")
    facts = {"primary_claim": rows[0]["claim"], "primary_paid": actor.fact("Paid amount"),
             "primary_paid_on": actor.fact("Paid on"), "primary_remittance": actor.fact("Remittance #")}
    notes.update(facts)
    return facts


def download_primary_eob(work: Work) -> str:
    """The primary payer's EOB in the fax inbox (sent by that payer, about this patient):
    opened, downloaded and checked against the primary's remittance (the paid amount);
    returns the file name."""
    name, primary = work.patient_name, work.notes["primary_payer"]
    # The primary's claims office faxes from its own number; its EOB names the patient and the payer.
    number = fax_steps.case_fax_number(work, work.case["faxes"][0]["key"])
    row, file_name, text = fax_steps.find_fax(
        work, number, lambda page: name in page and primary in page and "Explanation of Benefits" in page,
        f"{primary}'s EOB for {name}")
    work.notes["eob_fax"] = row["fax_id"]
    paid = re.search(r"Paid to provider:\s*\$?([\d,]+\.\d\d)", text)
    if paid is None or steps.money(paid.group(1)) != steps.money(work.notes["primary_paid"]):
        raise ScriptFailed(f"the faxed EOB does not show the {work.notes['primary_paid']} the primary's remittance "
                           f"shows: {text[:300]!r}")
    return file_name


def review(work: Work) -> None:
    """The Denials item, the denied claim and its remittance, the coverages, the primary's
    paid claim and remittance, and the primary's EOB from the fax inbox."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    read_coverages(work)
    if work.notes["payer"] != work.notes["secondary_payer"]:
        raise ScriptFailed(f"the denied claim went to {work.notes['payer']}, which is not the secondary coverage")
    open_primary_claim(work)
    work.notes["eob_file"] = download_primary_eob(work)


def replacement(work: Work) -> steps.Replacement:
    """The corrected claim: the same lines, with the primary payer, its payment and its EOB."""
    notes = work.notes
    primary, paid = work.need("primary_payer"), steps.money(notes["primary_paid"])
    return steps.Replacement(
        reason=(f"Resubmitted as secondary in answer to the {notes['denials']} denial: {notes['payer']} is the "
                f"patient's secondary coverage and {primary} is primary. {primary} paid ${paid:,.2f} on "
                f"{notes['primary_paid_on']} (claim {notes['primary_claim']}); its EOB is attached. Service lines "
                "unchanged."),
        primary_payer=primary, primary_paid=paid, eob_file=notes["eob_file"])


def note_text(work: Work, change: steps.Replacement) -> str:
    """The item note: why OA-22, the primary and its payment, the corrected claim and the follow-up."""
    notes = work.notes
    return (f"Claim {notes['claim_number']} (date of service {notes['service_date']}, billed {notes['billed']}) was "
            f"denied {notes['denials']} by {notes['payer']} (remittance {notes['remittance_id']}, {notes['paid_on']}) "
            f"because it was sent as if {notes['payer']} were primary; {notes['payer']} is the patient's secondary "
            f"coverage. The primary payer, {notes['primary_payer']} (member {notes['primary_member_id']}), paid "
            f"${change.primary_paid:,.2f} on {notes['primary_paid_on']} (claim {notes['primary_claim']}, remittance "
            f"{notes['primary_remittance']}; its EOB is fax {notes['eob_fax']}). Sent corrected claim "
            f"{change.shown['number']} (frequency code 7) to {notes['payer']} with the primary's paid amount and "
            f"EOB attached: status {change.shown['status']}. Item set to {steps.CORRECTED_CLAIM_SENT}; follow up on "
            f"{steps.follow_up_day(work):%m/%d/%Y} for the secondary payment, then bill the patient only the "
            "remaining balance.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    def plan(work: Work) -> tuple[steps.Replacement, Callable[[], str]]:
        change = replacement(work)
        return change, lambda: note_text(work, change)

    change = steps.work_the_denial(work, review, plan)
    work.finish(f"Resubmitted claim {work.notes.get('claim_number', '(unknown)')} to the secondary payer "
                f"{work.notes.get('payer', '')} as a corrected claim (frequency code 7) with the primary payer "
                f"{work.notes.get('primary_payer', '')}'s payment of ${change.primary_paid:,.2f} and its EOB attached. "
                f"Corrected claim {work.notes.get('corrected_number', '(none)')}, status "
                f"{work.notes.get('corrected_status', '(none)')}. The Denials item is set to "
                f"{steps.CORRECTED_CLAIM_SENT} with that number and a follow-up on {steps.follow_up_day(work):%m/%d/%Y}.")
