"""Reference solution of template appeals/diagnosis_coverage: a test line denied CO-167 or CO-11
for a diagnosis the payer's coverage policy for the test does not list. Read the item, the claim's
line (its diagnoses), the remittance and the encounter note of the date of service (its PDF's
text), then the claim's remittance on portal A and the payer's provider manual, whose chapter on
diagnosis coverage lists each test's covered ICD-10-CM codes. Only the note's assessment counts
(the problem list is never read for codes): a listed condition it documents goes first on the
line of one corrected claim, recorded as Corrected Claim Sent; none documented: file nothing,
Write-off Requested with a note.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import portal_a
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

WRITE_OFF = "Write-off Requested"
CHAPTER = "Diagnosis coverage of laboratory and vascular tests"
DIAGNOSIS_DENIALS = ("CO-167", "CO-11")
# The codes a physician writes beside each assessed condition: "palpitations (R00.2)".
ASSESSED_CODE = re.compile(r"\(([A-Z]\d{2}(?:\.[0-9A-Z]{1,4})?)\)")
ICD10_CODE = re.compile(r"[A-Z]\d[0-9A-Z]*(?:\.[0-9A-Z]+)?")


def review(work: Work) -> None:
    """The item, the claim's one test line and its diagnoses, the remittance and the note's text."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    lines = steps.read_claim_lines(work)
    if len(lines) != 1 or not any(code in lines[0]["adjustments"] for code in DIAGNOSIS_DENIALS):
        raise ScriptFailed(f"expected one test line denied CO-167 or CO-11: {lines}")
    work.notes.update(test_code=lines[0]["code"], billed_diagnoses=lines[0]["diagnoses"])
    ehr_denials.open_remittance(work)
    work.notes["waivers"] = [row["Title"] for row in ehr_denials.chart_documents(work)
                             if "waiver" in f"{row['Type']} {row['Title']}".lower()]
    work.notes["visit_note"] = ehr_denials.read_chart_document(work, "visit")


def covered_prefixes(chapter: str, code: str) -> list[str]:
    """The ICD-10-CM codes or categories the manual's chapter lists as covered for `code`."""
    found = re.search(rf"\b{code} [^:]+: covered for ICD-10-CM codes beginning with (.+?)\.(?: |$)", chapter)
    if found is None:
        raise ScriptFailed(f"the manual lists no covered diagnoses for {code}: {chapter[:400]}")
    return ICD10_CODE.findall(found.group(1))


def check_policy(work: Work) -> None:
    """The claim's remittance at the payer, then the payer's covered-diagnosis list for the test."""
    steps.check_claim(work, "a", work.need("claim_number"))
    payer_id = portal_a.PAYER_IDS[work.need("payer")]
    chapter = portal_a.manual_chapter(work, payer_id, CHAPTER)
    work.notes["covered"] = ", ".join(covered_prefixes(chapter, work.need("test_code")))


def documented_covered(work: Work) -> str | None:
    """The first condition the note's assessment codes that the payer's list covers, or None."""
    note = work.need("visit_note")
    assessment = note.split("Assessment and plan:", 1)[-1]
    prefixes = work.need("covered").split(", ")
    return next((code for code in ASSESSED_CODE.findall(assessment) if code.startswith(tuple(prefixes))), None)


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if work.doing("check_policy"):
        check_policy(work)
    n = work.notes
    if "visit_note" not in n or "covered" not in n:
        work.finish("Nothing changed: the note of the date of service and the payer's policy were not both read.")
        return
    code = documented_covered(work)
    where = f"claim {n['claim_number']} (DOS {n['service_date']}, test {n['test_code']})"
    head = (f"{where} was denied {n['denials']}: billed with {n['billed_diagnoses']}, which {n['payer']}'s coverage "
            f"policy for {n['test_code']} does not list (covered: {n['covered']}). ")
    if code is None:
        if n["waivers"]:
            raise ScriptFailed(f"a member waiver is in the chart ({n['waivers']}): its rule decides, not worked here")
        note = head + ("The encounter note of the date of service documents no covered condition (routine screening "
                       "only), so no diagnosis may be added: nothing corrected or appealed. The chart holds no signed "
                       "waiver for the test, so the patient is not billed. Request: write off the balance.")
        if work.doing("record_write_off"):
            ehr_denials.set_item_status(work, WRITE_OFF)
        if work.doing("explain"):
            ehr_denials.add_item_note(work, note)
        work.finish(note + f" Denial item set to {WRITE_OFF}.")
        return
    change = steps.Replacement(
        reason=f"Primary diagnosis of the {n['test_code']} line changed from {n['billed_diagnoses']} to {code}, the "
               f"condition the physician documented at the visit of the date of service; denied {n['denials']} for "
               "its diagnosis. Nothing else changed.",
        diagnoses=code)
    if work.doing("send_correction"):
        work.need("portal_status")
        steps.submit_replacement(work, "a", n["claim_number"], change)
    if work.doing("record_correction"):
        steps.record_on_item(work, work.need("corrected_number"))
    if work.doing("explain"):
        work.need("corrected_number")
        ehr_denials.add_item_note(
            work, head + f"The encounter note of the date of service documents {code}, a covered diagnosis. Sent "
                         f"corrected claim {change.shown['number']} (frequency 7) with {code} as the primary diagnosis, "
                         f"status {change.shown['status']}. Follow up on {steps.follow_up_day(work):%m/%d/%Y} for its "
                         "payment.")
    work.finish(f"Corrected claim {n.get('corrected_number', '(none)')} ({n.get('corrected_status', '')}) bills "
                f"{n['test_code']} of {where} with {code}, documented in the visit note of the date of service. The "
                f"item is {steps.CORRECTED_CLAIM_SENT} with a follow-up on {steps.follow_up_day(work):%m/%d/%Y}.")
