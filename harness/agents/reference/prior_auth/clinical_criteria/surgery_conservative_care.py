"""Reference solution of template prior_auth/surgery_conservative_care: an elective total knee
arthroplasty for a Keystone Mutual member under Keystone's joint replacement policy (KM-SUR-601).

Read the order, the surgeon's note, the operated knee's physical therapy record and its radiology
report, and read the policy. The weeks of therapy are counted in the therapy record of the knee
operated on (first visit to last), not taken from the note; the radiograph must be of that knee and
within the 12 months before the request. Both met: request the surgery with those weeks and the
note, the radiology report and the therapy record attached, and record the approval. Not met: file
nothing, send the ordering surgeon a staff message saying what is missing, comment and keep the
item In Progress.
"""
from __future__ import annotations

from datetime import date

from admindesk.harness.agents.reference import ehr_steps, portal_b
from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.agents.scripted import ScriptFailed

POLICY = "KM-SUR-601"
KEYSTONE = "Keystone Mutual Health"
MIN_WEEKS = 12  # the policy's weeks of failed conservative therapy
IMAGING_WINDOW_DAYS = 365  # radiographs within the 12 months before the request


def side_documents(work: Work, kind: str, site_fact: str) -> list[dict]:
    """The case's documents of `kind` about the knee operated on (their site fact names its side)."""
    side = work.case["orders"][0]["laterality"]
    return [d for d in work.case["documents"]
            if d["type"] == kind and side in str((d.get("facts") or {}).get(site_fact, "")).lower()]


def therapy_record(work: Work) -> tuple[dict, int]:
    """The operated knee's latest physical therapy record and the whole weeks it counts."""
    records = side_documents(work, "pt_note", "therapy_site")
    if not records:
        raise ScriptFailed("no physical therapy record of the knee operated on")
    record = max(records, key=lambda d: d["date"])
    facts = record["facts"]
    days = (date.fromisoformat(str(facts["therapy_last_visit"])) -
            date.fromisoformat(str(facts["therapy_first_visit"]))).days
    return record, days // 7


def qualifying_radiograph(work: Work) -> dict | None:
    """The operated knee's radiograph within the policy's window showing grade 3 or 4, if any."""
    today = date.fromisoformat(str(work.task.now)[:10])
    for report in sorted(side_documents(work, "imaging_report", "imaging_study"), key=lambda d: d["date"],
                         reverse=True):
        recent = (today - date.fromisoformat(str(report["date"]))).days <= IMAGING_WINDOW_DAYS
        if recent and any(f"grade {g}" in report["facts"]["imaging_findings"].lower() for g in ("3", "4")):
            return report
    return None


def message_text(work: Work, record: dict, weeks: int) -> str:
    n, facts = work.notes, record["facts"]
    return (f"{work.patient_name} (DOB {us_date(work.patient['dob'])}), order {n['order_id']}: {n['code']} "
            f"({n['diagnoses']}) at {n['facility']}, planned {n['planned']}. {KEYSTONE}'s joint replacement policy "
            f"{POLICY} requires at least {MIN_WEEKS} weeks of failed conservative therapy, counted in the physical "
            f"therapy record from its first to its last visit. The {facts['therapy_site']} therapy record runs "
            f"{us_date(facts['therapy_first_visit'])} to {us_date(facts['therapy_last_visit'])}: {weeks} weeks "
            f"({facts['physical_therapy_sessions']} visits), fewer than the note's summary states; a therapy record of the "
            "other knee does not count. The radiographs and the injection meet the policy. Nothing has been "
            "submitted to Keystone. Please document further therapy (or send us therapy records the chart lacks); we "
            "will submit with your note, the radiology report and the therapy record once the weeks are documented.")


