"""Reference solution of template prior_auth/stop_and_document: a request that must not go
out. Either the order's code is not the service the clinician's note asks for (route the
order back to the ordering provider), or no coverage is active at the payers on the date
of service (registration must find current coverage). Either way: file nothing, say why on
the order, and keep the Prior Auth item open (In Progress).
"""
from __future__ import annotations

import re

from pypdf import PdfReader

from admindesk.harness.agents.reference import ehr_steps, portal_a, portal_b
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"  # Keystone Mutual answers eligibility on its own portal (B); the others on portal A
# The clinician's plan sentence in the note's text ("Plan: MRI of the cervical spine ...").
PLAN_SENTENCE = re.compile(r"Plan: .+?\.(?=\s|$)")


def read_note_plan(work: Work, file_name: str) -> str:
    """The plan sentence of the downloaded clinician's note (what the note asks for)."""
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    match = PLAN_SENTENCE.search(" ".join(text.split()))
    if match is None:
        raise ScriptFailed(f"{file_name}: the note states no plan sentence")
    return match.group(0)


def read_coverages(work: Work) -> list[dict[str, str]]:
    """The chart's coverages as its Coverage tab lists them (rank, payer, plan, member id)."""
    actor = work.actor
    actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    rows = actor.read("table.grid").evaluate(
        "t => Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.innerText.trim()))")
    return [{"rank": row[0], "payer": row[1], "plan": row[2], "member_id": row[4]} for row in rows if len(row) > 4]


def check_at_payer(work: Work, payer_id: str, member_id: str) -> str:
    """One eligibility inquiry on the payer's portal for the planned date; returns what it found."""
    planned = parse_us_date(work.need("planned"))
    actor = work.actor
    if payer_id == KEYSTONE:
        portal_b.open_portal_b(work)
        status = portal_b.check_eligibility(work, member_id, planned).rsplit(":", 1)[-1].strip()
        ended, reference = actor.fact("Coverage Terminated"), actor.text("main p strong")
        portal = "Keystone Mutual's portal"
    else:
        status = portal_a.check_eligibility(work, member_id, payer_id, planned)
        ended, reference = actor.fact("Coverage ends"), actor.text("main p strong")
        portal = "portal A"
    if status == "Active":
        raise ScriptFailed(f"{payer_id} member {member_id} is active on {work.notes['planned']}: not a stop case")
    return f"{portal_a.payer_name(payer_id)} member {member_id}: {status} on {work.notes['planned']} " \
           f"(coverage ended {ended}; {portal} inquiry {reference})"


def check_coverages(work: Work) -> None:
    """Every coverage checked at its payer; each recorded on the chart as verified inactive."""
    coverages = read_coverages(work)
    by_member = {c["member_id"]: c for c in coverages}
    findings = []
    for case_coverage in work.case["coverages"]:
        member = work.ids["coverages"][case_coverage["key"]]["member_id"]
        if member not in by_member:
            raise ScriptFailed(f"the chart lists no coverage with member id {member}")
        finding = check_at_payer(work, case_coverage["payer"], member)
        findings.append(f"{by_member[member]['rank']} {finding}")
        work.actor.switch_to_tab(ehr_steps.ORDER_PAGE_TAB)  # the EHR tab, still on the chart
        reference = finding.rsplit("inquiry ", 1)[-1].rstrip(")")
        ehr_steps.record_coverage_verification(work, case_coverage["key"], "Verified - Inactive",
                                               f"Eligibility check for {work.notes['planned']}: {finding}.",
                                               reference=reference)
    ehr_steps.open_order(work)
    work.notes["coverage_findings"] = "; ".join(findings)


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    wrong_code = "spot_mismatch" in {s.id for s in work.task.subtasks}
    ehr_steps.open_chart(work)
    ehr_steps.open_order(work)
    order_id = work.notes["order_id"]
    ordered = f"{work.notes['code']} ({work.actor.fact('Description').splitlines()[0]})"
    doc_key = next(d["key"] for d in work.case["documents"] if d.get("order") == "svc")
    if work.doing("review_order"):
        file_name = ehr_steps.open_document(work, doc_key, download=wrong_code)
        if wrong_code:
            work.notes["note_plan"] = read_note_plan(work, file_name)
    if wrong_code:
        if work.doing("spot_mismatch"):
            work.notes["reason"] = (f"the order is for CPT {ordered}, but the ordering clinician's note asks "
                                    f"for a different service: \"{work.need('note_plan').rstrip('.')}\"")
        who = (f"Routed back to the ordering provider, {work.notes['provider']}, to correct the order "
               f"(code/laterality to match the note) before any request is filed.")
        answer_why = "the order's code does not match the clinician's note"
    else:
        if work.doing("check_coverage"):
            check_coverages(work)
            work.notes["reason"] = (f"no coverage is active at the payers on the date of service "
                                    f"{work.notes['planned']}: {work.need('coverage_findings')}")
        who = ("Registration must obtain the patient's current coverage (new insurance card or plan) and update "
               "the chart; the request can be filed once an active coverage is on file.")
        answer_why = "no coverage is active at the payers on the date of service"
    if work.doing("document_stop"):
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"Prior authorization NOT submitted for order {order_id} ({work.patient_name}, DOB "
                  f"{work.patient['dob']}): {work.need('reason')}. {who} Nothing was filed with any payer or by fax; "
                  f"the Prior Auth item stays open (In Progress).")
    if work.doing("hold_item"):
        # The status alone: the reasons are document_stop's note. A note here that repeated
        # them would do document_stop's work too, and its ablation would then prove nothing.
        ehr_steps.back_to_order(work)
        ehr_steps.set_work_item(work, "In Progress")
    work.finish(f"No prior authorization was submitted for order {order_id}: {answer_why}"
                f"{' (' + work.notes['reason'] + ')' if 'reason' in work.notes else ''}. {who} "
                "The reasons are in the order comment and the work item stays In Progress.")
