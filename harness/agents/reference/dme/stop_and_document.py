"""Reference solution of template dme/stop_and_document: a DME order that cannot go out.

The coordinator reads the order and its documents, then finds the problem: no signed
written order in the chart; or (Keystone Mutual) the coverage has ended; or the chart does
not meet the payer's medical policy for the item (qualifying test, face-to-face window).
Nothing is submitted or faxed; an item note says why and who must act, and the DME item
goes On Hold with a follow-up date.
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.dme import steps as dme_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"
FOLLOW_UP_DAYS = 7
FACE_TO_FACE_MONTHS = 6  # Keystone Mutual: the face-to-face evaluation within 6 months before the order
AHI_QUALIFYING, AHI_WITH_COMORBIDITY, SPO2_QUALIFYING = 15, 5, 88  # KM-DME-401 / KM-DME-402


def _document(work: Work, doc_type: str) -> dict:
    return next((d for d in work.case["documents"] if d["type"] == doc_type), {})


def review(work: Work) -> None:
    """The order's document list, and the documents behind it opened (face-to-face first)."""
    listed = dme_steps.order_documents(work)
    work.notes["documents"] = listed
    work.notes["listed_types"] = ", ".join(sorted({row["type"] for row in listed.values()}))
    for doc_type in ("face_to_face", "sleep_study"):
        key = _document(work, doc_type).get("key")
        if key:
            ehr_steps.open_document(work, key)
    if "Written Order" in work.notes["listed_types"]:
        ehr_steps.open_document(work, _document(work, "written_order")["key"])


def missing_order_reason(work: Work) -> str:
    return (f"the chart has no signed written order for the {work.notes['equipment']} (order {work.notes['order_id']}, "
            f"HCPCS {work.notes['code']}): the order's documents are only: {work.need('listed_types')}. A supplier "
            f"fills a DME order only with the practitioner's signed written order, so the packet was not sent")


def check_coverage(work: Work) -> str | None:
    """Keystone Mutual eligibility on the planned date; the reason to stop when it has ended
    (recorded on the chart's coverage as verified inactive), else None."""
    actor = work.actor
    planned = parse_us_date(work.need("planned"))
    portal_b.open_portal_b(work)
    status = portal_b.check_eligibility(work, work.need("member"), planned).rsplit(":", 1)[-1].strip()
    if status == "Active":
        return None
    ended, reference = actor.fact("Coverage Terminated"), actor.text("main p strong")
    finding = (f"{KEYSTONE} eligibility for member {work.notes['member']} on {work.notes['planned']}: {status}, "
               f"coverage terminated {ended} (portal inquiry {reference})")
    dme_steps.to_tab(work, ehr_steps.ORDER_PAGE_TAB)
    ehr_steps.record_coverage_verification(work, "primary", "Verified - Inactive", finding + ".", reference=reference)
    ehr_steps.open_order(work)
    return (f"{finding}; no other coverage is on file, so no DME request was submitted and no supplier was sent "
            f"the order")


