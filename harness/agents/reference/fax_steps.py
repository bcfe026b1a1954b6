"""Fax app gestures every reference solution that faxes shares: sign in, pick a recipient
from the phonebook (its active line, never a retired one), fill the cover sheet, attach
downloaded files through the drawn file dialog, send and follow the job to its delivery
report, and find received faxes by their caller number and read their pages.

A fax goes out in this order (each step is one function):

    fax_steps.open_fax(work)
    contact = fax_steps.compose_to_contact(work, "Keystone Mutual Health", "Payer - Prior Authorization")
    fax_steps.fill_cover(work, attention="Utilization Management", re="Jane Doe DOB ...", comments="...")
    fax_steps.attach(work, "form.pdf"); fax_steps.attach(work, "note.pdf")
    job = fax_steps.send(work)          # {"job_id", "status", "to_number", "pages", "completed", ...}
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from pypdf import PdfReader

from admindesk.harness.agents.reference.ehr_steps import click_to_download
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

FAX_TAB = "Fax"
ACTIVE = "Active"
# A busy line is retried by the carrier when the job is looked at again; the server gives up
# after three attempts, so more looks than that mean the job is stuck, not slow.
MAX_LOOKS = 4
FINAL_STATUSES = ("Sent", "Failed")


def open_fax(work: Work) -> None:
    """The fax app in a new tab, signed in (once per episode; later calls switch to its tab)."""
    work.open_app_tab(FAX_TAB, "fax_tab")


def _phonebook_rows(work: Work) -> list[dict[str, str]]:
    """The phonebook's visible rows as {name, organization, type, fax, phone, line}."""
    rows = []
    for cells in work.env.page_locator("main table.grid tbody tr").all():
        texts = [t.strip() for t in cells.locator("td").all_inner_texts()]
        if len(texts) >= 6:
            rows.append(dict(zip(("name", "organization", "type", "fax", "phone", "line"), texts)))
    return rows


def find_contact(work: Work, organization: str, contact_type: str) -> dict[str, str]:
    """Search the phonebook for `organization`'s line of `contact_type` and return the one
    Active entry (the directory also keeps disconnected old lines, which a fax to would fail)."""
    actor = work.actor
    open_fax(work)
    actor.click("header.topbar a:has-text('Phonebook')")
    actor.fill("#dir-q", organization)
    actor.select_option("#dir-type", contact_type)
    actor.click("form.filter-bar button:text-is('Search')")
    active = [row for row in _phonebook_rows(work)
              if row["organization"] == organization and row["type"] == contact_type and row["line"] == ACTIVE]
    if len(active) != 1:
        raise ScriptFailed(f"expected one active {contact_type!r} line for {organization!r}, found "
                           f"{[r['name'] for r in active]}")
    return active[0]


def compose_to_contact(work: Work, organization: str, contact_type: str) -> dict[str, str]:
    """Start a new fax addressed to the organization's active line of `contact_type` (the
    phonebook row's Fax button); returns the contact row that was picked."""
    contact = find_contact(work, organization, contact_type)
    work.actor.click(f"button[aria-label=\"Send a fax to {contact['name']}\"]")
    if not work.actor.count("#compose-form"):
        raise ScriptFailed(f"no compose screen after picking {contact['name']}: {work.actor.text('main')[:300]}")
    addressed = re.sub(r"\D", "", work.actor.read("input[name=to_number]").input_value())
    if addressed != re.sub(r"\D", "", contact["fax"]):
        raise ScriptFailed(f"the draft is addressed to {addressed}, not {contact['fax']}")
    return contact


def fill_cover(work: Work, *, re_line: str, comments: str, attention: str = "",
               template: str = "", urgent: bool = False) -> None:
    """Fill the open draft's cover sheet (Re line, comments, and optionally the attention
    line, the cover template by its label and the urgent flag)."""
    actor = work.actor
    if attention:
        actor.fill("input[name=cover_to]", attention)
    actor.fill("input[name=cover_re]", re_line)
    if template:
        actor.select_option("select[name=cover_template]", template)
    if urgent:
        actor.set_checkbox("input[name=urgent]")
    actor.fill("textarea[name=comments]", comments)


def attached_files(work: Work) -> list[str]:
    """The file names in the open draft's attachment table."""
    return [link.strip() for link in work.env.page_locator("#attachments tbody td a").all_inner_texts()]


def attach(work: Work, file_name: str) -> None:
    """Attach a downloaded file to the open draft: the file input (the drawn file dialog opens),
    the file, then Upload and attach; checks the file is listed afterwards."""
    actor = work.actor
    actor.upload("input[name=attachment]", file_name)
    actor.click("button[value=upload]")
    if file_name not in attached_files(work):
        raise ScriptFailed(f"{file_name} is not attached: {actor.text('main')[:400]}")