def clinical_summary(work: Work, member: str, record: dict, weeks: int, radiograph: dict) -> str:
    n, facts = work.notes, {k: v for d in work.case["documents"] if d.get("key") == "visit"
                            for k, v in (d.get("facts") or {}).items()}
    pt = record["facts"]
    return (f"{work.patient_name}, DOB {work.patient['dob']}, member {member}. Requesting {n['code']} total knee "
            f"arthroplasty for {n['diagnoses']}, ordered by {n['provider']}, at {n['facility']}. Weight-bearing "
            f"radiographs of {us_date(radiograph['date'])} ({radiograph['facts']['imaging_study']}): "
            f"{radiograph['facts']['imaging_findings']}. Physical therapy for {pt['therapy_site']} from "
            f"{us_date(pt['therapy_first_visit'])} to {us_date(pt['therapy_last_visit'])} ({weeks} weeks, "
            f"{pt['physical_therapy_sessions']} visits), goals not met. NSAID trial: {facts.get('nsaid_trial')}. "
            f"Injection: {facts.get('joint_injection')}. Policy {POLICY} criteria met.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    member = work.ids["coverages"]["primary"]["payer_member_id"]
    record, weeks = therapy_record(work)
    radiograph = qualifying_radiograph(work)
    met = weeks >= MIN_WEEKS and radiograph is not None
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        shown = [("visit", "Clinical notes"), (record["key"], "Clinical notes")]
        if radiograph is not None:
            shown.append((radiograph["key"], "Imaging report"))
        else:
            shown += [(d["key"], "Imaging report") for d in side_documents(work, "imaging_report", "imaging_study")]
        for key, document_type in shown:
            name = ehr_steps.open_document(work, key, download=met)
            if met:
                attachments.append((name, document_type))
    if work.doing("read_policy"):
        work.notes["policy_title"] = portal_b.read_policy(work, POLICY)
    if not met:
        if radiograph is None:
            raise ScriptFailed("the reference routes only the weeks of therapy; no qualifying radiograph")
        ehr_steps.route_to_provider_and_hold(
            work, route="route_to_surgeon",
            subject=f"Knee replacement {work.notes['code']}: {MIN_WEEKS} weeks of therapy not documented ({POLICY})",
            message=message_text(work, record, weeks),
            comment=f"Not submitted to {KEYSTONE}: joint replacement policy {POLICY} requires {MIN_WEEKS} weeks of "
                    f"failed conservative therapy in the physical therapy record; the {record['facts']['therapy_site']}"
                    f" record shows {weeks} weeks ({us_date(record['facts']['therapy_first_visit'])} to "
                    f"{us_date(record['facts']['therapy_last_visit'])}). Staff message sent to the ordering surgeon "
                    f"({work.notes['provider']}). Submit once the therapy is documented; follow up in 5 business days.")
        work.finish(f"Nothing submitted: {KEYSTONE}'s joint replacement policy {POLICY} requires {MIN_WEEKS} weeks of "
                    f"failed conservative therapy and the operated knee's physical therapy record documents {weeks}. "
                    "The ordering surgeon was told by staff message; the Prior Auth item is left In Progress with an "
                    "order comment.")
        return
    answers = {"conservative_therapy_weeks": str(weeks), "prior_imaging": "Yes"}
    decision = portal_b.request_after_eligibility(
        work, member, answers, lambda: clinical_summary(work, member, record, weeks, radiograph), attachments, 3,
        "the note, the radiology report and the therapy record were not downloaded")
    portal_b.record_and_close(work, decision, lambda approved: (
        f"Precertification approved by {KEYSTONE} under joint replacement policy {POLICY}: {work.notes['code']} "
        f"{work.case['orders'][0]['laterality']} total knee arthroplasty, requested on {weeks} weeks of physical "
        f"therapy ({us_date(record['facts']['therapy_first_visit'])} to "
        f"{us_date(record['facts']['therapy_last_visit'])}) and the radiographs of {us_date(radiograph['date'])}; "
        f"note, radiology report and therapy record attached. Auth {approved.get('auth_number', '')}, reference "
        f"{approved.get('reference', '')}, {approved.get('start', '')} to {approved.get('end', '')}."))
    work.finish(f"Approved by {KEYSTONE}: {work.notes.get('code', '')} total knee arthroplasty, authorization "
                f"{decision.get('auth_number', 'none')} recorded on order {work.need('order_id')}.")
