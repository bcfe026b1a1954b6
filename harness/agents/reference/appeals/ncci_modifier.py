"""Reference solution of template appeals/ncci_modifier: an office visit (line 1) denied CO-97
as bundled into the same day's procedure. Read the item, the claim's lines, the remittance,
and the visit note of the date of service (its PDF's text), then the claim on Keystone's
portal. A note whose plan takes up a new problem beside the procedure supports modifier 25:
one corrected claim adding it to the visit line, recorded as Corrected Claim Sent. A note
that only assesses the knee it injects does not: file nothing, Write-off Requested.
"""
from __future__ import annotations

import re

from pypdf import PdfReader

from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

# A plan that takes up a problem of its own, beside the procedure's.
SEPARATE_PROBLEM = re.compile(r"\bnew problem\b", re.IGNORECASE)
WRITE_OFF = "Write-off Requested"


def review(work: Work) -> None:
    """The item, the claim's lines (the visit on line 1 denied CO-97), the remittance and the
    visit note's text."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    lines = steps.read_claim_lines(work)
    if len(lines) != 2 or "CO-97" not in lines[0]["adjustments"]:
        raise ScriptFailed(f"expected a visit line denied CO-97 beside a procedure: {lines}")
    work.notes.update(visit_code=lines[0]["code"], procedure_code=lines[1]["code"],
                      procedure_modifiers=lines[1]["modifiers"])
    ehr_denials.open_remittance(work)
    file_name = ehr_denials.open_chart_document(work, "visit", download=True)
    text = " ".join(page.extract_text() or "" for page in PdfReader(work.env.downloads_dir / file_name).pages)
    work.notes["visit_note"] = " ".join(text.split())


def separate_problem(work: Work) -> str | None:
    """The new problem the visit note's plan takes up, in its own words, or None."""
    note = work.need("visit_note")
    found = SEPARATE_PROBLEM.search(note)
    if found is None:
        return None
    return note[found.end():].lstrip(": ").split(".")[0]


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if work.doing("check_portal"):
        steps.check_claim(work, "b", work.need("claim_number"))
    n = work.notes
    if "visit_note" not in n:
        work.finish("Nothing changed: the visit note was not read.")
        return
    problem = separate_problem(work)
    where = f"claim {n['claim_number']} (DOS {n['service_date']})"
    if problem is None:
        if work.doing("record_write_off"):
            ehr_denials.set_item_status(work, WRITE_OFF)
        if work.doing("explain"):
            ehr_denials.add_item_note(
                work, f"Visit line {n['visit_code']} of {where} denied {n['denials']}: included in the same day's "
                      f"procedure {n['procedure_code']}. The visit note documents only the procedure's own "
                      f"assessment of the knee injected, no separate problem, so modifier 25 does not apply. "
                      f"Nothing filed; the visit line is a contractual write-off, not billed to the patient. "
                      f"Write-off requested.")
        work.finish(f"The visit on {where} was correctly bundled into procedure {n['procedure_code']} (the note "
                    f"documents no separate problem). Nothing was filed; the item is {WRITE_OFF}.")
        return
    change = steps.Replacement(
        reason=f"Added modifier 25 to the office visit ({n['visit_code']}, line 1), denied CO-97 as part of "
               f"{n['procedure_code']}: the visit also evaluated and managed a separate problem ({problem}). "
               f"Nothing else changed.", modifiers="25")
    if work.doing("send_correction"):
        work.need("portal_status")
        steps.submit_replacement(work, "b", n["claim_number"], change)
    if work.doing("record_correction"):
        steps.record_on_item(work, work.need("corrected_number"))
    if work.doing("explain"):
        work.need("corrected_number")
        ehr_denials.add_item_note(
            work, f"Visit line {n['visit_code']} of {where} denied {n['denials']} as bundled into "
                  f"{n['procedure_code']}. The visit note documents a separate problem ({problem}), so the visit is "
                  f"separately billable with modifier 25. Sent corrected claim {change.shown['number']} (frequency "
                  f"7) adding 25 to line 1, status {change.shown['status']}. Follow up on "
                  f"{steps.follow_up_day(work):%m/%d/%Y} for its payment.")
    work.finish(f"Corrected claim {n.get('corrected_number', '(none)')} ({n.get('corrected_status', '')}) adds "
                f"modifier 25 to the visit line of {where}: the note documents a separate problem ({problem}). "
                f"The item is {steps.CORRECTED_CLAIM_SENT} with a follow-up on {steps.follow_up_day(work):%m/%d/%Y}.")