def criteria_problem(work: Work) -> str | None:
    """The chart against the policy's criteria: the face-to-face window, then the test."""
    f2f = _document(work, "face_to_face")
    f2f_date = dme_steps.document_date(work, f2f["key"])
    order_date = dme_steps.document_date(work, _document(work, "written_order")["key"])
    earliest = _months_before(order_date, FACE_TO_FACE_MONTHS)
    policy = work.notes["policy"]
    if f2f_date < earliest:
        return (f"the only face-to-face evaluation is dated {us_date(f2f_date)}, more than {FACE_TO_FACE_MONTHS} "
                f"months before the written order of {us_date(order_date)} (the window opens {us_date(earliest)}); "
                f"{KEYSTONE} policy {policy} requires the face-to-face evaluation within {FACE_TO_FACE_MONTHS} months "
                f"before the order")
    facts, narrative = f2f.get("facts", {}), f2f.get("narrative") or ""
    study = _document(work, "sleep_study")
    if study:
        ahi = study["facts"]["ahi"]
        if ahi < AHI_QUALIFYING:
            return (f"the sleep study of {us_date(date.fromisoformat(study['date']))} shows an AHI of {ahi:g}, below "
                    f"{AHI_QUALIFYING}, and no qualifying comorbidity is documented (face-to-face evaluation of "
                    f"{us_date(f2f_date)}: {narrative or 'none listed'}); {KEYSTONE} policy {policy} needs an AHI of "
                    f"{AHI_QUALIFYING} or more, or {AHI_WITH_COMORBIDITY} to {AHI_QUALIFYING - 1} with a documented "
                    f"comorbidity")
    rest, exertion = facts.get("spo2_rest"), facts.get("spo2_exertion")
    if rest is not None and rest > SPO2_QUALIFYING and (exertion is None or exertion > SPO2_QUALIFYING):
        measured = f"SpO2 {rest}% at rest" + (f" and {exertion}% with exertion" if exertion is not None else "")
        return (f"the face-to-face evaluation of {us_date(f2f_date)} measured {measured} on room air; {KEYSTONE} "
                f"policy {policy} needs {SPO2_QUALIFYING}% or less at rest or with exertion (Group I), or 89% with "
                f"edema/heart failure, pulmonary hypertension or erythrocythemia (Group II), none of which is "
                f"documented ({narrative})")
    return None


def _months_before(day: date, months: int) -> date:
    month = day.month - months
    year = day.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    return day.replace(year=year, month=month)


def read_policy(work: Work) -> None:
    """The item's medical policy on portal B (from the DME request page's requirements table)."""
    actor = work.actor
    actor.click("nav a[href='/dme/new']")
    actor.click(f"xpath=//table//tr[td[1][normalize-space()='{work.need('code')}']]//a")
    work.notes["policy"] = actor.fact("Policy Number")


def find_problem(work: Work) -> tuple[str, str]:
    """(why the order cannot go out, who must act)."""
    if "Written Order" not in work.need("listed_types"):
        return missing_order_reason(work), (f"the ordering practitioner, {work.notes['provider']}, must sign a "
                                            f"written order for the {work.notes['equipment']}")
    if KEYSTONE not in work.notes["coverage"]:
        raise ScriptFailed(f"no stop reason found for {work.notes['coverage']!r}")
    ended = check_coverage(work)
    if ended:
        return ended, ("registration must get the patient's current insurance and update the chart before the "
                       "order can go to a payer or supplier")
    read_policy(work)
    problem = criteria_problem(work)
    if problem is None:
        raise ScriptFailed("the chart meets the policy: not a stop case")
    return (problem + "; the DME request would be denied, so none was submitted and no supplier was sent the order",
            f"routed back to the ordering practitioner, {work.notes['provider']}, to reassess and document "
            f"qualifying findings (a new face-to-face visit, test or written order as needed)")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    work.notes["equipment"] = dme_steps.open_equipment_order(work)
    if work.doing("review_order"):
        review(work)
    if work.doing("find_problem"):
        work.notes["reason"], work.notes["who"] = find_problem(work)
    follow_up = us_date(work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS))
    if work.doing("document_stop"):
        dme_steps.back_to_item(work)
        dme_steps.add_item_note(
            work, f"DME order {work.notes['order_id']} NOT sent to a supplier and nothing submitted for "
                  f"{work.patient_name} (DOB {us_date(work.patient['dob'])}): {work.need('reason')}. Who must act: "
                  f"{work.need('who')}. Nothing was faxed or filed with any payer; the DME item is On Hold and I "
                  f"will follow up on {follow_up}.")
    if work.doing("hold_item"):
        dme_steps.back_to_item(work)
        dme_steps.update_dme_item(work, "On Hold", follow_up=follow_up)
    work.finish(f"The {work.notes['equipment']} order {work.notes['order_id']} was not sent to a supplier and "
                f"nothing was submitted: {work.notes.get('reason', 'see the item note')}. Next: "
                f"{work.notes.get('who', 'see the item note')}. The DME item is On Hold, follow-up {follow_up}.")
