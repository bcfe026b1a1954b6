"""Gestures the DME solutions share: the order's documents as the order page lists them,
the DME work item (its supplier list, status changes and notes), which suppliers fill which
kind of equipment, and the supplier's reply in the fax inbox."""
from __future__ import annotations

import re
from datetime import date

from admindesk.harness.agents.reference import ehr_steps, fax_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

# The equipment category a coordinator files each HCPCS code under (the EHR's supplier list
# names the categories each supplier fills: "SleepWell DME Services (cpap)").
EQUIPMENT_CATEGORY = {
    "E0601": "cpap", "E0470": "cpap",
    "E1390": "oxygen", "E1392": "oxygen", "E0431": "oxygen", "E0424": "oxygen",
    "E0143": "mobility", "K0001": "mobility", "K0003": "mobility",
    "E0250": "beds", "E0260": "beds",
    "E2103": "diabetes", "A4239": "diabetes", "A9276": "diabetes", "A9277": "diabetes", "A9278": "diabetes",
}
STATUS_DIALOG = "#status-dialog"


def open_equipment_order(work: Work) -> str:
    """The patient's chart and the equipment order: the equipment as the order describes it; the
    member id its billing coverage shows goes to work.notes["member"] ("" when it shows none)."""
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    member = re.search(r"Member ID (\S+)", work.notes["coverage"])
    work.notes["member"] = member.group(1) if member else ""
    return work.actor.fact("Description").splitlines()[0]


def order_documents(work: Work) -> dict[str, dict[str, str]]:
    """The order page's "Documents for this order" rows, by document id: date, type, title."""
    rows = work.actor.read("section[aria-labelledby='odocs-h']").evaluate(
        "s => Array.from(s.querySelectorAll('tbody tr')).map(r => ({"
        " id: (r.querySelector('a[href^=\"/documents/\"]')?.getAttribute('href') || '').split('/').pop(),"
        " cells: Array.from(r.cells).map(c => c.innerText.trim())}))")
    return {row["id"]: {"date": row["cells"][0], "type": row["cells"][1], "title": row["cells"][2]}
            for row in rows if row["id"]}


def document_date(work: Work, doc_key: str) -> date:
    """A chart document's date, as the order page lists it (read in review)."""
    listed = work.notes.get("documents") or {}
    doc_id = work.ids["documents"][doc_key]
    if doc_id not in listed:
        raise ScriptFailed(f"{doc_id} is not listed among the order's documents")
    return parse_us_date(listed[doc_id]["date"])


def download_from_order(work: Work, doc_key: str) -> str:
    """Download a chart document straight from the order page's document list (its PDF
    link); returns the file's name as listed in Downloads."""
    doc_id = work.ids["documents"][doc_key]
    return ehr_steps.click_to_download(
        work, f"section[aria-labelledby='odocs-h'] a[href='/documents/{doc_id}/download']", doc_id)


def months_after(day: date, months: int) -> date:
    """The same day of the month `months` later (a rental's term from its start)."""
    month = day.month - 1 + months
    return day.replace(year=day.year + month // 12, month=month % 12 + 1)


def to_tab(work: Work, index: int) -> None:
    """Bring the tab at `index` to the front (a click on it only when it is not in front)."""
    if work.env.chrome_layout().active != index:
        work.actor.switch_to_tab(index)


def to_order(work: Work) -> None:
    """The EHR tab, on the order page (from the work item or a document, by the order's link)."""
    to_tab(work, ehr_steps.ORDER_PAGE_TAB)
    order_id = work.need("order_id")
    if not (work.actor.count("#authorization") and work.actor.fact("Order #") == order_id):
        work.actor.click(f"a:text-is('{order_id}')")


def open_dme_item(work: Work) -> None:
    """From the order page, the order's DME work item."""
    work.actor.click("section[aria-labelledby='owi-h'] a:has-text('DME item')")


def read_suppliers(work: Work) -> dict[str, dict]:
    """The DME item's supplier choices (the status dialog's list): id -> name and categories."""
    options = work.actor.read(f"{STATUS_DIALOG} select[name=supplier_id]").evaluate(
        "s => Array.from(s.options).filter(o => o.value).map(o => [o.value, o.text.trim()])")
    suppliers = {}
    for value, label in options:
        name, _, categories = label.partition(" (")
        suppliers[value] = {"name": name.strip(), "categories": categories.rstrip(")").split(", ")}
    return suppliers


def update_dme_item(work: Work, status: str, *, supplier: str = "", confirmation: str = "",
                    follow_up: str = "", note: str = "") -> None:
    """On the open DME work item: Change status, with the supplier (its name), the supplier's
    confirmation number, a follow-up date (MM/DD/YYYY) and a note where given."""
    actor = work.actor
    actor.click("button:text-is('Change status…')")
    actor.select_option(f"{STATUS_DIALOG} select[name=status]", status)
    if supplier:
        actor.select_containing(f"{STATUS_DIALOG} select[name=supplier_id]", supplier)
    if confirmation:
        actor.fill(f"{STATUS_DIALOG} input[name=supplier_confirmation]", confirmation)
    if follow_up:
        actor.fill(f"{STATUS_DIALOG} input[name=follow_up_date]", follow_up)
    if note:
        actor.fill(f"{STATUS_DIALOG} textarea[name=note]", note)
    actor.click(f"{STATUS_DIALOG} button:text-is('Save status')")
    if status not in actor.fact("Status"):
        raise ScriptFailed(f"the DME item did not take status {status!r}: {actor.text('main')[:400]}")


def add_item_note(work: Work, text: str) -> None:
    """Add a note on the open work item."""
    actor = work.actor
    before = actor.count("#notes ul.notes > li")
    actor.fill("#notes textarea[name=text]", text)
    actor.click("#notes button:text-is('Add item note')")
    if actor.count("#notes ul.notes > li") != before + 1:
        raise ScriptFailed(f"the item note was not saved: {actor.text('main')[:300]}")


def back_to_item(work: Work) -> None:
    """The EHR tab, on the order's DME work item."""
    to_tab(work, ehr_steps.ORDER_PAGE_TAB)
    if not work.actor.count("#status-dialog select[name=supplier_id]"):
        to_order(work)
        open_dme_item(work)


def route_to_provider_and_hold(work: Work, subject: str, message: str, hold_note: str, follow_up: str) -> None:
    """Subtasks `route_to_provider` (a clinical-question staff message to the ordering provider)
    and `hold_item` (the DME item On Hold with a note and the follow-up date)."""
    if work.doing("route_to_provider"):
        ehr_steps.send_staff_message(work, message_type="Clinical question", subject=subject, body=message)
    if work.doing("hold_item"):
        back_to_item(work)
        update_dme_item(work, "On Hold", follow_up=follow_up, note=hold_note)


def read_supplier_reply(work: Work) -> None:
    """Open the supplier's reply in the fax inbox and read its order number."""
    # The reply comes from the number the packet was faxed to and names our job on its page.
    job = work.need("job")
    _, _, text = fax_steps.find_fax(work, work.need("supplier_fax"), lambda page: f"fax job {job}" in page,
                                    f"{work.need('supplier')}'s reply to job {job}", limit=2)
    number = re.search(r"SO-[A-Z]+-\d+", text)
    if "ORDER CONFIRMATION" not in text or number is None:
        raise ScriptFailed(f"the supplier did not confirm the order: {text[:300]!r}")
    work.notes["confirmation"] = number.group(0)
