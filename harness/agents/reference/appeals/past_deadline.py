"""Reference solution of template appeals/past_deadline: the payer's appeal window has
closed. Read the denial and its deadline in the EHR (and the payer's reminder letter in the
fax inbox when there is one), confirm the deadline and the empty appeal history in the
payer's portal, file nothing anywhere, write down why and set the Denials item to
Write-off Requested.
"""
from __future__ import annotations

from admindesk.harness.agents.reference.appeals import denial_facts, ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

WRITE_OFF = "Write-off Requested"


def portal_finding(portal: dict) -> str:
    """What the payer's portal showed, in a sentence."""
    history = "no appeal on file" if not portal["appeals"] else f"appeals on file: {'; '.join(portal['appeals'])}"
    flag = ", marked as passed" if portal["passed"] else ""
    return f"{portal['name']} shows claim status {portal['status']}, appeal deadline {portal['deadline']}{flag}, {history}"


def stop_note(work: Work, reasons: str, portal: dict, notice: str) -> str:
    """The note a colleague reads: the denial, the deadline and where it was found, today's
    date, that nothing was filed, and who must act on the balance."""
    claim = work.notes
    deadline = parse_us_date(claim["appeal_deadline"])
    today = work.task.now.date()
    letter = (f" The payer's letter in the fax inbox ({notice}) only restates the appeal rights (appeals "
              f"received after the filing limit cannot be accepted); it does not reopen the window.") if notice else ""
    group = claim["denials"].split("-")[0]
    return (f"Claim {claim['claim_number']} for {work.patient_name} (DOB {work.patient['dob']}), {claim['payer']} "
            f"member {claim['member_id']}, date of service {claim['service_date']}, billed {claim['billed']}: "
            f"denied {reasons}. The remittance (EOB) {claim['remittance_id']} dated {claim['paid_on']} gives an "
            f"appeal deadline of {deadline.isoformat()} ({claim['appeal_deadline']}); {portal_finding(portal)}. "
            f"Today is {today.isoformat()}, {(today - deadline).days} days after that deadline, so the appeal "
            f"window has passed.{letter} No appeal, reconsideration, corrected claim or fax was filed. Request: "
            f"the revenue cycle supervisor to approve writing off the {claim['billed']} balance as a contractual "
            f"({group}) adjustment, or to escalate if an exception applies; the patient is not to be billed for "
            f"this contractual denial. Item set to {WRITE_OFF}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    reasons = notice = ""
    if work.doing("review_denial"):
        ehr_denials.open_denial_item(work)
        ehr_denials.open_claim(work)
        reasons = denial_facts.denial_reasons(work)
        ehr_denials.open_remittance(work)
        if work.ids.get("faxes"):
            notice = denial_facts.read_payer_notice(work)
    portal: dict = {}
    if work.doing("confirm_deadline"):
        portal = denial_facts.portal_claim(work, work.need("claim_number"))
        if not portal["passed"]:
            raise ScriptFailed(f"the payer's portal shows the appeal window still open: {portal}")
    if work.doing("document_stop"):
        work.need("portal_deadline")  # the note reports what the portal confirmed
        ehr_denials.add_item_note(work, stop_note(work, reasons, portal, notice))
        work.notes["stop_documented"] = "yes"
    if work.doing("close_item"):
        work.need("stop_documented")  # a write-off request goes up only with its reason written down
        ehr_denials.set_item_status(work, WRITE_OFF)
    work.finish(f"Nothing was filed: the payer's appeal deadline ({work.notes.get('appeal_deadline', 'unknown')}) "
                f"had passed before today ({work.task.now.date():%m/%d/%Y}), as the remittance and the payer's "
                f"portal show. The Denials item for claim {work.notes.get('claim_number', '(unknown)')} is set to "
                f"{WRITE_OFF} with a note asking the supervisor to approve the write-off.")
