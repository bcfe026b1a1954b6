"""Reference solution of template concurrent_review: a Keystone Mutual member's inpatient stay.

Read the stay's order (its Inpatient admission panel: admit date and time, type, attending, the
hospital) and the admission's documents. Nothing on file at Keystone: notify the admission in its
Inpatient section with a clinical summary from the history and physical. A notification on file
whose next review is today: find the case, submit a concurrent review with the clinical update of
the latest progress note and the days its plan asks for. Record Keystone's case number, total days
approved and next review date on the order's authorization; the item stays In Progress with its
follow-up on the next review date."""
from __future__ import annotations

import re
from datetime import date, datetime

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
# The findings a clinical update carries, in the order a progress note gives them.
UPDATE_FACTS = (("vital_signs", "Vital signs"), ("oxygen", "Oxygen"), ("iv_medications", "IV medications"),
                ("response_to_treatment", "Response"), ("discharge_plan", "Plan"))


def read_stay(work: Work) -> None:
    """The order page's Inpatient admission panel into work.notes."""
    actor = work.actor
    admitted = actor.fact("Admitted")  # "11/15/2026 21:40 (Emergent)"
    match = re.match(r"(\d\d/\d\d/\d{4}) (\d\d:\d\d) \((\w+)\)", admitted)
    if match is None:
        raise ScriptFailed(f"no admission on the order page: {admitted!r}")
    work.notes.update(admit_date=match.group(1), admit_time=match.group(2), admission_type=match.group(3),
                      attending_npi=actor.fact("Attending").rsplit("NPI ", 1)[1].strip(),
                      hospital_npi=actor.fact("Hospital").rsplit("NPI ", 1)[1].strip(),
                      admitting_dx=actor.fact("Admitting diagnosis").split()[0])


def _doc(work: Work, kind: str, latest: bool = True) -> dict:
    docs = sorted((d for d in work.case.get("documents", []) if d["type"] == kind), key=lambda d: str(d["date"]))
    if not docs:
        raise ScriptFailed(f"no {kind} in the chart")
    return docs[-1] if latest else docs[0]


def _findings(doc: dict) -> str:
    facts = doc.get("facts") or {}
    return "; ".join(f"{label}: {facts[key]}" for key, label in UPDATE_FACTS if facts.get(key))


def _admit_day(work: Work) -> date:
    return datetime.strptime(work.need("admit_date"), "%m/%d/%Y").date()


def read_case(work: Work) -> dict[str, str]:
    """The open inpatient case's page: its number, days approved and next review date (MM/DD/YYYY)."""
    actor = work.actor
    shown = actor.fact("Next Review Date")
    review = datetime.strptime(shown, "%d-%b-%Y").strftime("%m/%d/%Y") if shown[:1].isdigit() else ""
    return {"number": actor.text("main h1").split()[-1], "days": actor.fact("Approved Days"), "next_review": review}


def notify(work: Work, member: str) -> dict[str, str]:
    """Keystone's New Admission Notification form, from the order's admission panel and the H&P."""
    actor, notes = work.actor, work.notes
    hp = _doc(work, "history_and_physical", latest=False)
    summary = (f"{notes['admission_type']} admission through the emergency department for "
               f"{notes['admitting_dx']}. {hp.get('narrative') or ''} Findings on admission: {_findings(hp)}.")
    portal_b.open_portal_b(work)
    portal_b.stay_signed_in(work)
    actor.click("nav.sidebar a[href='/inpatient/new']")
    actor.fill("input[name=subscriber_id]", member)
    actor.fill("input[name=subscriber_dob]", portal_b.portal_b_date(date.fromisoformat(work.patient["dob"])))
    actor.fill("input[name=admit_date]", portal_b.portal_b_date(_admit_day(work)))
    actor.fill("input[name=admit_time]", notes["admit_time"])
    actor.select_option("select[name=admission_type]", notes["admission_type"])
    actor.fill("input[name=facility_npi]", notes["hospital_npi"])
    actor.fill("input[name=attending_npi]", notes["attending_npi"])
    actor.fill("input[name=admitting_diagnosis]", notes["admitting_dx"])
    actor.fill("textarea[name=clinical_summary]", " ".join(summary.split()))
    actor.click("main form button[type=submit]")
    if not actor.count("h1:has-text('Inpatient Case KM-I-')"):
        raise ScriptFailed(f"the notification was refused: {actor.text('main')[:600]}")
    return read_case(work)


