"""Reference solution of template dme/hospital_bed: a semi-electric hospital bed for a Keystone
Mutual member under policy KM-DME-404 (Medicare's LCD L33820 structure).

The coordinator reads the face-to-face note for a condition the policy names (positioning not
feasible in an ordinary bed, the head of the bed above 30 degrees most of the time, traction) and,
for a semi-electric bed, frequent or immediate changes in body position. Met: a DME request with the
condition, naming a contracted supplier, with the written order and the note attached; the approval
recorded on the order and the item. Not met: nothing filed, a staff message to the ordering provider
saying what the note lacks, an item note, the item On Hold.
"""
from __future__ import annotations

import re
from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.dme import portal_b_request, steps as dme_steps
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
POLICY = "KM-DME-404"
FOLLOW_UP_DAYS = 7
# How a face-to-face note states each of the policy's conditions, by the portal's names.
CONDITIONS = {"Head of bed elevated more than 30 degrees": re.compile(r"head of the bed elevated more than 30 degrees"),
              "Positioning not feasible in an ordinary bed": re.compile(r"positioning [\w ]*not feasible"),
              "Traction equipment": re.compile(r"traction")}
POSITION_CHANGES = re.compile(r"frequent changes in body position|immediate need for a change in body position")
FREQUENT = "Frequent or immediate changes in body position"


def decide(work: Work) -> None:
    """The condition (and position changes) the face-to-face note documents, or why none qualifies."""
    f2f = next(d for d in work.case["documents"] if d["key"] == "f2f")
    narrative = f2f.get("narrative") or ""
    condition = next((name for name, pattern in CONDITIONS.items() if pattern.search(narrative)), "")
    changes = bool(POSITION_CHANGES.search(narrative))
    visit = us_date(dme_steps.document_date(work, "f2f"))
    work.notes.update(condition=condition, position_changes=FREQUENT if changes else "", visit=visit)
    if not condition:
        work.notes["not_met"] = (
            f"the face-to-face note of {visit} documents only that a hospital bed would be more comfortable or more "
            "convenient, and no condition the policy requires (positioning not feasible in an ordinary bed, the head "
            "of the bed elevated more than 30 degrees most of the time, or traction equipment)")
    elif not changes:
        work.notes["not_met"] = (f"the face-to-face note of {visit} documents no frequent or immediate changes in "
                                 "body position, which a semi-electric bed needs")


def review(work: Work, met: bool) -> dict[str, dict]:
    """The order's documents opened (and, to file, downloaded); returns the item's supplier list."""
    work.notes["documents"] = dme_steps.order_documents(work)
    for key in ("f2f", "wo"):
        ehr_steps.open_document(work, key)
    if met:
        for key in ("wo", "f2f"):
            work.notes[f"file:{key}"] = dme_steps.download_from_order(work, key)
    decide(work)
    dme_steps.open_dme_item(work)
    return dme_steps.read_suppliers(work)


def fill_request(work: Work, suppliers: dict[str, dict]) -> None:
    """The DME request: the order's fields and supplier as portal_b_request fills them, and the bed's answers."""
    actor = work.actor
    portal_b_request.choose_supplier(work, suppliers)
    portal_b_request.fill_request(work)
    actor.select_option("select[name=bed_indication]", work.need("condition"))
    actor.select_option("select[name=bed_position_changes]", work.need("position_changes"))


def attach(work: Work) -> None:
    actor = work.actor
    actor.upload("input[name=written_order]", work.need("file:wo"))
    actor.select_option("select[name=document_type_2]", "Clinical notes")
    actor.upload("input[name=attachment_2]", work.need("file:f2f"))


def record(work: Work, follow_up: str) -> None:
    """The approval on the order (the policy's approval period from the planned delivery) and the item."""
    notes = work.notes
    dme_steps.to_order(work)
    start, end = portal_b_request.auth_span(work)
    ehr_steps.record_authorization(work, status="Approved", payer=KEYSTONE, auth_number=work.need("auth_number"),
                                   reference=work.need("request_id"), start=us_date(start), end=us_date(end))
    dme_steps.back_to_item(work)
    dme_steps.update_dme_item(
        work, "In Progress", supplier=notes["supplier"], follow_up=follow_up,
        note=f"{KEYSTONE} approved DME request {notes['request_id']} for the {notes['code']} (semi-electric hospital "
             f"bed): authorization {notes['auth_number']}, {us_date(start)} to {us_date(end)}. {notes['reason']} "
             f"Patient {work.patient_name}, DOB {us_date(work.patient['dob'])}, member {notes['member']}. Policy "
             f"{POLICY} met by the face-to-face visit of {notes['visit']} (within 6 months before the written order): "
             f"{notes['condition'].lower()}, and frequent changes in body position. Attached: the signed written "
             f"order and the face-to-face note. Supplier: {notes['supplier_why']}. Next: send the supplier referral "
             f"to {notes['supplier']}, who schedules delivery; I will follow up on {follow_up}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    met = "submit_request" in {s.id for s in work.task.subtasks}
    equipment = dme_steps.open_equipment_order(work)
    suppliers: dict[str, dict] = {}
    if work.doing("review_chart"):
        suppliers = review(work, met)
    if work.doing("check_policy"):
        portal_b.open_portal_b(work)
        portal_b_request.read_policy(work)
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    if met:
        if work.doing("submit_request"):
            if not suppliers:
                work.need("suppliers")  # the review that reads them was skipped
            dme_steps.to_tab(work, int(work.need("portal_b_tab")))
            work.actor.click("nav a[href='/dme/new']")
            fill_request(work, suppliers)
            if work.doing("attach_documents"):
                attach(work)
            decision = portal_b_request.submit_approved(work, "the bed")
            work.notes["reason"] = decision["reason"]
        if work.doing("record_outcome"):
            record(work, follow_up)
        work.finish(f"Keystone Mutual approved the {equipment}: authorization {work.notes.get('auth_number', '(none)')} "
                    f"(DME request {work.notes.get('request_id', '(none)')}), contracted supplier "
                    f"{work.notes.get('supplier', '(none)')}.")
        return
    stop = f"The {work.notes['code']} order does not meet {KEYSTONE} policy {POLICY}: {work.notes.get('not_met', '')}."
    if not work.notes.get("not_met"):
        raise ScriptFailed(f"the face-to-face note documents {work.notes.get('condition')}")
    dme_steps.route_to_provider_and_hold(
        work, f"Hospital bed order {work.notes['order_id']}: face-to-face note lacks a qualifying condition",
        f"{work.patient_name}, DOB {us_date(work.patient['dob'])}: the hospital bed order cannot go to {KEYSTONE} "
        f"yet. {stop} For a semi-electric bed the note must also document frequent or immediate changes in body "
        "position. Please document a qualifying condition if the patient has one (a new face-to-face note and "
        "written order), or reconsider the order. Nothing was submitted to the payer and the supplier was not sent "
        "the order.",
        f"Not submitted; no supplier sent the order. {stop} Staff message sent to the ordering provider, "
        f"{work.notes['provider']}, to document a qualifying condition or reconsider. On hold; I will follow up on "
        f"{follow_up}.", follow_up)
    work.finish(f"Nothing was submitted for the {equipment}. {stop} The ordering provider was messaged and the DME "
                "item is On Hold.")