def job_details(work: Work) -> dict[str, str]:
    """What the open job page (Outbox > Job N) shows: id, status, number, Re, pages, completion."""
    actor = work.actor
    heading = actor.text("main h1")
    match = re.match(r"Fax job (\d+) to (.+)", heading)
    if not match:
        raise ScriptFailed(f"not a fax job page: {heading!r}")
    return {"job_id": match.group(1), "recipient": match.group(2).strip(),
            "status": actor.text("main .subhead .badge"), "to_number": actor.fact("Fax number"),
            "re": actor.fact("Re"), "pages": actor.fact("Pages").split()[0],
            "completed": actor.fact("Completed"), "queued": actor.fact("Queued")}


def open_job(work: Work, job_id: str) -> dict[str, str]:
    """The Outbox, then the job's row (opening either lets a job retrying after a busy line dial
    again); its details."""
    actor = work.actor
    open_fax(work)
    actor.click("header.topbar a:has-text('Outbox')")
    actor.click(f"main table a:text-is('Job {job_id}')")
    return job_details(work)


def send(work: Work) -> dict[str, str]:
    """Send the open draft, open its delivery report and look again while the line is busy;
    returns the job's details once it is Sent. ScriptFailed when it failed or was refused."""
    actor = work.actor
    actor.click("button[value=send]")
    if actor.count("#compose-form"):
        raise ScriptFailed(f"the fax was not sent: {actor.text('main')[:500]}")
    actor.click("main a:has-text('delivery report')")
    job = job_details(work)
    for _look in range(MAX_LOOKS):
        if job["status"] in FINAL_STATUSES:
            break
        job = open_job(work, job["job_id"])
    if job["status"] != "Sent":
        raise ScriptFailed(f"fax job {job['job_id']} ended {job['status']}: {actor.text('main')[:400]}")
    return job


INBOX_COLUMNS = ("received", "line", "from_number", "csid", "pages", "status", "assigned", "patient", "reference",
                 "fax_id")


def search_inbox(work: Work, query: str) -> list[dict[str, str]]:
    """Received faxes matching `query` (caller number, CSID, index or fax id), newest first, as
    the inbox lists them: {received, line, from_number, csid, pages, status, assigned, patient,
    reference, fax_id}. The server knows no sender or subject: those are in the pages."""
    actor = work.actor
    open_fax(work)
    actor.fill("#global-q", query)
    actor.do({"type": "key", "keys": "Enter"})
    rows = []
    for row in work.env.page_locator("main table tbody tr").all():
        texts = [t.strip() for t in row.locator("td").all_inner_texts()]
        if len(texts) >= 2 + len(INBOX_COLUMNS):
            rows.append(dict(zip(INBOX_COLUMNS, texts[2:])))
    return rows


def open_inbox_fax(work: Work, fax_id: str) -> str:
    """Open a received fax listed on the inbox page (by its id); returns its heading."""
    actor = work.actor
    actor.click(f"xpath=//main//tr[td[normalize-space()='{fax_id}']]//a")
    return actor.text("main h1")


def read_pages(work: Work) -> tuple[str, str]:
    """Read the open fax's pages (its PDF, downloaded and read as text: what the page images
    show); returns (file name in Downloads, text)."""
    file_name = download_open_fax(work)
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    return file_name, text


def find_fax(work: Work, query: str, wanted: Callable[[str], bool], what: str, limit: int = 4,
             near: date | None = None) -> tuple[dict[str, str], str, str]:
    """The received fax a coordinator finds by its caller number (or CSID): the inbox searched
    for `query`, then up to `limit` matches (the newest first, or those received closest to
    `near` first) opened and their pages read until one is `wanted`; returns (its inbox row,
    the downloaded file name, its text)."""
    rows = search_inbox(work, query)
    if near is not None:
        rows.sort(key=lambda row: abs((parse_us_date(row["received"].split()[0]) - near).days))
    for index, row in enumerate(rows[:limit]):
        if index:
            search_inbox(work, query)
        open_inbox_fax(work, row["fax_id"])
        file_name, text = read_pages(work)
        if wanted(text):
            return row, file_name, text
    raise ScriptFailed(f"no fax from {query!r} among {[r['fax_id'] for r in rows[:limit]]} is {what}")


def case_fax_number(work: Work, key: str) -> str:
    """The caller number of a fax the case's work item points at, as the coordinator knows it:
    the number the sender's letters come from (a payer's determination comes from its
    prior-authorization line, found in the phonebook)."""
    spec = next(f for f in work.case["faxes"] if f["key"] == key)
    if spec.get("from_number"):
        return spec["from_number"]
    if spec.get("about"):
        request = next(r for r in work.case["payer_history"]["requests"] if r["key"] == spec["about"])
        order = next(o for o in work.case["orders"] if o["key"] == request["order"])
        coverage = next(c for c in work.case["coverages"] if c["key"] == order.get("coverage", "primary"))
        contact = find_contact(work, payer_name(coverage["payer"]), "Payer - Prior Authorization")
        return re.sub(r"\D", "", contact["fax"])[-10:]  # shown as +1 800-555-0142
    raise ScriptFailed(f"case fax {key!r} has no caller the coordinator could know")


def download_open_fax(work: Work) -> str:
    """Download the open received fax's PDF; returns the file name as listed in Downloads."""
    return click_to_download(work, "div.actionbar a:text-is('Download PDF')", "the received fax")