def find_case(work: Work, member: str) -> None:
    """Inpatient Cases searched by Subscriber ID; the open (Approved) case opened."""
    actor = work.actor
    portal_b.open_portal_b(work)
    portal_b.stay_signed_in(work)
    actor.click("nav.sidebar a[href='/inpatient']")
    actor.fill("form[role=search] input[name=q]", member)
    actor.click("form[role=search] button[type=submit]")
    for row in work.env.page_locator("main table.grid tbody tr").all():
        cells = [text.strip() for text in row.locator("td").all_inner_texts()]
        if len(cells) >= 10 and cells[1] == "Approved":
            actor.click(f"main table a:text-is('{cells[0]}')")
            return
    raise ScriptFailed(f"no open inpatient case of {member} at Keystone Mutual")


def submit_review(work: Work) -> dict[str, str]:
    """On the open case: the Reviews tab, a continued-stay review from the latest progress note."""
    actor = work.actor
    note = _doc(work, "hospital_progress_note")
    plan = (note.get("facts") or {}).get("discharge_plan", "")
    days = re.search(r"(\d+) more days?", plan)
    if days is None:
        raise ScriptFailed(f"the latest progress note's plan states no days: {plan!r}")
    actor.click("main ul.tabs a:has-text('Reviews')")
    actor.click("main form input[type=radio][value='Continued stay']")
    actor.fill("input[name=review_date]", portal_b.portal_b_date(date.fromisoformat(str(work.task.now)[:10])))
    actor.fill("textarea[name=clinical_update]", f"Progress note of {us_date(note['date'])}: {_findings(note)}.")
    actor.fill("input[name=days_requested]", days.group(1))
    actor.click("main form button[type=submit]")
    if not actor.count("main table td:text-is('Concurrent review')"):
        raise ScriptFailed(f"the review was refused: {actor.text('main')[:600]}")
    work.notes["days_requested"] = days.group(1)
    actor.click("main ul.tabs a:has-text('Summary')")
    return read_case(work)


def keep_item_open(work: Work, follow_up: str) -> None:
    """From the order page, the Prior Auth item: In Progress, follow-up on the next review date."""
    actor = work.actor
    actor.click("section[aria-labelledby='owi-h'] a:has-text('Prior Auth item')")
    actor.click("button:text-is('Change status…')")
    actor.select_option("#status-dialog select[name=status]", "In Progress")
    if follow_up:
        actor.fill("#status-dialog input[name=follow_up_date]", follow_up)
    actor.click("#status-dialog button:text-is('Save status')")
    if actor.count("#status-dialog[open]") or "In Progress" not in actor.fact("Status"):
        raise ScriptFailed(f"the work item was not saved: {work.env.page_locator('.error, .alert-error').all_inner_texts()}")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    on_file = "submit_review" in {s.id for s in work.task.subtasks}
    ehr_steps.open_chart(work)
    if work.doing("review_stay"):
        ehr_steps.open_order(work)
        read_stay(work)
        doc = _doc(work, "hospital_progress_note") if on_file else _doc(work, "history_and_physical", latest=False)
        ehr_steps.open_document(work, doc["key"])
    if work.doing("verify_eligibility"):
        portal_b.open_portal_b(work)
        portal_b.check_eligibility(work, member, _admit_day(work))
    stay: dict[str, str] = {}
    if not on_file and work.doing("notify_admission"):
        stay = notify(work, member)
    if on_file and work.doing("submit_review"):
        find_case(work, member)
        stay = submit_review(work)
    if work.doing("record_outcome"):
        if not stay:
            raise ScriptFailed("no inpatient case to record (nothing notified or reviewed)")
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(work, status="Approved", payer=KEYSTONE, auth_number=stay["number"],
                                       reference=stay["number"], units=stay["days"], start=work.need("admit_date"),
                                       end=stay["next_review"])
        work.notes["recorded"] = stay["number"]
    if work.doing("follow_up"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        what = (f"Concurrent review submitted to Keystone Mutual on inpatient case {stay.get('number', '')} from "
                f"the latest progress note, {work.notes.get('days_requested', '')} more day(s) requested"
                if on_file else
                f"Inpatient admission notified to Keystone Mutual (policy KM-UM-201), case {stay.get('number', '')}")
        ehr_steps.add_order_comment(
            work, f"{what}. Keystone approved {stay.get('days', '')} day(s) in all from the admit date "
                  f"{work.notes.get('admit_date', '')}; next concurrent review {stay.get('next_review', '')}. "
                  "Recorded on this order's authorization (case number as the auth number, days as units, next "
                  "review date as the end date). Submit the next review with the latest progress note on that date, "
                  "or report the discharge.")
        ehr_steps.back_to_order(work)
        keep_item_open(work, stay.get("next_review", ""))
    work.finish(f"Keystone Mutual inpatient case {stay.get('number', 'none')}: "
                f"{'concurrent review submitted, ' if on_file else 'admission notified, '}"
                f"{stay.get('days', '')} day(s) approved in all, next review {stay.get('next_review', '')}; "
                f"recorded on order {work.notes.get('order_id', '')}.")
