"""Reference solution of template dme/equipment_replacement: equipment the patient already has
must be replaced, under Keystone Mutual's replacement rule (policies KM-DME-401 and KM-DME-404).

The coordinator finds the earlier item's DME request on file at Keystone and reads its delivery
date there (the request list shows only the order date), counts the 5-year reasonable useful
lifetime from the delivery to the planned replacement, and reads why the item must be replaced.
Within the lifetime only an incident (loss, theft, irreparable damage from a specific event,
documented by a police, fire or insurance report) is covered: a Replacement DME request with
modifier RA naming the earlier request, the report attached, the approval recorded on the order
and the DME item. Wear from use within the lifetime is not: nothing is filed, an item note says
why and when a replacement can be requested, and the DME item goes On Hold.
"""
from __future__ import annotations

import re
from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.dme import portal_b_request, steps as dme_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
LIFETIME_YEARS = 5
MODIFIER = "RA"
INCIDENT_REPORT = "Loss, theft or damage report"
# The portal's replacement reasons, by what the incident report says happened.
INCIDENT_REASONS = (("theft", "Theft"), ("stolen", "Theft"), ("lost", "Loss"), ("fire", "Irreparable damage "
                    "(specific incident)"), ("flood", "Irreparable damage (specific incident)"))
FOLLOW_UP_DAYS = 7


def lifetime_end(delivered: date) -> date:
    """Five years after the delivery (a 02/29 delivery ends on 03/01)."""
    if (delivered.month, delivered.day) == (2, 29):
        return date(delivered.year + LIFETIME_YEARS, 3, 1)
    return delivered.replace(year=delivered.year + LIFETIME_YEARS)


def review(work: Work, *, met: bool) -> dict[str, dict]:
    """The visit opened; the written order and the incident report downloaded (to file) or the
    supplier's statement opened; returns the DME item's supplier list."""
    work.notes["documents"] = dme_steps.order_documents(work)
    ehr_steps.open_document(work, "f2f")
    if met:
        work.notes["file:written_order"] = dme_steps.download_from_order(work, "wo")
        work.notes["file:report"] = dme_steps.download_from_order(work, "report")
    else:
        ehr_steps.open_document(work, "statement")
    dme_steps.open_dme_item(work)
    return dme_steps.read_suppliers(work)


def find_earlier_item(work: Work) -> None:
    """The item's policy, then the member's approved request on file for the same code: its
    delivery date from the request's page, and the lifetime's end against the planned date."""
    actor = work.actor
    portal_b.open_portal_b(work)
    portal_b_request.read_policy(work)
    actor.click("nav a[href='/dme']")
    actor.fill("form[role=search] input[name=q]", work.need("member"))
    actor.click("form[role=search] button[type=submit]")
    for row in work.env.page_locator("main table.grid tbody tr").all():
        cells = [text.strip() for text in row.locator("td").all_inner_texts()]
        if len(cells) >= 10 and cells[3] == work.notes["code"] and cells[7] == "Approved" and cells[9] == "On file":
            work.notes.update(prior=cells[0], prior_ordered=cells[6])
            break
    else:
        raise ScriptFailed(f"no approved {work.notes['code']} on file for member {work.notes['member']}")
    actor.click(f"main table.grid a:text-is('{work.notes['prior']}')")
    delivered = portal_b.shown_date(actor.fact("Delivered"))
    end = lifetime_end(delivered)
    planned = parse_us_date(work.need("planned"))
    work.notes.update(delivered=us_date(delivered), lifetime_end=us_date(end),
                      lifetime_over="yes" if planned >= end else "no")


def incident_reason(work: Work) -> str:
    """The replacement reason the incident report's title states."""
    title = next(d for d in work.case["documents"] if d["key"] == "report").get("title", "").lower()
    reason = next((label for word, label in INCIDENT_REASONS if word in title), None)
    if reason is None:
        raise ScriptFailed(f"the report names no loss, theft or incident: {title!r}")
    return reason


def fill_request(work: Work, suppliers: dict[str, dict], reason: str) -> None:
    """The replacement request: the earlier item's request, the reason, the planned delivery, RA."""
    actor, notes = work.actor, work.notes
    prior = work.need("prior")  # found on portal B by the history step
    supplier = suppliers[work.case["orders"][0]["supplier"]]["name"]
    dme_steps.to_tab(work, int(work.need("portal_b_tab")))
    actor.click("nav a[href='/dme/new']")
    portal_b_request.fill_member_and_order(work, supplier, dme_steps.document_date(work, "f2f"),
                                           dme_steps.document_date(work, "wo"))
    actor.select_option("select[name=request_kind]", "Replacement")
    actor.fill("input[name=initial_request_id]", prior)
    actor.select_option("select[name=replacement_reason]", reason)
    actor.fill("input[name=replacement_date]", portal_b.portal_b_date(parse_us_date(notes["planned"])))
    actor.fill("input[name=modifier]", MODIFIER)
    actor.upload("input[name=written_order]", notes["file:written_order"])
    notes.update(supplier=supplier, reason=reason)


