"""Reference solution of template appeals/benefit_limit: a Keystone therapy visit denied PR-119
(the plan's visit limit reached). Read the item, the claim, its remittance and the practice's
therapy visit log in the chart; then, on Keystone's portal, an eligibility inquiry for the date of
service and its Benefit Accumulators: the limit, the benefit period and the visits applied.
Count the applied visits that fall in the period (one per date). The limit reached: file
nothing, Patient Responsibility with a note. Not reached: a level-1 reconsideration (Benefit or
eligibility determination) naming the visits that do not belong, with the visit log attached;
Appeal Filed.
"""
from __future__ import annotations

import re
from datetime import date

from pypdf import PdfReader

from admindesk.harness.agents.reference import portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.appeals.portal_appeal import follow_up_day
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

PATIENT_RESPONSIBILITY = "Patient Responsibility"
US_DATE = re.compile(r"\b\d{2}/\d{2}/\d{4}\b")


def review_denial(work: Work) -> None:
    """The item, the claim, its remittance (PR-119) and the dates of the practice's visit log."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    remittance = ehr_denials.open_remittance(work)
    if "119" not in remittance["carcs"]:
        raise ScriptFailed(f"expected a CARC 119 denial: {remittance['denials']}")
    file_name = ehr_denials.open_chart_document(work, "visit_log", download=True)
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    visits = " ".join(text.split()).split("Visits attended", 1)[1]
    work.notes.update(log_file=file_name, log_dates=sorted({parse_us_date(d) for d in US_DATE.findall(visits)}))


def read_accumulator(work: Work) -> dict:
    """Keystone's eligibility on the date of service, then its Benefit Accumulators."""
    member_id, service_date = work.need("member_id"), work.need("service_date")
    portal_b.open_portal_b(work)
    return portal_b.read_accumulator(work, member_id, parse_us_date(service_date))


def us(day: date) -> str:
    return f"{day:%m/%d/%Y}"


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review_denial(work)
    accumulator: dict = {}
    if work.doing("check_benefit"):
        accumulator = read_accumulator(work)
    n = work.notes
    if not accumulator or "log_dates" not in n:
        work.finish("Nothing changed: the visit log and the payer's count were not both read.")
        return
    start, end, allowed = accumulator["start"], accumulator["end"], accumulator["allowed"]
    in_period = sorted({day for day in accumulator["applied"] if start <= day <= end})
    outside = sorted({day for day in accumulator["applied"] if not start <= day <= end})
    period = f"benefit period {us(start)}-{us(end)}"
    denied_day = parse_us_date(n["service_date"])
    ours = [day for day in n["log_dates"] if start <= day < denied_day]
    if len(in_period) >= allowed:
        if work.doing("bill_patient"):
            ehr_denials.set_item_status(work, PATIENT_RESPONSIBILITY)
        if work.doing("explain"):
            ehr_denials.add_item_note(
                work, f"Claim {n['claim_number']} (DOS {n['service_date']}) denied PR-119, benefit maximum reached. "
                      f"Keystone's accumulator: {len(in_period)} of {allowed} therapy visits applied in the {period}, "
                      f"matching the {len(ours)} visits of our visit log before this date. The limit was reached; an "
                      f"appeal cannot add visits, so nothing was filed. Balance moved to patient responsibility.")
        work.finish(f"The plan's {allowed}-visit limit for the {period} was reached ({len(in_period)} visits applied, "
                    f"as our log shows), so the denial stands: nothing was appealed and the balance was moved to "
                    f"the patient's responsibility (item {PATIENT_RESPONSIBILITY}).")
        return
    wrong = ", ".join(us(day) for day in outside)
    letter = (f"Request to reprocess claim {n['claim_number']}, patient {work.patient_name} (DOB "
              f"{us(date.fromisoformat(work.patient['dob']))}, member ID {n['member_id']}), date of service "
              f"{n['service_date']}, denied PR-119 (benefit maximum reached). The member's therapy benefit allows "
              f"{allowed} visits per {period}. Keystone's accumulator applies {len(accumulator['applied'])} visits, "
              f"but the visits of {wrong} fall before the period began on {us(start)} and belong to the prior "
              f"benefit period. Only {len(in_period)} visits fall in the current period, so the visit of "
              f"{n['service_date']} is visit {len(in_period) + 1} of {allowed}, within the limit. Our visit log is "
              f"attached. Please remove those visits from the accumulator and reprocess and pay the claim. "
              f"Questions: {n['user_name']}, billing office.")
    appeal: dict[str, str] = {}
    if work.doing("request_reprocessing"):
        appeal = portal_b.file_appeal(
            work, n["claim_number"], kind="Reconsideration", reason="Benefit or eligibility determination",
            outcome="Reconsider the benefit determination", explanation=letter, appellant=n["user_name"],
            service_day=denied_day, billed=n["billed"], attachments=[(n["log_file"], "Clinical notes")])
    if not appeal:
        work.finish("Stopped: no request to reprocess was filed.")
        return
    follow_up = follow_up_day(appeal)
    if work.doing("record_appeal"):
        ehr_denials.record_filed_appeal(work, appeal, follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Claim {n['claim_number']} denied PR-119 (visit limit). Keystone's accumulator counts "
                  f"{len(accumulator['applied'])} of {allowed} visits, but {wrong} are before the {period} began; "
                  f"only {len(in_period)} visits are in the period, so this visit is within the limit. Filed a "
                  f"reprocessing request with our visit log: appeal {appeal['reference']} (level 1 reconsideration, "
                  f"Benefit or eligibility determination), {appeal['status']}, decision due "
                  f"{appeal['decision_due']}. Follow up on {follow_up:%m/%d/%Y}.")
    work.finish(f"Keystone counted visits from before the {period} ({wrong}); only {len(in_period)} of {allowed} "
                f"visits fall in the period. Reprocessing request {appeal['reference']} filed with the visit log "
                f"({appeal['status']}); the item is Appeal Filed, follow-up {follow_up:%m/%d/%Y}.")
