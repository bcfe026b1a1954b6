"""EHR gestures every prior-authorization solution shares: find the patient by name and
date of birth (never by name alone: look-alikes exist), open the order, open and download
chart documents, record the authorization, set the work item, add an order comment."""
from __future__ import annotations

from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

ORDER_PAGE_TAB = 0  # the EHR stays in the first tab; portals and fax open in new tabs
# The chart's Coverage tab table (its caption) and its first columns, in order.
COVERAGE_TABLE = "Insurance coverage on file"
COVERAGE_COLUMNS = ("rank", "payer", "plan", "product", "member_id", "group", "subscriber", "relationship", "pcp",
                    "effective", "termination")


def open_chart(work: Work) -> None:
    """Patient Search by "Last, First", then the row whose DOB is the patient's."""
    actor = work.actor
    actor.click("nav.activitybar a:has-text('Patient Search')")
    actor.fill("input[name=name]", f"{work.patient['last_name']}, {work.patient['first_name']}")
    actor.do({"type": "key", "keys": "Enter"})
    actor.click(f"xpath=//tr[td[normalize-space()='{us_date(work.patient['dob'])}']]//a")


def open_order(work: Work, order_key: str = "svc") -> None:
    """From the chart, the Orders tab, then the order (read back its facts into work.notes)."""
    actor = work.actor
    order_id = work.ids["orders"][order_key]
    actor.click("nav[aria-label='Chart sections'] a:text-is('Orders')")
    actor.click(f"a:text-is('{order_id}')")
    work.notes.update(
        order_id=order_id, code=actor.fact("Code").split()[0], units=actor.fact("Units"),
        diagnoses=", ".join(line.split()[0] for line in actor.fact("Diagnoses").splitlines() if line.strip()),
        planned=actor.fact("Planned service date"), place_of_service=actor.fact("Place of service"),
        provider_npi=actor.fact("Provider NPI"), facility=actor.fact("Facility"),
        facility_npi=actor.fact("Facility NPI"),
        # The provider's line carries the "Message provider" button's text.
        provider=actor.fact("Ordering provider").replace("Message provider", "").strip(),
        coverage=actor.fact("Billing coverage"),
        provider_phone=actor.fact("Provider phone / fax").split(" / ")[0])


def back_to_order(work: Work) -> None:
    """The EHR tab, on the order page (the breadcrumb of a document page leads back)."""
    actor = work.actor
    actor.switch_to_tab(ORDER_PAGE_TAB)
    order_id = work.need("order_id")
    if not (actor.count("#authorization") and actor.fact("Order #") == order_id):
        if not actor.count(f"a:text-is('{order_id}')"):  # a chart tab without the order (e.g. Coverage)
            actor.click("nav[aria-label='Chart sections'] a:text-is('Orders')")
        actor.click(f"a:text-is('{order_id}')")


def open_document(work: Work, doc_key: str, *, download: bool = False) -> str | None:
    """Open a chart document of the order (its viewer page); download it if asked.

    Returns the downloaded file's name (as listed in Downloads)."""
    actor = work.actor
    doc_id = work.ids["documents"][doc_key]
    actor.click(f"section[aria-labelledby='odocs-h'] a[href='/documents/{doc_id}']")
    name = None
    if download:
        name = click_to_download(work, "a.pv-btn[download]", doc_id)
    actor.click(f"a:text-is('{work.notes.get('order_id', work.ids['orders']['svc'])}')")
    return name


def record_approval(work: Work, payer: str, decision: dict[str, str]) -> None:
    """Back on the order, record the payer's approval as the portal gave it (number, case,
    units, dates); notes `recorded` for the step that closes the item."""
    back_to_order(work)
    record_authorization(work, status="Approved", payer=payer, auth_number=decision["auth_number"],
                         reference=decision["case_number"], units=decision["units"], start=decision["start"],
                         end=decision["end"])
    work.notes["recorded"] = decision["auth_number"]


def record_authorization(work: Work, *, status: str, payer: str, auth_number: str = "",
                         reference: str = "", units: str = "", start: str = "", end: str = "",
                         code: str = "") -> None:
    """Fill and save the order's Authorization section (the order page must be open); `code`
    only when the payer approved another code than the order's."""
    actor = work.actor
    actor.select_option("select[name=status]", status)
    actor.select_option("select[name=payer_id]", payer)
    for name, value in (("auth_number", auth_number), ("reference_number", reference),
                        ("approved_units", units), ("start_date", start), ("end_date", end),
                        ("approved_code", code)):
        if value:
            actor.fill(f"input[name={name}]", value)
    actor.click("button:text-is('Save authorization')")
    if actor.count("#authorization .alert-error"):  # a refused form keeps the posted values: read the error
        raise ScriptFailed(f"the authorization was refused: {actor.text('#authorization .alert-error')}")
    saved = actor.read("select[name=status]").evaluate("s => s.options[s.selectedIndex].text")
    if saved.strip() != status:
        raise ScriptFailed(f"the authorization was not saved as {status!r}: "
                           f"{work.env.page_locator('.alert').all_inner_texts()}")


