"""Keystone Mutual's portal (portal B) gestures: sign in, eligibility, precertification."""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from admindesk.harness.agents.reference import ehr_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

REQUESTED_DAYS = 60  # the span asked for: the planned date and the weeks after it
PORTAL_B_TAB = "Payer Portal B"


def portal_b_date(value: date) -> str:
    """DD-Mon-YYYY, the way Keystone Mutual's portal takes dates."""
    return value.strftime("%d-%b-%Y")


def ehr_date(shown: str) -> str:
    """A date Keystone Mutual's portal shows (DD-Mon-YYYY) as the EHR takes it (MM/DD/YYYY)."""
    return datetime.strptime(shown.strip(), "%d-%b-%Y").strftime("%m/%d/%Y")


def submit_approved_precert(work: Work, member_id: str, answers: dict[str, str], summary: str,
                            attachments: list[tuple[str, str]], **dates_and_units) -> dict[str, str]:
    """`submit_precert`, ScriptFailed unless Keystone approved; work.notes["decision"] says so."""
    decision = submit_precert(work, member_id, answers, summary, attachments, **dates_and_units)
    if decision["status"] != "Approved":
        raise ScriptFailed(f"Keystone Mutual did not approve: {decision}")
    work.notes["decision"] = decision["status"]
    return decision


def request_after_eligibility(work: Work, member_id: str, answers: dict[str, str], summary: Callable[[], str],
                              attachments: list[tuple[str, str]], needed: int, missing: str) -> dict[str, str]:
    """Subtasks `verify_eligibility` (Keystone's eligibility on the planned date, notes
    `eligibility`) and `submit_precert` (`submit_approved_precert` once eligibility is confirmed,
    with at least `needed` chart documents attached; ScriptFailed(`missing`) otherwise). The
    decision, empty when the submission was left out."""
    if work.doing("verify_eligibility"):
        open_portal_b(work)
        work.notes["eligibility"] = check_eligibility(work, member_id, parse_us_date(work.need("planned")))
    if not work.doing("submit_precert"):
        return {}
    work.need("eligibility")  # no request before the coverage is confirmed
    if len(attachments) < needed:
        raise ScriptFailed(missing)
    open_portal_b(work)
    stay_signed_in(work)
    return submit_approved_precert(work, member_id, answers, summary(), attachments)


def record_and_close(work: Work, decision: dict[str, str], comment: Callable[[dict[str, str]], str]) -> None:
    """Subtasks `record_decision` (Keystone's approval on the order) and `close_item` (an order
    comment written from the decision, the item Auth Obtained)."""
    if work.doing("record_decision"):
        work.need("decision")
        record_approval(work, decision)
    if work.doing("close_item"):
        work.need("recorded")  # the item closes on a recorded authorization only
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(work, comment(decision))
        ehr_steps.set_work_item(work, "Auth Obtained")


def record_approval(work: Work, decision: dict[str, str]) -> None:
    """Keystone Mutual's approval (as `submit_precert` reads it) recorded on the order, its dates as
    the EHR takes them (ehr_steps.record_approval: notes `recorded`)."""
    ehr_steps.record_approval(work, "Keystone Mutual Health", {
        **decision, "case_number": decision["reference"], "start": ehr_date(decision["start"]),
        "end": ehr_date(decision["end"])})


def open_portal_b(work: Work) -> None:
    """Portal B in a new tab, signed in (once per episode)."""
    work.open_app_tab(PORTAL_B_TAB, "portal_b_tab")


def check_eligibility(work: Work, member_id: str, service_day: date) -> str:
    """Run a subscriber eligibility inquiry; returns the coverage heading's text."""
    actor = work.actor
    actor.click("nav a[href='/eligibility']")
    actor.fill("input[name=subscriber_id]", member_id)
    actor.fill("input[name=dob]", portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=service_date]", portal_b_date(service_day))
    actor.click("main form button[type=submit]")
    heading = actor.text("main h2")
    if not heading.startswith("Coverage on"):
        raise ScriptFailed(f"the eligibility inquiry gave no result: {heading!r}")
    return heading


