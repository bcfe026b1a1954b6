"""Reference solution of template appeals/fax_appeal: the payer's notice in the fax inbox
says this medical-necessity appeal must come on paper. Read the denial and the notice,
check the claim and its deadline in the payer's portal (filing nothing there), download the
letter of medical necessity (and the addendum that corrects it, when the chart has one),
fax them to the payer's active appeals line with a cover sheet, then record the appeal on
the Denials item and leave a note.
"""
from __future__ import annotations

from datetime import timedelta

from admindesk.harness.agents.reference import ehr_steps, fax_steps, portal_a
from admindesk.harness.agents.reference.appeals import denial_facts, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

APPEALS_LINE = "Payer - Appeals"
APPEAL_FILED = "Appeal Filed"
FOLLOW_UP_DAYS = 30  # payers decide a level-1 appeal within 30 days; check back then
LETTER_TITLE = "Letter of medical necessity"


def enclosures(work: Work) -> list[str]:
    """The chart documents the appeal encloses (case keys): the letter of medical necessity,
    then any addendum that corrects it."""
    documents = work.case.get("documents", [])
    letters = [d["key"] for d in documents if d.get("title") == LETTER_TITLE]
    if not letters:
        raise ScriptFailed("the chart has no letter of medical necessity to send")
    return letters + [d["key"] for d in documents if d["type"] == "addendum"]


def cover_comments(work: Work, reasons: str, titles: list[str]) -> str:
    """The cover sheet's comments: claim, date of service, denial, the request, the enclosures."""
    claim = work.notes
    deadline = f" (appeal deadline {work.need('portal_deadline')} per the payer's portal)"
    corrected = (f" The enclosed {titles[1]} corrects the letter's facts and is part of the appeal; please review them "
                 f"together.") if len(titles) > 1 else ""
    return (f"Level 1 clinical appeal of the CO-50 (medical necessity) denial. Claim {claim['claim_number']}, date of "
            f"service {claim['service_date']}, {claim['payer']} member {claim['member_id']}, billed {claim['billed']}"
            f"{deadline}. Denial: {reasons}. Sent on paper as your Provider Appeals notice asks. We ask you to "
            f"overturn the denial and pay the claim: the enclosed letter documents the medical necessity of the "
            f"service.{corrected} Enclosed: {'; '.join(titles)}. Questions: {claim['user_name']}, denials "
            f"coordinator (reply to the sending fax line on this cover sheet).")


def explain_note(work: Work, job: dict[str, str], titles: list[str], follow_up: str) -> str:
    """The item note: why by fax, when, to which number, what went, and when to follow up."""
    claim = work.notes
    return (f"Level 1 clinical appeal of the CO-50 denial on claim {claim['claim_number']} (date of service "
            f"{claim['service_date']}) faxed to {claim['payer']} Provider Appeals at {job['to_number']} on "
            f"{job['completed']} (fax job {job['job_id']}, {job['pages']} pages, status {job['status']}). Sent by fax, "
            f"not through the portal, because the payer's notice {claim.get('notice_id', '')} received "
            f"{claim.get('notice_received', '')} says appeals of this denial must be on paper and portal appeals "
            f"will not be reviewed. Enclosed: cover sheet, {'; '.join(titles)}. The item is {APPEAL_FILED} with "
            f"reference {job_reference(job)}; follow up on {follow_up} for the payer's decision (call "
            f"{claim['payer']} Provider Appeals if none has arrived).")


def open_document_label(work: Work) -> str:
    """The open document viewer's title, date and number, e.g. "Addendum dated 09/20/2026 (DOC-1)"."""
    actor = work.actor
    return f"{actor.text('.pv-head h2')} dated {actor.fact('Date')} ({actor.fact('Document #')})"


def job_reference(job: dict[str, str]) -> str:
    """The appeal's reference on the item: the fax job that carried it."""
    return f"FAXJOB-{job['job_id']}"  # the item takes 6-20 letters, digits or dashes


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    reasons = ""
    keys = enclosures(work)
    titles = [LETTER_TITLE] + ["the addendum" for _ in keys[1:]]
    if work.doing("review_denial"):
        ehr_denials.open_denial_item(work)
        ehr_denials.open_claim(work)
        reasons = denial_facts.denial_reasons(work)
        ehr_denials.open_remittance(work)
        denial_facts.read_payer_notice(work)
        for index, key in enumerate(keys[1:], start=1):  # the addendum that corrects the letter
            ehr_denials.open_chart_document(work, key)
            titles[index] = open_document_label(work)
    if work.doing("check_portal"):
        portal = denial_facts.portal_claim(work, work.need("claim_number"))
        if portal["passed"]:
            raise ScriptFailed(f"the appeal deadline has passed: {portal}")
    job: dict[str, str] = {}
    if work.doing("send_fax"):
        files = []
        for index, key in enumerate(keys):
            ehr_denials.open_chart_document(work, key)
            # the shared download gesture waits for a download a loaded machine reports late
            files.append(ehr_steps.click_to_download(work, "a.pv-btn[download]", work.ids["documents"][key]))
            titles[index] = open_document_label(work)
        payer = portal_a.payer_name(denial_facts.denied_claim_payer(work))
        fax_steps.compose_to_contact(work, payer, APPEALS_LINE)
        re_line = f"{work.patient_name}, DOB {work.patient['dob']}, member {work.need('member_id')}"
        fax_steps.fill_cover(work, attention="Provider Appeals Unit", re_line=re_line,
                             comments=cover_comments(work, reasons, titles))
        for name in files:
            fax_steps.attach(work, name)
        job = fax_steps.send(work)
        work.notes.update(fax_job=job["job_id"])
    today = work.task.now.date()
    follow_up = today + timedelta(days=FOLLOW_UP_DAYS)
    if work.doing("record_appeal"):
        work.need("fax_job")
        ehr_denials.record_appeal(work, reference=job_reference(job), submitted_on=today, follow_up=follow_up)
        work.notes["appeal_recorded"] = "yes"
    if work.doing("explain"):
        work.need("appeal_recorded")  # the note gives the item's reference and follow-up date
        ehr_denials.add_item_note(work, explain_note(work, job, titles, f"{follow_up:%m/%d/%Y}"))
    sent = f"faxed to {job['to_number']} (fax job {job['job_id']})" if job else "not sent"
    work.finish(f"The appeal of claim {work.notes.get('claim_number', '')} was {sent}, the payer's Provider Appeals "
                f"line, because its notice asks for paper; nothing was filed in the portal. Enclosed: "
                f"{'; '.join(titles)}. The Denials item is {APPEAL_FILED}; follow up on {follow_up:%m/%d/%Y}.")
