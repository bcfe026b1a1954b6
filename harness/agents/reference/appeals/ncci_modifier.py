"""Reference solution of template appeals/ncci_modifier: one line of a two-line claim denied CO-97
as included in the other line's procedure on the same day. Read the item, the claim's lines, the
remittance, and the note of the date of service (its PDF's text), then the claim on Keystone's
portal. An office visit is separately payable with modifier 25 when the note's plan takes up a
new problem beside the procedure; a procedure pair's column-2 code (a biopsy beside lesion
destruction) with XS when the note documents a separate lesion. Then one corrected claim adding
the modifier to the denied line, recorded as Corrected Claim Sent; otherwise file nothing,
Write-off Requested.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

WRITE_OFF = "Write-off Requested"
OFFICE_VISIT = re.compile(r"^992\d\d$")


@dataclass(frozen=True)
class Edit:
    """How the note shows a bundled line is separately payable, and the modifier that says so."""

    separate: re.Pattern
    modifier: str
    line_words: str  # the denied line, as the note and the letters name it
    separate_words: str  # what the note documents when the modifier applies
    same_words: str  # what it documents when the bundling stands


VISIT = Edit(re.compile(r"\bnew problem\b", re.IGNORECASE), "25", "visit line",
             "a separate problem", "only the procedure's own assessment, no separate problem")
PAIR = Edit(re.compile(r"(?<!no )\bseparate lesion\b", re.IGNORECASE), "XS", "biopsy line",
            "a biopsy of a separate lesion", "a biopsy of a lesion that was then destroyed, the same lesion")


def review(work: Work) -> None:
    """The item, the claim's lines (one of two denied CO-97), the remittance and the note's text."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    lines = steps.read_claim_lines(work)
    denied = [index for index, line in enumerate(lines) if "CO-97" in line["adjustments"]]
    if len(lines) != 2 or len(denied) != 1:
        raise ScriptFailed(f"expected one of two lines denied CO-97: {lines}")
    bundled, other = lines[denied[0]], lines[1 - denied[0]]
    work.notes.update(bundled_line=denied[0], bundled_code=bundled["code"], other_code=other["code"])
    ehr_denials.open_remittance(work)
    work.notes["visit_note"] = ehr_denials.read_chart_document(work, "visit")


def separate_service(work: Work, edit: Edit) -> str | None:
    """What the note documents as separate from the procedure, in its own words, or None."""
    note = work.need("visit_note")
    found = edit.separate.search(note)
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
        work.finish("Nothing changed: the note of the date of service was not read.")
        return
    edit = VISIT if OFFICE_VISIT.match(n["bundled_code"]) else PAIR
    separate = separate_service(work, edit)
    where = f"claim {n['claim_number']} (DOS {n['service_date']})"
    line = f"{edit.line_words} {n['bundled_code']} (line {n['bundled_line'] + 1})"
    if separate is None:
        if work.doing("record_write_off"):
            ehr_denials.set_item_status(work, WRITE_OFF)
        if work.doing("explain"):
            ehr_denials.add_item_note(
                work, f"The {line} of {where} was denied {n['denials']}: included in the same day's procedure "
                      f"{n['other_code']}. The note documents {edit.same_words}, so modifier {edit.modifier} does "
                      f"not apply. Nothing filed; the line is a contractual write-off, not billed to the patient. "
                      f"Write-off requested.")
        work.finish(f"The {line} of {where} was correctly bundled into {n['other_code']} (the note documents "
                    f"{edit.same_words}). Nothing was filed; the item is {WRITE_OFF}.")
        return
    change = steps.Replacement(
        reason=f"Added modifier {edit.modifier} to the {line}, denied CO-97 as part of {n['other_code']}: the note "
               f"documents {edit.separate_words} ({separate}). Nothing else changed.",
        line=n["bundled_line"], modifiers=edit.modifier)
    if work.doing("send_correction"):
        work.need("portal_status")
        steps.submit_replacement(work, "b", n["claim_number"], change)
    if work.doing("record_correction"):
        steps.record_on_item(work, work.need("corrected_number"))
    if work.doing("explain"):
        work.need("corrected_number")
        ehr_denials.add_item_note(
            work, f"The {line} of {where} was denied {n['denials']} as bundled into {n['other_code']}. The note "
                  f"documents {edit.separate_words} ({separate}), so the line is separately billable with modifier "
                  f"{edit.modifier}. Sent corrected claim {change.shown['number']} (frequency 7) adding "
                  f"{edit.modifier} to it, status {change.shown['status']}. Follow up on "
                  f"{steps.follow_up_day(work):%m/%d/%Y} for its payment.")
    work.finish(f"Corrected claim {n.get('corrected_number', '(none)')} ({n.get('corrected_status', '')}) adds "
                f"modifier {edit.modifier} to the {line} of {where}: the note documents {edit.separate_words} "
                f"({separate}). The item is {steps.CORRECTED_CLAIM_SENT} with a follow-up on "
                f"{steps.follow_up_day(work):%m/%d/%Y}.")
