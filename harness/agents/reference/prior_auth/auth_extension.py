"""Reference solution of template auth_extension: the order's service was rescheduled and an
approval is on file. Read the authorization the order records and the new planned date; when
the approval ends before that date, extend it at portal A and record the new end date on the
order; when it still covers the date, change nothing. Close the item either way, filing no
new request."""
from __future__ import annotations

from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.prior_auth.auth_on_file import approved_auth
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

# The extension asked for runs this long past the service date, leaving room for a short delay.
MARGIN = timedelta(days=14)


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    payer = payer_name(work.case["coverages"][0]["payer"])
    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        ehr_steps.open_order(work)
        approved_auth.read_order_authorization(work)
    if work.doing("find_authorization"):
        decision = approved_auth.open_approved_case(work)
        work.notes.update(payer_end=decision["end"], case_number=decision["case_number"])
    day = approved_auth.service_day(work)
    covered = parse_us_date(work.need("payer_end")) >= day
    new_end = ""
    if not covered and work.doing("extend_authorization"):
        wanted = day + MARGIN
        decision = approved_auth.request_change(
            work, "Extension", f"Service rescheduled to {us_date(day)} (see the ordering practice's note); "
                               f"extension through {us_date(wanted)} requested.", new_end=wanted)
        if parse_us_date(decision["end"]) < day:
            raise ScriptFailed(f"the extension does not reach the service date: {decision}")
        work.notes["payer_end"] = new_end = decision["end"]
    if not covered and work.doing("record_extension"):
        approved_auth.record_change(work, "Extension", "Payer approved the extension on the case.",
                                    new_end=work.need("payer_end"))
    if work.doing("close_item"):
        ehr_steps.back_to_order(work)
        auth, end = work.need("ehr_auth_number"), work.need("payer_end")
        if covered:
            text = (f"Service rescheduled to {us_date(day)}. Authorization {auth} at {payer} (case "
                    f"{work.need('case_number')}) runs through {end}, which covers the new date: nothing changed "
                    f"or filed at the payer.")
        else:
            text = (f"Service rescheduled to {us_date(day)}, after authorization {auth}'s end date "
                    f"{work.need('ehr_end')}. {payer} extended authorization {auth} (case "
                    f"{work.need('case_number')}) through {end}; recorded on this order. No new request was filed.")
        ehr_steps.add_order_comment(work, text)
        ehr_steps.set_work_item(work, "Auth Obtained")
    if covered:
        work.finish(f"Authorization {work.notes.get('ehr_auth_number', '?')} already covers the rescheduled date "
                    f"{us_date(day)} (through {work.notes.get('payer_end', '?')}); nothing was filed or changed.")
    else:
        work.finish(f"Authorization {work.notes.get('ehr_auth_number', '?')} was extended at {payer} through "
                    f"{new_end or '?'} to cover the rescheduled service on {us_date(day)}; recorded on the order.")