def read_policy(work: Work, policy_number: str) -> str:
    """Keystone's Medical Policy Library searched by the ordered code, then the policy
    `policy_number`; returns its title."""
    actor = work.actor
    open_portal_b(work)
    stay_signed_in(work)
    actor.click("nav a[href='/policies']")
    actor.fill("input#q", work.need("code"))
    actor.click("form.search-bar button[type=submit]")
    actor.click(f"main table tbody a:text-is('{policy_number}')")
    return actor.text("main h1").strip()


def clinical_answers(facts: dict) -> dict[str, str]:
    """Portal B's clinical fields from the chart's facts (only what the chart states)."""
    answers: dict[str, str] = {}
    if facts.get("conservative_therapy_weeks") is not None:
        answers["conservative_therapy_weeks"] = str(facts["conservative_therapy_weeks"])
    if facts.get("red_flags"):
        answers["red_flag_symptoms"] = "No" if facts["red_flags"].lower() in ("none", "no") else "Yes"
    if facts.get("mcmurray_test") == "positive":
        answers["red_flag_symptoms"] = "Yes"
    if facts.get("prior_imaging_date"):
        answers["prior_imaging"] = "Yes"
    if facts.get("ahi") is not None:
        answers["ahi"] = str(facts["ahi"])
    if facts.get("spo2_rest") is not None:
        answers["spo2_rest"] = str(facts["spo2_rest"])
    return answers


def read_accumulator(work: Work, member_id: str, service_day: date) -> dict:
    """Keystone's eligibility for the date of service, then its Benefit Accumulators: the benefit
    period, the visits allowed, the limit's type (Hard, Soft) and the dates of the visits applied."""
    check_eligibility(work, member_id, service_day)
    actor = work.actor
    actor.click("main a:has-text('View Visits Applied')")
    start, end = (shown_date(part.strip()) for part in actor.fact("Benefit Period").split(" - "))
    rows = work.env.page_locator("main table.grid tbody tr").all()
    applied = [shown_date(row.locator("td").nth(1).inner_text()) for row in rows]
    return {"start": start, "end": end, "allowed": int(actor.fact("Visits Allowed")), "applied": applied,
            "limit_type": actor.fact("Limit Type").split(" limit", 1)[0].strip()}


def submit_precert(work: Work, member_id: str, answers: dict[str, str], summary: str,
                   attachments: list[tuple[str, str]], *, units: str | None = None,
                   last_day: date | None = None) -> dict[str, str]:
    """Fill and submit a precertification request with (file name, document type)
    attachments; returns the determination as shown. Units default to the order's, the last
    date to REQUESTED_DAYS after the planned date."""
    actor, notes = work.actor, work.notes
    actor.click("nav a[href='/precertification/new']")
    planned = parse_us_date(work.need("planned"))
    actor.fill("input[name=subscriber_id]", member_id)
    actor.fill("input[name=subscriber_dob]", portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=rendering_npi]", notes["facility_npi"])
    actor.fill("input[name=referring_npi]", notes["provider_npi"])
    actor.select_by_value("select[name=place_of_service]", notes["place_of_service"])
    actor.fill("input[name=service_code]", notes["code"])
    actor.fill("input[name=units]", units or notes["units"])
    actor.fill("input[name=diagnosis_codes]", notes["diagnoses"])
    actor.fill("input[name=start_date]", portal_b_date(planned))
    actor.fill("input[name=end_date]", portal_b_date(last_day or planned + timedelta(days=REQUESTED_DAYS - 1)))
    for field, value in answers.items():
        if actor.read(f"[name={field}]").evaluate("e => e.tagName") == "SELECT":
            actor.select_option(f"select[name={field}]", value)
        else:
            actor.fill(f"input[name={field}]", value)
    actor.fill("textarea[name=clinical_summary]", summary)
    for index, (file_name, document_type) in enumerate(attachments, start=1):
        actor.select_option(f"select[name=document_type_{index}]", document_type)
        actor.upload(f"input[name=attachment_{index}]", file_name)
    actor.fill("input[name=contact_name]", "Prior Authorization Coordinator")
    actor.fill("input[name=contact_phone]", notes["provider_phone"])
    actor.click("main form button[type=submit]")
    if not actor.count("h1:has-text('Precertification KM-')"):
        raise ScriptFailed(f"the precertification was refused: {actor.text('main')[:600]}")
    decision = {"status": actor.text("#decision-title .status"), "reference": actor.fact("Reference Number")}
    if actor.count("xpath=//dt[normalize-space()='Authorization Number']"):
        start, end = actor.fact("Approved Dates").split(" \u2013 ")
        decision.update(auth_number=actor.fact("Authorization Number"), units=actor.fact("Approved Units"),
                        start=start.strip(), end=end.strip())
    return decision