def add_order_comment(work: Work, text: str) -> None:
    """Add an order comment (the order page must be open)."""
    actor = work.actor
    actor.fill("#notes textarea[name=text]", text)
    actor.click("#notes button:text-is('Add comment')")
    if not actor.count(f"#notes :text('{text[:40]}')"):
        raise ScriptFailed("the order comment was not saved")


def set_work_item(work: Work, status: str, note: str = "") -> None:
    """From the order page, the Prior Auth work item, then Change status."""
    actor = work.actor
    actor.click("section[aria-labelledby='owi-h'] a:has-text('Prior Auth item')")
    actor.click("button:text-is('Change status…')")
    actor.select_option("#status-dialog select[name=status]", status)
    if note:
        actor.fill("#status-dialog textarea[name=note], #status-dialog input[name=note]", note)
    actor.click("#status-dialog button:text-is('Save status')")
    if status not in actor.fact("Status"):
        raise ScriptFailed(f"the work item did not take status {status!r}")


def send_staff_message(work: Work, *, message_type: str, subject: str, body: str, priority: str = "Routine") -> None:
    """From the order page, "Message provider" (the form comes addressed to the ordering
    provider, about this order); type, priority, subject and text, then Send."""
    actor = work.actor
    back_to_order(work)
    actor.click("a:has-text('Message provider')")
    actor.select_option("select[name=message_type]", message_type)
    if priority != "Routine":
        actor.select_option("select[name=priority]", priority)
    actor.fill("input[name=subject]", subject)
    actor.fill("textarea[name=body]", body)
    actor.click("button:text-is('Send message')")
    if not actor.count(".alert-success:has-text('Message sent to')"):
        raise ScriptFailed(f"the staff message was not sent: {work.env.page_locator('.error, .alert').all_inner_texts()}")


def route_to_provider_and_hold(work: Work, *, subject: str, message: str, comment: str,
                               route: str = "route_to_provider") -> None:
    """When the chart does not meet the payer's criteria: subtask `route` (a clinical-question
    staff message to the ordering provider about the order) and `hold_item` (an order comment
    saying why nothing was submitted and what comes next; the Prior Auth item In Progress)."""
    if work.doing(route):
        work.need("order_id")
        send_staff_message(work, message_type="Clinical question", subject=subject, body=message)
    if work.doing("hold_item"):
        back_to_order(work)
        add_order_comment(work, comment)
        set_work_item(work, "In Progress")


def table_rows(work: Work, caption: str, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the page's table with this caption, as dicts of the first len(columns) cells."""
    rows = work.env.page_locator(f"xpath=//table[caption[normalize-space()='{caption}']]/tbody/tr").all()
    return [dict(zip(columns, (cell.inner_text().strip() for cell in row.locator("td").all()))) for row in rows]


# The Verify coverage form's results, by the verification status each one stores.
VERIFICATION_RESULT_LABELS = {"Verified - Active": "Active", "Verified - Inactive": "Inactive",
                              "Unable to Verify": "Unable to verify"}


def record_coverage_verification(work: Work, coverage_key: str, status: str, note: str,
                                 reference: str = "") -> None:
    """On the chart's Coverage tab, record an eligibility check of one coverage (found by
    its member id) as `status` (a stored verification status, e.g. "Verified - Inactive")."""
    if status not in VERIFICATION_RESULT_LABELS:
        raise ValueError(f"unknown verification status {status!r}; one of {sorted(VERIFICATION_RESULT_LABELS)}")
    actor = work.actor
    member = work.ids["coverages"][coverage_key]["member_id"]
    actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    actor.select_containing("#verify select[name=coverage_id]", f"({member})")
    actor.select_option("#verify select[name=result]", VERIFICATION_RESULT_LABELS[status])
    if reference:
        actor.fill("#verify input[name=reference]", reference)
    actor.fill("#verify textarea[name=note]", note)
    actor.click("#verify button:text-is('Verify coverage')")
    row = actor.text(f"xpath=//table[contains(@class,'grid')]//tr[td[normalize-space()='{member}']]")
    if status not in row:
        raise ScriptFailed(f"coverage {member} was not recorded as {status!r}: {row!r}")


def add_patient_note(work: Work, text: str) -> None:
    """From the chart, the Staff Notes tab, then add a patient note."""
    actor = work.actor
    actor.click("nav[aria-label='Chart sections'] a:text-is('Staff Notes')")
    actor.fill("textarea[name=text]", text)
    actor.click("button:text-is('Add patient note')")
    if not actor.count(f"main :text('{text[:40]}')"):
        raise ScriptFailed("the patient note was not saved")


# A download lands when the browser reports it, which on a loaded machine can be after the
# click's page has settled: wait a moment (a public action, as a person would) this many times.
DOWNLOAD_WAITS = 5


def click_to_download(work: Work, selector: str, what: str) -> str:
    """Click a download link or button and return the new file's name as listed in Downloads."""
    before = {f.name for f in work.env.downloaded_files()}

    def new_files() -> list[str]:
        return [f.name for f in work.env.downloaded_files() if f.name not in before]

    work.actor.click(selector)
    for _wait in range(DOWNLOAD_WAITS):
        if new_files():
            break
        work.actor.do({"type": "wait", "seconds": 1.0})
    if not new_files():
        raise ScriptFailed(f"downloading {what} produced no file")
    return new_files()[0]
