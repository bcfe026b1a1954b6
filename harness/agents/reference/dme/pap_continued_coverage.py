"""Reference solution of template dme/pap_continued_coverage: a CPAP rental at the end of its
3-month trial with Keystone Mutual.

The coordinator reads the follow-up visit and the supplier's adherence report, finds the
approved trial on portal B and counts the report's nights against Keystone's rule (policy
KM-DME-401: 4 hours or more on 21 of 30 consecutive nights, in a period within days 31-91 of
the trial, day 1 being the set-up). Met: a continued-coverage DME request naming the trial,
the re-evaluation visit and the best period, with the written order and the report
attached; the approval goes on the order's authorization and the DME item. Not met: nothing
is filed, an item note says why and who must act, and the DME item goes On Hold.
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.dme import portal_b_request, steps as dme_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
HOURS, NIGHTS_NEEDED, PERIOD_NIGHTS, TRIAL_DAYS = 4, 21, 30, (31, 91)  # KM-DME-401
CONTINUED_MONTHS = 10  # the approval's rental months after the 3-month trial
FOLLOW_UP_DAYS = 7


def adherence_periods(setup: date, minutes: list[int]) -> list[tuple[date, int, int]]:
    """(start, nights with 4 hours or more, nights not yet in the report) for every 30-night
    period inside days 31-91 of the trial, in order of start."""
    periods = []
    for first_day in range(TRIAL_DAYS[0], TRIAL_DAYS[1] - PERIOD_NIGHTS + 2):
        nights = range(first_day - 1, first_day - 1 + PERIOD_NIGHTS)
        counted = sum(1 for night in nights if night < len(minutes) and minutes[night] >= HOURS * 60)
        periods.append((setup + timedelta(days=first_day - 1), counted,
                        sum(1 for night in nights if night >= len(minutes))))
    return periods


def count_report(work: Work) -> None:
    """The report's nights counted (the rows the report prints): the best period it covers in
    full, and whether any period could still reach 21 nights by day 91."""
    report = next(d for d in work.case["documents"] if d["type"] == "adherence_report")["facts"]
    setup, minutes = date.fromisoformat(report["device_setup_date"]), report["nightly_minutes"]
    periods = adherence_periods(setup, minutes)
    covered = [(start, counted) for start, counted, missing in periods if not missing]
    if not covered:
        raise ScriptFailed("the report covers no 30-night period within days 31-91 yet")
    best = max(covered, key=lambda period: (period[1], period[0]))
    first = sum(1 for m in minutes[:PERIOD_NIGHTS] if m >= HOURS * 60)
    reachable = any(counted + missing >= NIGHTS_NEEDED for _, counted, missing in periods)
    work.notes.update(
        setup=us_date(setup), window=f"{us_date(setup + timedelta(days=TRIAL_DAYS[0] - 1))} to "
                                     f"{us_date(setup + timedelta(days=TRIAL_DAYS[1] - 1))}",
        best_start=best[0].isoformat(), best_nights=str(best[1]), first_nights=str(first),
        best_text=f"{best[1]} of {PERIOD_NIGHTS} nights with {HOURS} hours or more from {us_date(best[0])} to "
                  f"{us_date(best[0] + timedelta(days=PERIOD_NIGHTS - 1))}",
        met="yes" if best[1] >= NIGHTS_NEEDED else ("pending" if reachable else "no"))


def review(work: Work, *, met: bool) -> dict[str, dict]:
    """The order's documents: the follow-up visit opened; the report (and, to file, the
    written order) downloaded or opened; returns the DME item's supplier list."""
    work.notes["documents"] = dme_steps.order_documents(work)
    ehr_steps.open_document(work, "followup")
    if met:
        work.notes["file:written_order"] = dme_steps.download_from_order(work, "wo")
        work.notes["file:adherence"] = dme_steps.download_from_order(work, "adherence")
    else:
        ehr_steps.open_document(work, "adherence")
    work.notes["trial_end"] = work.actor.read("#authorization input[name=end_date]").input_value()
    count_report(work)
    dme_steps.open_dme_item(work)
    return dme_steps.read_suppliers(work)


def find_trial(work: Work) -> None:
    """Policy KM-DME-401 (from the DME request page), then the member's approved PAP trial
    among the DME requests on file."""
    actor = work.actor
    portal_b.open_portal_b(work)
    portal_b_request.read_policy(work)
    actor.click("nav a[href='/dme']")
    actor.fill("form[role=search] input[name=q]", work.need("member"))
    actor.click("form[role=search] button[type=submit]")
    for row in work.env.page_locator("main table.grid tbody tr").all():
        cells = [text.strip() for text in row.locator("td").all_inner_texts()]
        if len(cells) >= 10 and cells[3] == work.notes["code"] and cells[7] == "Approved":
            work.notes.update(trial=cells[0], trial_auth=cells[8])
            return
    raise ScriptFailed(f"no approved {work.notes['code']} trial on file for member {work.notes['member']}")


