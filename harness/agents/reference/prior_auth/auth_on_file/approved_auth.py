"""Steps of the templates that work an approved authorization already on file (auth_extension,
units_increase): read the authorization the order records, open its case at portal A, ask the
payer to change it, and record the changed authorization on the order."""
from __future__ import annotations

from datetime import date

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

CHANGE_FORM = "form[aria-labelledby='achange-h']"  # the order page's "Record a change" form


def read_order_authorization(work: Work) -> dict[str, str]:
    """The order's authorization section as recorded (the order page must be open): status,
    auth number, the payer's case number, units and dates (MM/DD/YYYY)."""
    actor = work.actor
    recorded = {"status": actor.read("select[name=status]").evaluate(
        "s => s.options[s.selectedIndex].text").strip()}
    for key, name in (("auth_number", "auth_number"), ("case_number", "reference_number"),
                      ("units", "approved_units"), ("start", "start_date"), ("end", "end_date")):
        recorded[key] = actor.read(f"input[name={name}]").input_value().strip()
    if recorded["status"] != "Approved" or not recorded["case_number"]:
        raise ScriptFailed(f"the order records no approved authorization with a payer case number: {recorded}")
    work.notes.update({f"ehr_{key}": value for key, value in recorded.items()})
    return recorded


def open_approved_case(work: Work) -> dict[str, str]:
    """The case the order names, at portal A; its determination, which must be the approval
    the order records."""
    decision = portal_a.open_case(work, work.need("ehr_case_number"))
    if decision["status"] != "Approved" or decision.get("auth_number") != work.need("ehr_auth_number"):
        raise ScriptFailed(f"the payer's case is not the approval the order records: {decision}")
    return decision


def service_day(work: Work) -> date:
    """The order's planned service date, as the order page shows it."""
    return parse_us_date(work.need("planned"))


def request_change(work: Work, kind: str, reason: str, *, new_end: date | None = None,
                   new_units: str = "", document: tuple[str, str] | None = None) -> dict[str, str]:
    """On the open case's page, "Request extension or change" for its first line, with a
    supporting `document` (file name in Downloads, portal document type) if given; returns the
    determination after the payer's answer (ScriptFailed when it refuses)."""
    actor = work.actor
    actor.click("a:text-is('Request extension or change')")
    actor.select_option("select[name=kind]", kind)
    if new_end is not None:
        actor.fill("input[name=new_end]", us_date(new_end))
    if new_units:
        actor.fill("input[name=new_units]", new_units)
    actor.fill("input[name=reason]", reason)
    if document is not None:
        actor.select_option("select[name=document_type]", document[1])
        actor.upload("input[name=file]", document[0])
    actor.click("button:text-is('Request change')")
    if actor.count("[role=alert].alert-error"):
        raise ScriptFailed(f"the payer refused the change: {actor.text('[role=alert].alert-error')}")
    if not actor.count("#determination-heading"):
        raise ScriptFailed(f"the change was not taken: {actor.text('main')[:400]}")
    return portal_a.case_decision(work)


def record_change(work: Work, kind: str, note: str, *, new_end: str = "", new_units: str = "") -> None:
    """The order page's "Record a change" form (MM/DD/YYYY dates), then a look at the saved
    authorization."""
    actor = work.actor
    ehr_steps.back_to_order(work)
    actor.select_option(f"{CHANGE_FORM} select[name=change]", kind)
    if new_end:
        actor.fill(f"{CHANGE_FORM} input[name=new_end_date]", new_end)
    if new_units:
        actor.fill(f"{CHANGE_FORM} input[name=new_units]", new_units)
    actor.fill(f"{CHANGE_FORM} [name=note]", note)
    actor.click(f"{CHANGE_FORM} button:text-is('Record change')")
    saved_end = actor.read("input[name=end_date]").input_value().strip()
    saved_units = actor.read("input[name=approved_units]").input_value().strip()
    if (new_end and saved_end != new_end) or (new_units and saved_units != new_units):
        raise ScriptFailed(f"the order's authorization was not changed: end {saved_end}, units {saved_units}; "
                           f"{work.env.page_locator('.alert, .error').all_inner_texts()}")
