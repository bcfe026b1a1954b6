"""EHR gestures for denial work, shared by the appeals solutions: open the patient's item
in the Denials work queue, its denied claim and remittance (EOB), the order behind the
claim and chart documents, then record the appeal on the item and leave notes.

What is read off the pages goes into `work.notes`: item_id, user_name (who is signed in),
claim_number, payer, member_id,
service_date, submitted_on, claim_auth, appeal_deadline (claim page, MM/DD/YYYY),
remittance_id, paid_on, denials (e.g. "CO-197 / M62", every denied line), carcs and rarcs
(comma-separated codes), codes_explained (the EOB glossary); service, diagnoses, provider,
provider_phone, auth_number / auth_reference / auth_start / auth_end (order page).
"""
from __future__ import annotations

from datetime import date

from pypdf import PdfReader

from admindesk.harness.agents.reference import ehr_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

EHR_TAB = 0  # the EHR stays in the first tab; portals and fax open in new tabs
QUEUE_PAGES = 20  # more "More ›" pages than this means the claim is not in the queue


def _claim_number(work: Work, claim_key: str) -> str:
    return work.ids["claims"][claim_key]


def to_ehr_tab(work: Work) -> None:
    """Bring the EHR's tab to the front (a click on it only when another tab is in front)."""
    if work.env.chrome_layout().active != EHR_TAB:
        work.actor.switch_to_tab(EHR_TAB)


def open_denials_queue(work: Work) -> None:
    """The Denials work queue from the activity bar (the EHR tab)."""
    to_ehr_tab(work)
    work.actor.click("nav.activitybar a:has-text('Denials')")


def open_denial_item(work: Work, claim_key: str = "denied") -> str:
    """From the Denials queue, page to the row of the patient's claim and open its item.

    The claim number only finds the row; the row's patient must be the patient (by name).
    Returns the item number (also work.notes["item_id"])."""
    actor = work.actor
    claim = _claim_number(work, claim_key)
    open_denials_queue(work)
    row = f"xpath=//table[contains(@class,'grid')]//tr[td[normalize-space()='{claim}']]"
    for _page in range(QUEUE_PAGES):
        if actor.count(row):
            break
        if not actor.count("a[aria-label='Next page']"):
            raise ScriptFailed(f"claim {claim} is not in the Denials queue")
        actor.click("a[aria-label='Next page']")
    else:
        raise ScriptFailed(f"claim {claim} not found within {QUEUE_PAGES} queue pages")
    shown_patient = actor.text(f"{row}/td[6]")
    if shown_patient != f"{work.patient['last_name']}, {work.patient['first_name']}":
        raise ScriptFailed(f"the Denials row of {claim} is {shown_patient!r}, not the patient")
    actor.click(f"{row}//a[starts-with(@aria-label,'Open item')]")
    item_id = actor.fact("Item #")
    if actor.fact("DOB") != us_date(work.patient["dob"]):  # a namesake's item has another birth date
        raise ScriptFailed(f"Denials item {item_id} is for DOB {actor.fact('DOB')}, not the patient's")
    work.notes.update(item_id=item_id, item_status=actor.fact("Status"),
                      user_name=actor.text("span.user").split("\u00b7")[0].strip())
    return item_id


def open_claim(work: Work, claim_key: str = "denied") -> dict[str, str]:
    """Open the claim from the item page (or the claim's own link wherever it is shown) and
    read its facts into work.notes; returns them."""
    actor = work.actor
    claim = _claim_number(work, claim_key)
    actor.click(f"main a:text-is('{claim}')")
    facts = {"claim_number": actor.fact("Claim #"), "payer": actor.fact("Payer").split(" (")[0],
             "member_id": actor.fact("Member ID"), "service_date": actor.fact("Service date"),
             "submitted_on": actor.fact("Submitted"), "claim_auth": actor.fact("Auth # on claim"),
             "billed": actor.fact("Total charge"),
             "order_id": actor.fact("Order")}
    if actor.count("section[aria-labelledby='den-h']"):  # "Appeal deadline: <strong>MM/DD/YYYY</strong>"
        shown = actor.env.page_locator("section[aria-labelledby='den-h'] p strong").all_inner_texts()
        facts["appeal_deadline"] = next((t.strip() for t in shown if t.strip()[:2].isdigit()), "")
    if facts["claim_number"] != claim:
        raise ScriptFailed(f"opened claim {facts['claim_number']}, not {claim}")
    work.notes.update(facts)
    return facts