CLAIM_TABS = {"eob": "Explanation of Benefits", "appeals": "Appeals (", "corrected": "Corrected Claims ("}


def stay_signed_in(work: Work) -> None:
    """Answer Keystone's session-timeout warning, when it is over the page, with "Stay signed in"
    (it comes back after every ten page views until answered)."""
    if work.actor.count("dialog#session-timeout[open]"):
        work.actor.click("dialog#session-timeout button:text-is('Stay signed in')")


def open_claim(work: Work, claim_number: str, tab: str = "summary") -> None:
    """Claim Status, a search by claim number, the claim, then one of its tabs (summary,
    eob, appeals, corrected)."""
    open_portal_b(work)
    actor = work.actor
    stay_signed_in(work)
    actor.click("nav.sidebar a[href='/claims']")
    stay_signed_in(work)
    actor.fill("input[name=claim_number]", claim_number)
    actor.click("form[role=search] button[type=submit]")
    stay_signed_in(work)
    if not actor.count(f"main table a:text-is('{claim_number}')"):
        raise ScriptFailed(f"Keystone Mutual's portal found no claim {claim_number}: {actor.text('main')[:300]}")
    actor.click(f"main table a:text-is('{claim_number}')")
    stay_signed_in(work)
    if tab != "summary":
        actor.click(f"nav[aria-label='Claim sections'] a:has-text('{CLAIM_TABS[tab]}')")
        stay_signed_in(work)


def claim_status(work: Work) -> str:
    """The open claim's status (Paid, Denied...)."""
    return work.actor.fact("Status")


def appeals_on_claim(work: Work) -> list[str]:
    """The open claim's Appeals tab rows (their text); empty when none was filed."""
    if work.actor.count("main :text('No appeals on file for this claim')"):
        return []
    return [row.strip() for row in work.env.page_locator("main table.grid tbody tr").all_inner_texts()]


def find_precerts(work: Work, query: str) -> list[dict[str, str]]:
    """Precertification Status searched by `query` (reference, subscriber id, auth number or
    name): the rows as {reference, subscriber_id, service, units, dates, status, auth_number}."""
    open_portal_b(work)
    actor = work.actor
    actor.click("nav.sidebar a[href='/precertification']")
    actor.fill("form[role=search] input[name=q]", query)
    actor.click("form[role=search] button[type=submit]")
    found = []
    for row in work.env.page_locator("main table.grid tbody tr").all():
        cells = [text.strip() for text in row.locator("td").all_inner_texts()]
        if len(cells) >= 10:
            found.append({"reference": cells[0], "subscriber_id": cells[1], "service": cells[3],
                          "units": cells[4], "dates": cells[7], "status": cells[8], "auth_number": cells[9]})
    return found


def open_precert(work: Work, reference: str) -> dict[str, str]:
    """Open a request listed on the status page by its reference; its determination as
    {status, reference, and once approved auth_number, units, start, end (DD-Mon-YYYY)}."""
    actor = work.actor
    actor.click(f"main table a:text-is('{reference}')")
    decision = {"status": actor.text("#decision-title .status"), "reference": actor.fact("Reference Number")}
    if actor.count("xpath=//dt[normalize-space()='Authorization Number']"):
        start, end = actor.fact("Approved Dates").split("\u2013")
        decision.update(auth_number=actor.fact("Authorization Number"), units=actor.fact("Approved Units"),
                        start=start.strip(), end=end.strip())
    return decision


