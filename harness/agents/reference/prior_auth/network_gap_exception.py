"""Reference solution of template prior_auth/network_gap_exception: an HMO/EPO member's service ordered
at a facility outside the plan's network. The payer's manual (Network access and exceptions) covers it
only with a network exception, granted when no in-network facility of the service meets the access
standard (30 miles from the member's home, an appointment within 14 days).

Read the order and its note, check eligibility, read the manual, and search the payer's facility
directory by the service around the member's home ZIP (60 miles: the ordered facility and the nearest
in-network ones beyond the standard's radius show too). No in-network facility within the standard:
request the service for the ordered facility with the exception's reason and the facilities checked,
the note attached, and record the approval. One within it: file nothing, send the ordering provider a
staff message naming it, comment and keep the item In Progress.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.portal_a_submit import download_document, find_active_coverage
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

MANUAL_CHAPTER = "Network access and exceptions"
# The directory's service for each ordered code a case of this template holds.
DIRECTORY_SERVICE = {"78815": "PET/CT", "78816": "PET/CT", "78452": "Nuclear cardiology",
                     "75574": "Cardiac CT angiography"}
SEARCH_MILES = "60"
RESULT_COLUMNS = ("name", "npi", "address", "miles", "network", "next_available", "within")
# The practice's organization on portal A, which submits for a service another facility performs.
PRACTICE = "Susquehanna Valley Medical Group - Harrisburg"
DISTANCE_REASON = "No in-network provider of the service within 30 miles"
WAIT_REASON = "No in-network appointment within 14 calendar days"


def search_facilities(work: Work) -> list[dict[str, str]]:
    """Portal A's Provider Network, Facilities: the ordered service around the member's home ZIP."""
    actor = work.actor
    portal_a.open_portal_a(work)
    actor.click("nav.top-tabs a:has-text('Provider Network')")
    actor.click("nav.subtabs a:text-is('Facilities')")
    actor.select_option("#payer_id", portal_a.payer_name(work.need("payer_id")))
    service = DIRECTORY_SERVICE.get(work.need("code"))
    if service is None:
        raise ScriptFailed(f"no directory service for {work.notes['code']}")
    actor.select_option("#service", service)
    actor.fill("#zip", work.patient["zip"])
    actor.select_by_value("#radius", SEARCH_MILES)
    actor.click("main form button:text-is('Search facilities')")
    return ehr_steps.table_rows(work, "Facilities found", RESULT_COLUMNS)


def in_network_summary(rows: list[dict[str, str]]) -> str:
    """Each in-network facility found: name, miles, next appointment, whether it meets the standard."""
    return "; ".join(f"{r['name']} (NPI {r['npi']}): in network, {r['miles']} miles, next available "
                     f"{r['next_available']}, {'within' if r['within'] == 'Yes' else 'outside'} the access standard"
                     for r in rows if r["network"] == "In network")


def exception_reason(rows: list[dict[str, str]]) -> str:
    """The reason none meets the standard: an in-network facility within 30 miles books too late."""
    near = [r for r in rows if r["network"] == "In network" and float(r["miles"]) <= 30]
    return WAIT_REASON if near else DISTANCE_REASON


def clinical_summary(work: Work) -> str:
    """The general questionnaire's summary: the order and the ordering note's own account."""
    n = work.notes
    note = next(d for d in work.case["documents"] if d["key"] == "visit")
    return (f"{n['code']} for {n['diagnoses']}, ordered by {n['provider']}, to be performed at {n['facility']} "
            f"(out of network; network exception requested). Per the attached note: {note.get('narrative', '')}")[:1000]


def message_text(work: Work, target: dict[str, str]) -> str:
    n = work.notes
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} planned "
            f"{n['planned']} at {n['facility']}, which is not in {portal_a.payer_name(n['payer_id'])}'s network for "
            f"this {n['plan_product']} member. The plan covers an out-of-network facility only with a network "
            "exception, and grants none when an in-network facility meets its access standard (30 miles, an "
            f"appointment within 14 days): {target['name']} ({target['address']}, NPI {target['npi']}) is in network, "
            f"{target['miles']} miles from the patient's home, next available {target['next_available']}. Nothing has "
            f"been submitted to the payer. Please change the order's performing facility to {target['name']}; we will "
            "request the authorization for it once the order is changed.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    subtasks = {s.id for s in work.task.subtasks}
    redirect = "route_to_provider" in subtasks
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        if redirect:
            ehr_steps.open_document(work, "visit")
        else:
            attachments = [(download_document(work, "visit"), "Clinical notes")]
    if work.doing("verify_eligibility"):
        find_active_coverage(work)
        work.notes["plan_product"] = "EPO" if work.case["coverages"][0]["plan"].endswith("EPO") else "HMO"
    rows: list[dict[str, str]] = []
    if work.doing("check_network"):
        work.notes["rule"] = portal_a.manual_chapter(work, work.need("payer_id"), MANUAL_CHAPTER)
        rows = search_facilities(work)
        ordered = next((r for r in rows if r["npi"] == work.need("facility_npi")), None)
        if ordered is None or ordered["network"] == "In network":
            raise ScriptFailed(f"the ordered facility is not out of network in the directory: {ordered}")
        work.notes["checked"] = in_network_summary(rows)
    target = next((r for r in rows if r["network"] == "In network" and r["within"] == "Yes"), None)
    if redirect:
        if work.doing("route_to_provider"):
            if target is None:
                raise ScriptFailed("no in-network facility within the access standard was found")
            ehr_steps.back_to_order(work)
            ehr_steps.send_staff_message(
                work, message_type="Clinical question",
                subject=f"Network: {work.notes['code']} ordered out of network; in-network {target['name']} available",
                body=message_text(work, target))
            work.notes["target"] = target["name"]
        if work.doing("hold_item"):
            ehr_steps.back_to_order(work)
            ehr_steps.add_order_comment(
                work, f"Not submitted: {work.notes['facility']} is out of network for the member's "
                      f"{portal_a.payer_name(work.need('payer_id'))} {work.notes.get('plan_product', '')} plan, and "
                      f"an in-network facility meets the access standard (30 miles, 14 days): {work.need('target')}. "
                      f"Directory checked: {work.notes.get('checked', '')}. Staff message sent to the ordering provider "
                      f"({work.notes['provider']}) to redirect the order there; request the authorization for the "
                      "in-network facility once the order is changed. Follow up in 2 business days.")
            ehr_steps.set_work_item(work, "In Progress")
        work.finish(f"Nothing submitted: an in-network facility meets the plan's access standard "
                    f"({work.notes.get('target', 'none')}); the ordering provider was asked by staff message to "
                    "redirect the order, and the Prior Auth item is left In Progress.")
        return
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        checked = work.need("checked")
        decision = portal_a.submit_prior_auth(
            work, payer_id=work.need("payer_id"), member_id=work.need("member_id"),
            answers={"clinical_summary": clinical_summary(work)}, attachments=attachments,
            network_exception=(PRACTICE, exception_reason(rows), checked))
        work.notes.update(case_number=decision["case_number"], reason=exception_reason(rows))
        portal_a.require_approval(work, decision)
    if work.doing("record_decision"):
        work.need("case_number")
        portal_a.record_decision(work, decision)
    if work.doing("close_item"):
        work.need("recorded")
        n = work.notes
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Prior authorization approved by {portal_a.payer_name(n['payer_id'])} via Payer Portal A with a "
                  f"network exception for the out-of-network facility {n['facility']}: auth {decision['auth_number']}, "
                  f"case {decision['case_number']}, {decision['units']} unit(s) of {n['code']} approved "
                  f"{decision['start']} to {decision['end']}. Exception reason: {n['reason']}. In-network facilities "
                  f"checked in the payer's directory: {n['checked']}; none meets the access standard (30 miles, an "
                  "appointment within 14 days). Sent: the ordering note.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"Approved with a network exception by {portal_a.payer_name(work.need('payer_id'))}: authorization "
                f"{decision.get('auth_number', 'none')} (case {decision.get('case_number', 'none')}) recorded on order "
                f"{work.need('order_id')}.")
