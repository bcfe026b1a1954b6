"""Reference solution of template appeals/duplicate_denial: a CO-18 (exact duplicate)
denial of a service that an earlier claim already got paid for. Read the denial, find the
earlier claim for the same service and date on the chart's Billing tab, confirm in the
payer's portal that it was paid, file nothing, write that down and resolve the item.
"""
from __future__ import annotations

from admindesk.harness.agents.reference.appeals import denial_facts, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

RESOLVED = "Resolved"
BILLING_COLUMNS = ("claim", "service_date", "payer", "member_id", "codes", "charge", "paid", "status")


def billing_rows(work: Work) -> list[dict[str, str]]:
    """The chart's Billing tab: every claim row as {claim, service_date, payer, codes, paid, status...}."""
    actor = work.actor
    actor.click("nav[aria-label='Chart sections'] a:text-is('Billing')")
    rows = actor.read("main table.grid").evaluate(
        "t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.innerText.trim()))")
    return [dict(zip(BILLING_COLUMNS, cells)) for cells in rows if len(cells) >= len(BILLING_COLUMNS)]


def open_paid_twin(work: Work) -> dict[str, str]:
    """From the denied claim's chart: the other claim for the same date and codes that was
    paid; opens it and returns its Billing row (also work.notes["original_claim"])."""
    denied = work.need("claim_number")
    rows = billing_rows(work)
    mine = next((row for row in rows if row["claim"] == denied), None)
    if mine is None:
        raise ScriptFailed(f"the Billing tab does not list claim {denied}")
    twins = [row for row in rows if row["claim"] != denied and row["service_date"] == mine["service_date"]
             and row["codes"] == mine["codes"] and row["status"] == "Paid"]
    if len(twins) != 1:
        raise ScriptFailed(f"expected one paid claim for {mine['codes']} on {mine['service_date']}, found {twins}")
    twin = twins[0]
    work.actor.click(f"main table.grid a:text-is('{twin['claim']}')")
    work.notes["original_claim"] = twin["claim"]
    return twin


def duplicate_note(work: Work, reasons: str, twin: dict[str, str], portal: dict) -> str:
    """The note a colleague reads: which claim the denied one duplicates and the proof it was paid."""
    claim = work.notes
    paid = f"{portal['name']} shows claim {twin['claim']} {portal['status']}, {portal['paid']} paid on {portal['paid_on']}"
    return (f"Claim {claim['claim_number']} for {work.patient_name} (DOB {work.patient['dob']}), {claim['payer']} member "
            f"{claim['member_id']}, date of service {claim['service_date']}, code {twin['codes']}, billed "
            f"{claim['billed']}: denied {reasons} (remittance {claim['remittance_id']} of {claim['paid_on']}). "
            f"The denial is correct: the same service on the same date was billed first on claim {twin['claim']} "
            f"(charge {twin['charge']}, paid {twin['paid']}), and {paid}. Claim {claim['claim_number']} is a "
            f"duplicate of the paid claim {twin['claim']}, so nothing was appealed, corrected or resubmitted "
            f"and no balance is owed by the patient for it. Denials item resolved; no follow-up needed.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    reasons = ""
    twin: dict[str, str] = {}
    if work.doing("review_denial"):
        ehr_denials.open_denial_item(work)
        ehr_denials.open_claim(work)
        reasons = denial_facts.denial_reasons(work)
        ehr_denials.open_remittance(work)
        twin = open_paid_twin(work)
    portal: dict = {}
    if work.doing("confirm_payment"):
        portal = denial_facts.portal_claim(work, work.need("original_claim"))
        if portal["status"] != "Paid":
            raise ScriptFailed(f"the payer's portal shows claim {work.notes['original_claim']} {portal['status']}")
    if work.doing("document"):
        work.need("portal_status")  # the note cites the payment the portal confirmed
        ehr_denials.add_item_note(work, duplicate_note(work, reasons, twin, portal))
        work.notes["duplicate_documented"] = "yes"
    if work.doing("resolve"):
        work.need("duplicate_documented")  # resolved only with the paid claim written down
        ehr_denials.set_item_status(work, RESOLVED)
    original = work.notes.get("original_claim", "(not found)")
    work.finish(f"Claim {work.notes.get('claim_number', '')} duplicates claim {original}, which the payer already "
                f"paid for the same service and date, so the CO-18 denial is correct. Nothing was filed; the "
                f"Denials item is {RESOLVED} with a note naming the paid claim {original}.")
