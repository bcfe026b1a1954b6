"""Reference solution of template request_on_file: the order's request is already at the
payer. Read the case number the EHR holds, find that request in the payer's portal
(portal A's Status Inquiry, or Keystone Mutual's Precertification Status), copy its
decision onto the order, close the work item, and submit nothing."""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a, portal_b
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"  # Keystone Mutual keeps its own portal (B); every other payer is on portal A



def read_reference_on_order(work: Work) -> None:
    """The order's authorization section: its status and the payer's case number."""
    actor = work.actor
    status = actor.read("select[name=status]").evaluate("s => s.options[s.selectedIndex].text").strip()
    reference = actor.read("input[name=reference_number]").input_value().strip()
    if not reference:
        raise ScriptFailed(f"the order's authorization ({status}) holds no payer reference number")
    work.notes.update(ehr_auth_status=status, payer_reference=reference)


def open_order_reference(work: Work) -> None:
    """From the chart, the order and the payer reference its authorization section holds."""
    ehr_steps.open_order(work)
    read_reference_on_order(work)


def find_on_portal_a(work: Work) -> dict[str, str]:
    """Portal A's Status Inquiry by the case number the EHR holds; the case's determination."""
    return portal_a.open_case(work, work.need("payer_reference"))


def find_on_portal_b(work: Work, member: str) -> dict[str, str]:
    """Keystone Mutual's Precertification Status for the subscriber; the request the EHR names,
    opened (dates turned into the EHR's MM/DD/YYYY)."""
    reference = work.need("payer_reference")
    rows = portal_b.find_precerts(work, member)
    if reference not in {row["reference"] for row in rows}:
        raise ScriptFailed(f"request {reference} is not among the subscriber's requests: {rows}")
    decision = portal_b.open_precert(work, reference)
    if "start" in decision:
        decision.update(start=portal_b.ehr_date(decision["start"]), end=portal_b.ehr_date(decision["end"]))
    return {**decision, "case_number": decision["reference"]}


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverage = work.case["coverages"][0]
    payer_id = coverage["payer"]
    member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
    payer = payer_name(payer_id)

    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        open_order_reference(work)
    decision: dict[str, str] = {}
    if work.doing("find_request"):
        if payer_id == KEYSTONE:
            decision = find_on_portal_b(work, member)
        else:
            decision = find_on_portal_a(work)
        if decision["status"] != "Approved" or "auth_number" not in decision:
            raise ScriptFailed(f"the request on file is not an approval: {decision}")
    if work.doing("record_result"):
        if not decision:
            raise ScriptFailed("no decision to record (the request on file was never looked up)")
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(
            work, status=decision["status"], payer=payer, auth_number=decision["auth_number"],
            # The EHR already holds the payer's case number; it is retyped only when it differs.
            reference="" if decision["case_number"] == work.notes["payer_reference"] else decision["case_number"],
            units=decision["units"], start=decision["start"],
            end=decision["end"])
        work.notes["recorded"] = decision["status"]
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"A prior authorization request for {work.notes['code']} was already on file at {payer}: case "
                  f"{decision['case_number']} is {decision['status']} with authorization {decision['auth_number']}, "
                  f"{decision['units']} unit(s), {decision['start']} to {decision['end']} (found on the payer "
                  f"portal by member id {member}). Recorded on this order; no new request was submitted, to avoid "
                  f"a duplicate.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"The request was already on file at {payer}: case {decision.get('case_number', '?')}, "
                f"{decision.get('status', 'status unknown')}, authorization {decision.get('auth_number', 'none')} "
                f"({decision.get('start', '')} to {decision.get('end', '')}). Recorded on order "
                f"{work.notes.get('order_id', '')}; no second request was submitted.")
