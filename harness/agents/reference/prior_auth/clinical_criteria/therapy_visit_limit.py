"""Reference solution of template prior_auth/therapy_visit_limit: outpatient physical therapy
ordered past the plan's visit limit, for a Keystone Mutual member.

Read the order and the therapist's latest re-evaluation (its plan of care: further visits and
dates), then Keystone's eligibility and Benefit Accumulators (the limit, its type, the visits
applied in the benefit period). A soft limit that is used: request the plan of care's visits (not
the order's default) from the planned date through the plan's last visit, with the re-evaluation
attached, and record the approval. A hard limit that is used: file nothing, tell the ordering
provider by staff message so the patient hears before more visits are booked, comment and keep the
item In Progress.
"""
from __future__ import annotations

import re
from datetime import date

from pypdf import PdfReader

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"
# The re-evaluation's plan of care: "Plan of care: 8 further visits, twice weekly for 4 weeks (11/17/2026 to ...)".
PLAN_OF_CARE = re.compile(r"Plan of care: (\d+) further visits, ([^(]+)\((\d\d/\d\d/\d{4}) to (\d\d/\d\d/\d{4})\)")


def read_plan_of_care(work: Work, file_name: str) -> dict:
    """The further visits, their frequency and the plan's dates, from the downloaded re-evaluation."""
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    found = PLAN_OF_CARE.search(" ".join(text.split()))
    if found is None:
        raise ScriptFailed(f"{file_name}: the re-evaluation states no plan of care with visits and dates")
    visits, frequency, first, last = found.groups()
    return {"visits": visits, "frequency": frequency.strip().rstrip(","), "first": parse_us_date(first),
            "last": parse_us_date(last)}


def count_in_period(accumulator: dict) -> int:
    """The visits applied in the benefit period, one per date of service."""
    return len({day for day in accumulator["applied"] if accumulator["start"] <= day <= accumulator["end"]})


def us(day: date) -> str:
    return f"{day:%m/%d/%Y}"


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    coverage = next(c for c in work.case["coverages"] if c["payer"] == KEYSTONE)
    member = work.ids["coverages"][coverage["key"]]["payer_member_id"]
    # The latest re-evaluation is the newest chart document of the order (an earlier evaluation's plan is stale).
    reeval = max((d for d in work.case["documents"] if d.get("order") == "svc"), key=lambda d: str(d["date"]))
    doc_key = reeval["key"]
    soft = "submit_request" in {s.id for s in work.task.subtasks}
    plan: dict = {}
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        file_name = ehr_steps.open_document(work, doc_key, download=soft)
        if soft:
            plan = read_plan_of_care(work, file_name)
            work.notes["reeval_file"] = file_name
    accumulator: dict = {}
    if work.doing("check_benefit"):
        portal_b.open_portal_b(work)
        accumulator = portal_b.read_accumulator(work, member, parse_us_date(work.need("planned")))
    if not accumulator:
        work.finish("Stopped: Keystone's count of the therapy visits was not read.")
        return
    used, allowed = count_in_period(accumulator), accumulator["allowed"]
    period = f"{us(accumulator['start'])}-{us(accumulator['end'])}"
    if used < allowed:
        raise ScriptFailed(f"{used} of {allowed} visits used: not a case of this template")
    count = f"{used} of {allowed} therapy visits used in the benefit period {period}"
    if soft:
        solve_request(work, member, reeval, plan, count)
    else:
        solve_stop(work, count)


def solve_request(work: Work, member: str, reeval: dict, plan: dict, count: str) -> None:
    """Past a soft limit: the plan of care's visits requested with the re-evaluation, approval recorded."""
    title = reeval.get("title") or "re-evaluation"
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        if not plan:
            raise ScriptFailed("no plan of care read: the request cannot say how many visits")
        portal_b.open_portal_b(work)
        summary = (f"{work.patient_name}, DOB {us_date(work.patient['dob'])}, member {member}. Outpatient physical "
                   f"therapy for {work.notes['diagnoses']}, ordered by {work.notes['provider']}. The plan's visit "
                   f"limit is used ({count}; soft limit, policy KM-REHAB-801). {title} of {us_date(reeval['date'])}: "
                   f"{' '.join(reeval['narrative'].split())} Requesting {plan['visits']} further visits, "
                   f"{plan['frequency']}, {us(plan['first'])} to {us(plan['last'])}.")
        decision = portal_b.submit_approved_precert(
            work, member, {}, summary, [(work.need("reeval_file"), "Clinical notes")], units=plan["visits"],
            last_day=plan["last"])
    portal_b.record_and_close(work, decision, lambda approved: (
        f"Therapy visit limit used: {count}, and the member's group has a soft limit, so further visits need Keystone "
        f"precertification (KM-REHAB-801). Requested online the {plan.get('visits', '')} visits the {title} of "
        f"{us_date(reeval['date'])} plans (not the order's {work.notes['units']}) with that re-evaluation attached. "
        f"Approved: auth {approved.get('auth_number', '')}, reference {approved.get('reference', '')}, "
        f"{approved.get('units', '')} visit(s), {approved.get('start', '')} to {approved.get('end', '')}."))
    work.finish(f"Keystone Mutual approved {decision.get('units', 'no')} further therapy visits past the plan's soft "
                f"limit ({count}): authorization {decision.get('auth_number', 'none')} recorded on order "
                f"{work.need('order_id')}, item Auth Obtained.")


def solve_stop(work: Work, count: str) -> None:
    """Past a hard limit: nothing filed, the ordering provider told, a comment, the item held."""
    why = (f"{count} (visits at other clinics included), and the member's group has a hard limit: visits past it "
           "are not covered and Keystone does not precertify them")
    if work.doing("notify_provider"):
        work.need("order_id")
        ehr_steps.send_staff_message(
            work, message_type="FYI", subject=f"Therapy visit limit reached: {work.notes['code']} visits not covered",
            body=f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {work.notes['order_id']} for "
                 f"{work.notes['units']} further physical therapy visits planned from {work.notes['planned']}: {why}. "
                 "Nothing was submitted to the payer. Please tell the patient before any more visits are scheduled: "
                 "further visits this benefit period would be self-pay, or discharge to the home program.")
        work.notes["messaged"] = "yes"
    if work.doing("hold_item"):
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Prior authorization NOT submitted: {why}. Staff message sent to the ordering provider "
                  f"({work.notes['provider']}) so the patient is told before more visits are scheduled (self-pay or "
                  "home program). Item left In Progress.")
        ehr_steps.set_work_item(work, "In Progress")
    work.finish(f"No request was submitted: {why}. The ordering provider was told by staff message, the order has a "
                "comment and the Prior Auth item is In Progress.")