def lifetime_text(work: Work) -> str:
    notes = work.notes
    return (f"The earlier {notes['code']} (Keystone request {notes['prior']}, ordered {notes['prior_ordered']}) was "
            f"delivered {notes['delivered']}; its 5-year reasonable useful lifetime counts from the delivery and "
            f"ends {notes['lifetime_end']}, after the planned replacement on {notes['planned']}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    met = "submit_request" in {s.id for s in work.task.subtasks}
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    equipment = work.actor.fact("Description").splitlines()[0]
    member = re.search(r"Member ID (\S+)", work.notes["coverage"])
    work.notes["member"] = member.group(1) if member else ""
    suppliers: dict[str, dict] = {}
    if work.doing("review_chart"):
        suppliers = review(work, met=met)
    if work.doing("check_history"):
        find_earlier_item(work)
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    who = f"Patient {work.patient_name}, DOB {us_date(work.patient['dob'])}, member {work.notes['member']}."
    if met:
        if work.doing("submit_request"):
            reason = incident_reason(work)
            if not suppliers:
                work.need("suppliers")  # the review that reads them was skipped
            fill_request(work, suppliers, reason)
            if work.doing("attach_report"):
                work.actor.select_option("select[name=document_type_2]", INCIDENT_REPORT)
                work.actor.upload("input[name=attachment_2]", work.need("file:report"))
            decision = portal_b_request.submit(work)
            if decision["status"] != "Approved":
                raise ScriptFailed(f"Keystone Mutual did not approve the replacement: {decision}")
            work.notes.update(request_id=decision["request_id"], auth_number=decision["auth_number"])
        if work.doing("record_outcome"):
            dme_steps.to_order(work)
            start, end = portal_b_request.auth_span(work)
            ehr_steps.record_authorization(
                work, status="Approved", payer=KEYSTONE, auth_number=work.need("auth_number"),
                reference=work.need("request_id"), start=us_date(start), end=us_date(end))
            dme_steps.back_to_item(work)
            dme_steps.update_dme_item(
                work, "In Progress", supplier=work.need("supplier"), follow_up=follow_up,
                note=f"{KEYSTONE} approved the replacement {work.notes['code']} (modifier {MODIFIER}, reason "
                     f"{work.notes['reason']}): DME request {work.notes['request_id']}, authorization "
                     f"{work.notes['auth_number']}, {us_date(start)} to {us_date(end)}. {who} {lifetime_text(work)} "
                     f"Within the lifetime only loss, theft or damage from an incident is covered: the police "
                     f"report of {us_date(dme_steps.document_date(work, 'report'))} names the item and is attached "
                     f"to the request. Next: {work.notes['supplier']} delivers the replacement; I will follow up on "
                     f"{follow_up}.")
        work.finish(f"Keystone Mutual approved the replacement {equipment}: authorization "
                    f"{work.notes.get('auth_number', '(none)')} (DME request {work.notes.get('request_id', '(none)')},"
                    f" modifier {MODIFIER}).")
        return
    if work.doing("document_stop"):
        if work.need("lifetime_over") == "yes":
            raise ScriptFailed("the useful lifetime has ended: not a stop case")
        dme_steps.back_to_item(work)
        dme_steps.add_item_note(
            work, f"No replacement request filed for the {work.notes['code']}. {who} {lifetime_text(work)} "
                  f"Five years from the order date have passed, but {KEYSTONE} policy {work.need('policy')} counts "
                  f"from the delivery. Before then a replacement is covered only for loss, theft or irreparable "
                  f"damage from a specific incident; the supplier's statement of "
                  f"{us_date(dme_steps.document_date(work, 'statement'))} describes wear from nightly use (no drop, "
                  f"fire or water event), and the warranty has ended. Who must act: the supplier, to repair the "
                  f"device now; the sleep physician, {work.notes['provider']}, told that a replacement can be "
                  f"requested with a new order once the lifetime ends on {work.notes['lifetime_end']}. Nothing was "
                  f"filed; the DME item is On Hold and I will follow up on {follow_up}.")
    if work.doing("hold_item"):
        dme_steps.back_to_item(work)
        dme_steps.update_dme_item(work, "On Hold", follow_up=follow_up)
    work.finish(f"No replacement request was filed for the {equipment}: its useful lifetime, counted from the "
                f"delivery on {work.notes.get('delivered', '(not read)')}, runs until "
                f"{work.notes.get('lifetime_end', '(not read)')}, and wear from use is not a covered reason. The DME "
                f"item is On Hold, follow-up {follow_up}.")