def request_change(work: Work, change_type: str, reason: str, *, new_start: date | None = None,
                   new_end: date | None = None) -> dict[str, str]:
    """On the open precertification, "Request a Change": the change type, the new first or last
    date, the clinical reason; returns the determination shown after it was approved."""
    actor = work.actor
    form = "section[aria-labelledby='change-title'] form"  # the page's other forms have a reason field too
    actor.select_option(f"{form} select[name=change_type]", change_type)
    if new_start:
        actor.fill(f"{form} input[name=new_start]", portal_b_date(new_start))
    if new_end:
        actor.fill(f"{form} input[name=new_end]", portal_b_date(new_end))
    actor.fill(f"{form} textarea[name=reason]", reason)
    actor.click(f"{form} button:text-is('Submit Change Request')")
    if not actor.count(f".alert-success:has-text('{change_type} approved')"):
        errors = work.env.page_locator("main .error, main .field-error, main .alert").all_inner_texts()
        raise ScriptFailed(f"Keystone Mutual refused the {change_type.lower()}: {' | '.join(errors)[:400]}")
    start, end = actor.fact("Approved Dates").split("\u2013")
    return {"auth_number": actor.fact("Authorization Number"), "units": actor.fact("Approved Units"),
            "start": start.strip(), "end": end.strip()}


def appeal_decided_on(work: Work) -> date | None:
    """The open appeal's decision date, from its status timeline ("<date> - Decision: ...")."""
    decided = re.search(r"(\d\d-[A-Z][a-z]{2}-\d{4})\s*\W\s*Decision:", work.actor.text("main ol.timeline"))
    return shown_date(decided.group(1)) if decided else None


def shown_date(text: str) -> date:
    """A date as portal B shows it (DD-Mon-YYYY, maybe followed by a time)."""
    return datetime.strptime(text.split()[0], "%d-%b-%Y").date()


def file_appeal(work: Work, claim_number: str, *, kind: str, reason: str, explanation: str, appellant: str,
                service_day: date, billed: str, attachments: list[tuple[str, str]], level: str = "1",
                outcome: str = "Overturn the denial and pay the claim") -> dict[str, str]:
    """From the claim's page, "File a Provider Appeal for this Claim" (form KM-APL-1) at `level` (1, 2 or External review):
    type, appellant (billing office staff), the claim's date of service and billed amount, reason,
    the requested outcome, the explanation, up to two (file name, document
    type) attachments and the attestation. Returns the appeal id, status and the submission and
    decision-due dates (MM/DD/YYYY) as shown."""
    actor = work.actor
    if not actor.count(f"main h1:has-text('{claim_number}')"):
        open_claim(work, claim_number)
    stay_signed_in(work)
    actor.click("a:has-text('File a Provider Appeal for this Claim')")
    stay_signed_in(work)
    if actor.read("select[name=level]").input_value() != level:
        actor.select_by_value("select[name=level]", level)
    actor.select_option("select[name=kind]", kind)
    actor.fill("input[name=appellant_name]", appellant)
    actor.select_option("select[name=appellant_relationship]", "Billing office staff")
    if actor.read("input[name=claim_number]").input_value().strip() != claim_number:
        actor.fill("input[name=claim_number]", claim_number)
    actor.fill("input[name=service_date]", portal_b_date(service_day))
    actor.fill("input[name=billed_amount]", billed.replace("$", "").replace(",", ""))
    actor.select_option("select[name=reason_category]", reason)
    actor.select_option("select[name=requested_outcome]", outcome)
    actor.fill("textarea[name=explanation]", explanation)
    for index, (file_name, document_type) in enumerate(attachments, start=1):
        if actor.read(f"select[name=document_type_{index}]").input_value() != document_type:
            actor.select_option(f"select[name=document_type_{index}]", document_type)
        actor.upload(f"input[name=attachment_{index}]", file_name)
    actor.set_checkbox("input[name=attestation]")
    actor.click("main form button:text-is('File Appeal')")
    if actor.count("main form textarea[name=explanation]") or not actor.count("main h1:has-text('Appeal ')"):
        raise ScriptFailed(f"Keystone Mutual refused the appeal: {actor.text('main')[:600]}")
    due = actor.text("main ol.timeline li").split("decision due ")[1].rstrip(").")
    return {"reference": actor.fact("Appeal ID"), "status": actor.text("#appeal-status .status"), "decision": "",
            "submitted": shown_date(actor.fact("Submitted")).strftime("%m/%d/%Y"),
            "decision_due": shown_date(due).strftime("%m/%d/%Y")}
