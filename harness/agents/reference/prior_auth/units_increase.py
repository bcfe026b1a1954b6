"""Reference solution of template units_increase: the order now asks for more units than the
approval on file grants, and a later note of the ordering provider orders them. Read the
authorization the order records, download that note, ask portal A for a units increase on the
approved case with the note attached, record the new units on the order and close the item;
no new request is filed."""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.appeals.ehr_denials import open_chart_document
from admindesk.harness.agents.reference.portal_a import DOCUMENT_TYPES, payer_name
from admindesk.harness.agents.reference.prior_auth.auth_on_file import approved_auth
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed


def ordering_note(work: Work) -> dict:
    """The chart document that orders the added units: the ordering provider's latest note
    (a therapist's recommendation is no order)."""
    ordering = work.case["orders"][0]["ordering_provider"]
    notes = [d for d in work.case["documents"] if d.get("author") == ordering]
    return max(notes, key=lambda d: d["date"])


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    payer = payer_name(work.case["coverages"][0]["payer"])
    note = ordering_note(work)
    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        ehr_steps.open_order(work)
        approved_auth.read_order_authorization(work)
        if int(work.notes["units"]) <= int(work.notes["ehr_units"]):
            raise ScriptFailed(f"the order asks for no more units than are approved: {work.notes}")
        open_chart_document(work, note["key"])
    if work.doing("find_authorization"):
        decision = approved_auth.open_approved_case(work)
        work.notes["case_number"] = decision["case_number"]
    if work.doing("request_increase"):
        work.need("case_number")  # the approved case is open at the payer
        work.notes["note_file"] = open_chart_document(work, note["key"], download=True)
        portal_a.open_portal_a(work)  # back to the approved case's page
        decision = approved_auth.request_change(
            work, "Units increase", f"{work.need('units')} units now ordered (ordering provider's note of "
                                    f"{note['date']} attached); {work.need('ehr_units')} approved.",
            new_units=work.need("units"), document=(work.need("note_file"), DOCUMENT_TYPES[note["type"]]))
        if decision["units"] != work.need("units"):
            raise ScriptFailed(f"the payer did not grant the ordered units: {decision}")
        work.notes["payer_units"] = decision["units"]
    if work.doing("record_increase"):
        approved_auth.record_change(work, "Units increase", "Payer approved the units increase on the case.",
                                    new_units=work.need("payer_units"))
    if work.doing("close_item"):
        ehr_steps.back_to_order(work)
        auth = work.need("ehr_auth_number")
        ehr_steps.add_order_comment(
            work, f"The order now asks for {work.need('units')} units; authorization {auth} granted "
                  f"{work.need('ehr_units')}. {payer} raised authorization {auth} (case {work.need('case_number')}) "
                  f"to {work.need('payer_units')} units on a units increase, with the ordering provider's note of "
                  f"{note['date']} attached; recorded on this order. No new request was filed.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Authorization {work.notes.get('ehr_auth_number', '?')} at {payer} was increased to "
                f"{work.notes.get('payer_units', '?')} units, the ordered units, with the ordering note attached; "
                f"recorded on the order.")
