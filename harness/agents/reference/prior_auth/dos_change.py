"""Reference solution of template prior_auth/dos_change: an approval at Keystone Mutual is
recorded on the order, and the service moved outside its dates. Read the order (its planned
date is the service's date now), the note that moved it and any fax about it, open the
precertification the order's reference names, ask Keystone for a date change that starts the
approved span on the planned date, record the new dates on the order, comment and close the
item. Nothing new is filed.
"""
from __future__ import annotations

from datetime import datetime

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_b
from admindesk.harness.agents.reference.portal_a import payer_name
from admindesk.harness.agents.reference.prior_auth.request_on_file import open_order_reference
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed


def review_order(work: Work) -> None:
    """The order (planned date, recorded authorization), the chart note that moved the service
    and the faxes the case holds about it (read, never trusted over the order's date)."""
    ehr_steps.open_chart(work)
    open_order_reference(work)
    for document in work.case.get("documents", []):
        ehr_steps.open_document(work, document["key"])
    for fax in work.case.get("faxes", []):
        number = fax_steps.case_fax_number(work, fax["key"])
        fax_steps.find_fax(work, number, lambda text: work.patient["last_name"] in text, "the fax about the new date")
    work.notes["service_day"] = work.need("planned")


def change_dates(work: Work, member: str) -> dict[str, str]:
    """The precertification on Keystone's status page, then a date change to the planned date
    when that date falls outside the approved span."""
    reference = work.need("payer_reference")
    if reference not in {row["reference"] for row in portal_b.find_precerts(work, member)}:
        raise ScriptFailed(f"precertification {reference} is not among the subscriber's requests")
    approval = portal_b.open_precert(work, reference)
    day = parse_us_date(work.need("service_day"))
    start, end = (datetime.strptime(approval[key], "%d-%b-%Y").date() for key in ("start", "end"))
    if start <= day <= end:
        raise ScriptFailed(f"the approval ({approval['start']} to {approval['end']}) already covers {us_date(day)}")
    changed = portal_b.request_change(
        work, "Date change", new_start=day,
        reason=f"The service was rescheduled to {us_date(day)}, outside the approved dates {approval['start']} to "
               f"{approval['end']}; the order, dose and clinical indication are unchanged.")
    shown = {"old_start": approval["start"], "old_end": approval["end"],
             "start": changed["start"], "end": changed["end"]}
    return {**changed, **{key: portal_b.ehr_date(value) for key, value in shown.items()},
            "reference": reference}


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverage = work.case["coverages"][0]
    member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
    payer = payer_name(coverage["payer"])
    if work.doing("review_order"):
        review_order(work)
    changed: dict[str, str] = {}
    if work.doing("change_authorization"):
        work.need("service_day")
        changed = change_dates(work, member)
    if not changed:
        work.finish("Nothing changed: the approval was not changed at the payer.")
        return
    if work.doing("record_change"):
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(work, status="Approved", payer=payer, start=changed["start"],
                                       end=changed["end"])
        work.notes["recorded"] = "yes"
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Service rescheduled to {work.notes['service_day']}, outside the approved dates "
                  f"{changed['old_start']} to {changed['old_end']} of authorization {changed['auth_number']} "
                  f"({payer} precertification {changed['reference']}). {payer} approved a date change: the "
                  f"authorization now runs {changed['start']} to {changed['end']}, {changed['units']} unit(s). "
                  f"Recorded on this order; no new request was filed.")
        ehr_steps.set_work_item(work, "Auth Obtained")
    work.finish(f"The service moved to {work.notes['service_day']}. {payer} changed authorization "
                f"{changed['auth_number']} by a date change to {changed['start']} - {changed['end']}; recorded on order "
                f"{work.notes['order_id']}, item Auth Obtained. No new request was filed.")