def fill_request(work: Work, suppliers: dict[str, dict]) -> None:
    """The continued-coverage request: the trial, the re-evaluation visit, the best period."""
    actor, notes = work.actor, work.notes
    trial = work.need("trial")  # found on portal B by the policy step
    supplier = suppliers[work.case["orders"][0]["supplier"]]["name"]
    dme_steps.to_tab(work, int(work.need("portal_b_tab")))
    actor.click("nav a[href='/dme/new']")
    portal_b_request.fill_member_and_order(work, supplier, dme_steps.document_date(work, "followup"),
                                           dme_steps.document_date(work, "wo"))
    actor.select_option("select[name=request_kind]", "Continued coverage")
    actor.fill("input[name=initial_request_id]", trial)
    setup = parse_us_date(notes["setup"])
    actor.fill("input[name=device_setup_date]", portal_b.portal_b_date(setup))
    actor.fill("input[name=adherence_start]", portal_b.portal_b_date(date.fromisoformat(notes["best_start"])))
    actor.fill("input[name=nights_4h]", notes["best_nights"])
    actor.upload("input[name=written_order]", notes["file:written_order"])
    notes["supplier"] = supplier


def record(work: Work) -> str:
    """The continued authorization on the order (from the day after the trial for 10 rental
    months); returns its span as written."""
    auth_number, request_id = work.need("auth_number"), work.need("request_id")
    dme_steps.to_order(work)
    start = parse_us_date(work.need("trial_end")) + timedelta(days=1)
    end = dme_steps.months_after(start, CONTINUED_MONTHS) - timedelta(days=1)
    ehr_steps.record_authorization(work, status="Approved", payer=KEYSTONE, auth_number=auth_number,
                                   reference=request_id, start=us_date(start), end=us_date(end))
    return f"{us_date(start)} to {us_date(end)}"


def counted_text(work: Work) -> str:
    notes = work.notes
    return (f"Adherence counted from the supplier's nightly rows (device set up {notes['setup']}; days 31-91 of "
            f"the trial are {notes['window']}; the first 30 nights, {notes['first_nights']} of 30 in the supplier's "
            f"summary, do not count for Keystone): best 30-night period within days 31-91: {notes['best_text']}; "
            f"policy {notes.get('policy', 'KM-DME-401')} needs {NIGHTS_NEEDED} of {PERIOD_NIGHTS}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    met = "submit_request" in {s.id for s in work.task.subtasks}
    equipment = dme_steps.open_equipment_order(work)
    suppliers: dict[str, dict] = {}
    if work.doing("review_chart"):
        suppliers = review(work, met=met)
    if work.doing("check_policy"):
        find_trial(work)
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    visit = us_date(dme_steps.document_date(work, "followup")) if work.notes.get("documents") else "(not read)"
    if met:
        if work.doing("submit_request"):
            if work.need("met") != "yes":
                raise ScriptFailed(f"the report does not meet the adherence rule: {work.notes['best_text']}")
            fill_request(work, suppliers)
            if work.doing("attach_report"):
                work.actor.select_option("select[name=document_type_2]", "PAP adherence report")
                work.actor.upload("input[name=attachment_2]", work.need("file:adherence"))
            portal_b_request.submit_approved(work, "continued coverage")
        if work.doing("record_outcome"):
            span = record(work)
            dme_steps.back_to_item(work)
            dme_steps.update_dme_item(
                work, "In Progress", supplier=work.need("supplier"), follow_up=follow_up,
                note=f"{KEYSTONE} approved continued coverage of the {work.notes['code']} rental after the trial "
                     f"(trial {work.notes['trial']}, authorization {work.notes['trial_auth']}): DME request "
                     f"{work.notes['request_id']}, authorization {work.notes['auth_number']}, {CONTINUED_MONTHS} more "
                     f"rental months ({span}). Patient {work.patient_name}, DOB {us_date(work.patient['dob'])}, "
                     f"member {work.notes['member']}. Re-evaluation visit {visit} documents benefit. "
                     f"{counted_text(work)} Adherence report attached to the request. Next: tell "
                     f"{work.notes['supplier']} the new authorization number for the rental's billing; I will "
                     f"follow up on {follow_up}.")
        work.finish(f"Keystone Mutual approved continued coverage of the {equipment} after the trial: authorization "
                    f"{work.notes.get('auth_number', '(none)')} (DME request "
                    f"{work.notes.get('request_id', '(none)')}).")
        return
    if work.doing("document_stop"):
        if work.need("met") == "yes":
            raise ScriptFailed("the report meets the adherence rule: not a stop case")
        dme_steps.back_to_item(work)
        dme_steps.add_item_note(
            work, f"No continued-coverage request filed for the {work.notes['code']} rental of {work.patient_name} "
                  f"(DOB {us_date(work.patient['dob'])}, member {work.notes['member']}; trial {work.need('trial')}). "
                  f"{counted_text(work)} No 30-night period within days 31-91 reaches {NIGHTS_NEEDED} nights, and "
                  f"none can by day 91, although the re-evaluation of {visit} notes benefit and the patient reports "
                  f"using it most nights. Under {KEYSTONE} policy {work.need('policy')} coverage ends with the "
                  f"trial; a new trial needs a face-to-face re-evaluation and a repeat facility sleep study. Who must "
                  f"act: the sleep physician, {work.notes['provider']}, to re-evaluate (mask fit, use); the supplier "
                  f"to be told coverage ends with the trial. Nothing was filed or faxed; the DME item is On Hold and "
                  f"I will follow up on {follow_up}.")
    if work.doing("hold_item"):
        dme_steps.back_to_item(work)
        dme_steps.update_dme_item(work, "On Hold", follow_up=follow_up)
    work.finish(f"No continued-coverage request was filed for the {equipment}: adherence within days 31-91 of the "
                f"trial falls short ({work.notes.get('best_text', 'see the item note')}, {NIGHTS_NEEDED} of "
                f"{PERIOD_NIGHTS} needed). The DME item is On Hold for the sleep physician's re-evaluation, "
                f"follow-up {follow_up}.")