def open_remittance(work: Work) -> dict[str, str]:
    """From the claim page, its remittance (EOB); read the denial codes of every line."""
    actor = work.actor
    actor.click("a:text-is('View remittance (EOB)')")
    adjustments = actor.env.page_locator("section[aria-labelledby='eral-h'] td div").all_inner_texts()
    denials, carcs, rarcs = [], [], []
    for text in adjustments:
        group_carc = text.split()[0]  # "CO-197"
        rarc = text.split("Remark ", 1)[1].split(":")[0].strip() if "Remark " in text else ""
        denials.append(f"{group_carc} / {rarc}" if rarc else group_carc)
        carcs.append(group_carc.split("-", 1)[1])
        if rarc:
            rarcs.append(rarc)
    glossary = actor.env.page_locator("section[aria-labelledby='codes-h'] tbody tr").all()
    explained = []
    for row in glossary:
        code, kind, text = (cell.inner_text().strip() for cell in row.locator("td").all())
        explained.append(f"{'CARC' if 'CARC' in kind else 'RARC'} {code} ({text})")
    facts = {"remittance_id": actor.fact("Remittance #"), "paid_on": actor.fact("Paid on"),
             "denials": "; ".join(denials), "carcs": ", ".join(dict.fromkeys(carcs)),
             "rarcs": ", ".join(dict.fromkeys(rarcs)), "codes_explained": "; ".join(explained),
             "appeal_deadline": actor.fact("Appeal deadline")}
    work.notes.update(facts)
    return facts


def back_to_claim(work: Work) -> None:
    """The EHR tab, on the claim page (from the remittance or a chart page's breadcrumb)."""
    actor = work.actor
    to_ehr_tab(work)
    claim = work.need("claim_number")
    if actor.count(f"h2:text-is('Claim {claim}')"):
        return
    if actor.count(f"a:text-is('Claim {claim}')"):
        actor.click(f"a:text-is('Claim {claim}')")
        return
    actor.click("nav[aria-label='Chart sections'] a:text-is('Billing')")
    actor.click(f"main a:text-is('{claim}')")


def open_order_from_claim(work: Work) -> dict[str, str]:
    """The order, through a link on the page (the claim, a document of the order) or else the
    claim's: its service, diagnoses, ordering provider and office phone, and the latest approved
    authorization (from the authorization history)."""
    actor = work.actor
    order_id = work.need("order_id")
    if not actor.count(f"main a:text-is('{order_id}')"):
        back_to_claim(work)
    actor.click(f"main a:text-is('{order_id}')")
    rows = actor.env.page_locator("xpath=//table[.//th[normalize-space()='Auth #']]//tbody/tr").all()
    approved = [[cell.inner_text().strip() for cell in row.locator("td").all()] for row in rows]
    headers = [h.strip() for h in actor.env.page_locator(
        "xpath=//table[.//th[normalize-space()='Auth #']]//thead//th").all_inner_texts()]
    approved = [dict(zip(headers, cells)) for cells in approved]
    approved = [row for row in approved if row.get("Status") == "Approved" and row.get("Auth #")]
    facts = {"service": f"{actor.fact('Code').split()[0]} {actor.fact('Description').splitlines()[0]}",
             "diagnoses": ", ".join(line.split()[0] for line in actor.fact("Diagnoses").splitlines() if line.strip()),
             "provider": actor.fact("Ordering provider"),
             "provider_phone": actor.fact("Provider phone / fax").split(" / ")[0]}
    if approved:
        latest = approved[-1]
        facts.update(auth_number=latest["Auth #"], auth_reference=latest.get("Reference #", ""),
                     auth_start=latest.get("Start", ""), auth_end=latest.get("End", ""))
    work.notes.update(facts)
    return facts


def open_chart_document(work: Work, doc_key: str, *, download: bool = False) -> str | None:
    """The chart's Documents tab, then the document's viewer; download it if asked.

    Returns the downloaded file's name (as listed in Downloads). Stays on the viewer."""
    actor = work.actor
    to_ehr_tab(work)
    doc_id = work.ids["documents"][doc_key]
    actor.click("nav[aria-label='Chart sections'] a:text-is('Documents')")
    actor.click(f"main a[href='/documents/{doc_id}']")
    work.notes[f"doc_{doc_key}_title"] = actor.text(".pv-head h2")
    if not download:
        return None
    return ehr_steps.click_to_download(work, "a.pv-btn[download]", doc_id)


def chart_documents(work: Work) -> list[dict[str, str]]:
    """The chart's Documents tab, its rows by date, type and title."""
    to_ehr_tab(work)
    work.actor.click("nav[aria-label='Chart sections'] a:text-is('Documents')")
    return ehr_steps.table_rows(work, "Documents of the patient", ("Date", "Type", "Title"))


def read_chart_document(work: Work, doc_key: str) -> str:
    """A chart document's text, read from its downloaded PDF (whitespace collapsed)."""
    file_name = open_chart_document(work, doc_key, download=True)
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    return " ".join(text.split())


