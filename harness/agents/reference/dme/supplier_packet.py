"""Reference solution of template dme/supplier_packet: equipment the plan covers without
authorization goes straight to a supplier. Fax the order packet (written order and
face-to-face evaluation, the patient's active plan on the cover sheet) to a supplier that
accepts that plan, open its reply, and record supplier and confirmation on the DME item."""
from __future__ import annotations

from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps, fax_steps
from admindesk.harness.agents.reference.dme import steps as dme_steps
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

SUPPLIER_LINE = "DME Supplier"
FOLLOW_UP_DAYS = 7


def read_active_plan(work: Work) -> None:
    """The chart's Coverage tab: the coverage active today (payer, plan, member id), and any
    that has ended (to explain why it is not the one given to the supplier)."""
    actor = work.actor
    actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    # Cells read by their column's heading, so a column the tab adds moves nothing.
    headings, rows = actor.read("table.grid").evaluate(
        "t => [Array.from(t.tHead.rows[0].cells).map(c => c.innerText.trim()),"
        " Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.innerText.trim()))]")
    column = {name: headings.index(next(h for h in headings if h.startswith(name)))
              for name in ("Payer", "Plan", "Member ID", "Termination", "Status as of")}
    coverages = [{"payer": r[column["Payer"]], "plan": r[column["Plan"]], "member": r[column["Member ID"]],
                  "termination": r[column["Termination"]], "status": r[column["Status as of"]]}
                 for r in rows if len(r) == len(headings)]
    active = [c for c in coverages if c["status"] == "Active"]
    if not active:
        raise ScriptFailed(f"no active coverage on the chart: {coverages}")
    work.notes.update(payer=active[0]["payer"], plan=active[0]["plan"], member=active[0]["member"])
    ended = [c for c in coverages if c["status"] == "Terminated"]
    work.notes["ended"] = "; ".join(f"{c['payer']} ended {c['termination']}" for c in ended)


def review(work: Work) -> dict[str, dict]:
    """Download the written order and the face-to-face evaluation; the EHR's supplier list."""
    documents = {d["type"]: d["key"] for d in work.case["documents"]}
    work.notes["file:written_order"] = dme_steps.download_from_order(work, documents["written_order"])
    work.notes["file:face_to_face"] = dme_steps.download_from_order(work, documents["face_to_face"])
    dme_steps.open_dme_item(work)
    return dme_steps.read_suppliers(work)


def plans_accepted(work: Work, supplier: str) -> str:
    """The supplier's intake line in the fax phonebook, opened: the plans it accepts."""
    contact = fax_steps.find_contact(work, supplier, SUPPLIER_LINE)
    work.actor.click(f"main table.grid a:text-is('{contact['name']}')")
    return work.actor.fact("Plans accepted (in network)")


def choose_supplier(work: Work, suppliers: dict[str, dict]) -> None:
    """The supplier on the written order when it accepts the patient's plan; otherwise the
    first supplier of the same kind of equipment that does."""
    payer = work.need("payer")
    ordered = suppliers[work.case["orders"][0]["supplier"]]
    category = dme_steps.EQUIPMENT_CATEGORY[work.need("code")]
    if payer in plans_accepted(work, ordered["name"]):
        work.notes.update(supplier=ordered["name"], supplier_why=(
            f"{ordered['name']} is the supplier on the written order and accepts {payer} (fax phonebook)"))
        return
    for candidate in suppliers.values():
        if candidate is not ordered and category in candidate["categories"] \
                and payer in plans_accepted(work, candidate["name"]):
            work.notes.update(supplier=candidate["name"], supplier_why=(
                f"{ordered['name']}, the supplier on the written order, is not contracted with {payer} (its plans "
                f"accepted do not include it), so the packet went to {candidate['name']}, an in-network "
                f"{category} supplier"))
            return
    raise ScriptFailed(f"no {category} supplier accepts {payer}")


def send_packet(work: Work) -> None:
    """Cover sheet naming the patient's active plan, the two documents, sent to delivery."""
    supplier = work.need("supplier")
    fax_steps.compose_to_contact(work, supplier, SUPPLIER_LINE)
    fax_steps.fill_cover(
        work, attention="DME Order Intake",
        re_line=f"{work.patient_name} DOB {us_date(work.patient['dob'])} - {work.notes['code']} order",
        comments=(f"New DME order for {work.patient_name}, DOB {us_date(work.patient['dob'])}. Insurance: "
                  f"{work.notes['payer']} ({work.notes['plan']}), member ID {work.notes['member']}; no prior "
                  f"authorization is required for this item. Item: {work.notes['equipment']}, HCPCS "
                  f"{work.notes['code']} x{work.notes['units']}, diagnoses {work.notes['diagnoses']}, ordered by "
                  f"{work.notes['provider']} (NPI {work.notes['provider_npi']}). Enclosed: signed written order and "
                  f"face-to-face evaluation. Please confirm the order with your order number by return fax. Sent "
                  f"by the DME coordinator, Jordan Ellis."))
    fax_steps.attach(work, work.need("file:written_order"))
    fax_steps.attach(work, work.need("file:face_to_face"))
    job = fax_steps.send(work)
    work.notes.update(job=job["job_id"], sent=job["completed"], supplier_fax=job["to_number"])


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    actor = work.actor
    ehr_steps.open_chart(work)
    read_active_plan(work)
    ehr_steps.open_order(work)
    work.notes["equipment"] = actor.fact("Description").splitlines()[0]
    suppliers: dict[str, dict] = {}
    if work.doing("review_order"):
        suppliers = review(work)
    if work.doing("send_packet"):
        if not suppliers:
            work.need("suppliers")  # the review that reads them was skipped
        choose_supplier(work, suppliers)
        send_packet(work)
    if work.doing("supplier_reply"):
        work.need("job")
        dme_steps.read_supplier_reply(work)
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    if work.doing("record_supplier"):
        dme_steps.back_to_item(work)
        supplier = work.need("supplier")
        ended = f" The order's coverage is out of date ({work.notes['ended']}); {work.notes['payer']} is the " \
                "active plan given to the supplier." if work.notes["ended"] else ""
        dme_steps.update_dme_item(
            work, "Supplier Confirmed", supplier=supplier, confirmation=work.need("confirmation"),
            note=f"Order packet (signed written order and face-to-face evaluation) faxed to {supplier} on "
                 f"{work.notes['sent']} (fax job {work.notes['job']}) for {work.patient_name}, DOB "
                 f"{us_date(work.patient['dob'])}, MRN {work.ids['mrn']}: {work.notes['code']} "
                 f"{work.notes['equipment']}, ordered by {work.notes['provider']}. Insurance on the cover sheet: "
                 f"{work.notes['payer']}, member {work.notes['member']}; no authorization required.{ended} "
                 f"Supplier: {work.notes['supplier_why']}. {supplier} confirmed the order, supplier order number "
                 f"{work.notes['confirmation']}. Next: {supplier} calls the patient to schedule delivery; I will "
                 f"follow up on {follow_up} to confirm delivery.")
    work.finish(f"The {work.notes['equipment']} order went to {work.notes.get('supplier', '(no supplier)')}, "
                f"which confirmed it: supplier order number {work.notes.get('confirmation', '(none)')}.")