def back_to_item(work: Work) -> None:
    """The EHR tab, on the denial item's page: through the Work items list of the claim or the
    order when the page links one of them (a document links its order), else the claim's."""
    actor = work.actor
    to_ehr_tab(work)
    item_id = work.need("item_id")
    item_link = f"a:text-is('Denials item {item_id}')"
    if actor.count("#status-dialog") and actor.fact("Item #") == item_id:
        return
    if not actor.count(item_link):
        order_id = work.notes.get("order_id")
        if order_id and actor.count(f"main a:text-is('{order_id}')"):
            actor.click(f"main a:text-is('{order_id}')")
        else:
            back_to_claim(work)
    actor.click(item_link)


def set_item_status(work: Work, status: str, *, follow_up: date | None = None, reference: str = "",
                    submitted_on: date | None = None, note: str = "") -> None:
    """On the denial item: Change status… with the Denials fields that go with it."""
    actor = work.actor
    back_to_item(work)
    actor.click("button:text-is('Change status…')")
    actor.select_option("#status-dialog select[name=status]", status)
    for name, value in (("follow_up_date", us_date(follow_up) if follow_up else ""),
                        ("appeal_reference", reference),
                        ("appeal_submitted_on", us_date(submitted_on) if submitted_on else "")):
        if value:
            actor.fill(f"#status-dialog input[name={name}]", value)
    if note:
        actor.fill("#status-dialog textarea[name=note]", note)
    actor.click("#status-dialog button:text-is('Save status')")
    if actor.count("#status-dialog[open]") or actor.fact("Status") != status:
        errors = work.env.page_locator("#status-dialog .error, .alert-error").all_inner_texts()
        raise ScriptFailed(f"the denial item did not take status {status!r}: {errors}")


def assign_to_pool(work: Work, pool: str, status: str = "In Progress") -> None:
    """On the denial item: Assign… to a team's pool (its label in the picker, e.g. "WC/Liability Billing
    (team pool)"), then the status that keeps it open for that team."""
    actor = work.actor
    back_to_item(work)
    actor.click("button:text-is('Assign…')")
    actor.select_option("#assign-dialog select[name=assignee]", pool)
    actor.click("#assign-dialog button:text-is('Assign')")
    if not actor.count(f"strong:text-is('{pool}')"):
        raise ScriptFailed(f"the item was not assigned to {pool}: {actor.text('main')[:300]}")
    set_item_status(work, status)


def record_appeal(work: Work, *, reference: str, submitted_on: date, follow_up: date,
                  status: str = "Appeal Filed", note: str = "") -> None:
    """Set the denial item to Appeal Filed with the payer's reference, the submission date
    and a follow-up date (and an optional note saved with the change)."""
    set_item_status(work, status, follow_up=follow_up, reference=reference, submitted_on=submitted_on,
                    note=note)
    shown = work.actor.fact("Appeal / corrected claim #")
    if shown != reference:
        raise ScriptFailed(f"the item shows appeal reference {shown!r}, not {reference!r}")


def record_filed_appeal(work: Work, appeal: dict[str, str], follow_up: date | None = None) -> None:
    """`record_appeal` from the portal's confirmation of a filed appeal: its reference and
    submission date, and a follow-up on its decision-due date unless another day is given."""
    record_appeal(work, reference=appeal["reference"], submitted_on=parse_us_date(appeal["submitted"]),
                  follow_up=follow_up or parse_us_date(appeal["decision_due"]))


def add_item_note(work: Work, text: str) -> None:
    """A note on the denial item (its page is opened if needed)."""
    back_to_item(work)
    _add_note(work, text, "Add item note")


def add_claim_note(work: Work, text: str) -> None:
    """A note on the claim (its page is opened if needed)."""
    back_to_claim(work)
    _add_note(work, text, "Add claim note")


def _add_note(work: Work, text: str, button: str) -> None:
    actor = work.actor
    actor.fill("#notes textarea[name=text]", text)
    actor.click(f"#notes button:text-is('{button}')")
    if not actor.count(f"#notes :text('{text[:40]}')"):
        raise ScriptFailed("the note was not saved")


def resubmit_original(work: Work, deadline: str, reason: str) -> None:
    """The claim page's Resubmit claim: the claim again as an original claim (frequency 1), with
    the payer's filing deadline (MM/DD/YYYY) and what the payer's inquiry showed."""
    actor = work.actor
    back_to_claim(work)
    actor.fill("#resubmit input[name=filing_deadline]", deadline)
    actor.fill("#resubmit textarea[name=reason]", reason)
    actor.click("#resubmit button:text-is('Resubmit as original claim')")
    if not actor.count("#resubmit dt:text-is('Resubmitted')"):
        raise ScriptFailed(f"the claim was not resubmitted: {actor.text('#resubmit')[:300]}")
