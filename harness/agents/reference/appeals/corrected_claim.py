"""Reference solution of template appeals/corrected_claim: a clerical billing error (a
missing modifier, a wrong diagnosis, a missing authorization number, the code of a cancelled
order) is fixed with one corrected claim (frequency code 7) in the payer's portal, not an
appeal, and recorded on the Denials item.

What was billed wrong is found the way a biller finds it: the denied line on the EHR claim
against the order it bills (and the chart document or the faxed outside report that says
what was performed). Only that is changed on the replacement.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from admindesk.harness.agents.reference import fax_steps
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

LATERALITY_MODIFIERS = {"right": "RT", "left": "LT", "bilateral": "50"}
MODIFIER_CARC = "4"  # the procedure code is inconsistent with the modifier, or a required modifier is missing


def laterality(work: Work, notes: dict[str, str]) -> str:
    """The side the service was done on: the order's description ("..., right"), else the
    title of a chart document that was read."""
    texts = [notes["order_description"].rsplit(",", 1)[-1]] + [
        value for key, value in notes.items() if key.startswith("doc_") and key.endswith("_title")]
    for text in texts:
        words = set(re.findall(r"[a-z]+", text.lower()))
        sides = [side for side in LATERALITY_MODIFIERS if side in words]
        if len(sides) == 1:
            return sides[0]
    raise ScriptFailed(f"neither the order nor the chart documents name a side: {texts}")


def read_outside_report(work: Work) -> dict[str, str]:
    """The outside report about the patient in the fax inbox: found by the number the imaging
    center faxes from, opened, downloaded and read (its "Exam performed: CPT nnnnn" line);
    returns its title and the performed code."""
    name = work.patient_name
    number = fax_steps.case_fax_number(work, work.case["faxes"][0]["key"])
    row, _, text = fax_steps.find_fax(work, number, lambda page: name in page and "performed" in page,
                                      f"a report about {name}")
    performed = re.search(r"performed:\s*CPT\s*(\w+)", text)
    if performed is None:
        raise ScriptFailed(f"the faxed report {row['fax_id']} names no performed CPT code")
    title = f"fax {row['fax_id']} from {row['from_number']} received {row['received']}"
    return {"report_subject": title, "report_code": performed.group(1), "report_fax": row["fax_id"]}


def review(work: Work) -> None:
    """The Denials item, the claim and its line, the remittance's codes, the order behind the
    claim, the order's chart documents and an outside report in the fax inbox."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    lines = steps.read_claim_lines(work)
    if len(lines) != 1:
        raise ScriptFailed(f"this solution corrects one-line claims; the claim has {len(lines)} lines")
    work.notes.update({f"billed_{key}": value for key, value in lines[0].items()})
    ehr_denials.open_remittance(work)
    ehr_denials.back_to_claim(work)
    ehr_denials.open_order_from_claim(work)
    work.notes.update(steps.read_order(work))
    for document in work.case.get("documents", []):
        if document.get("order") == "svc":
            ehr_denials.open_chart_document(work, document["key"])
    if work.ids.get("faxes"):
        work.notes.update(read_outside_report(work))


def correction(work: Work) -> tuple[steps.Replacement, str]:
    """What the replacement changes, and what was billed wrong (in words), from what was read."""
    notes = work.notes
    code, billed_code = work.need("order_code"), notes["billed_code"]
    denial = notes["denials"]
    if notes.get("report_code", code) != code:
        raise ScriptFailed(f"the faxed report says CPT {notes['report_code']} was performed, the order says {code}")
    if billed_code != code:
        wrong = (f"line 1 billed CPT {billed_code}, the code of the cancelled original order, but the order on the "
                 f"claim ({notes['order_id']}, {notes['order_status']}) is CPT {code}, {notes['order_description']}, "
                 "which is what was performed")
        if "report_code" in notes:
            wrong += (f"; the imaging center's faxed report ({notes['report_fax']}, {notes['report_subject']}) "
                      f"confirms CPT {code} was performed")
        return steps.Replacement(reason=f"Corrects line 1 procedure code from {billed_code} to {code}, the service "
                                        f"performed, in answer to the {denial} denial. Nothing else changed.", code=code), wrong
    if MODIFIER_CARC in notes["carcs"].split(", "):
        side = laterality(work, notes)
        modifier = LATERALITY_MODIFIERS[side]
        present = [m.strip() for m in notes["billed_modifiers"].split(",") if m.strip()]
        if modifier in present:
            raise ScriptFailed(f"the line already carries {modifier}; the CO-4 has another cause")
        wrong = (f"line 1 (CPT {billed_code}) was billed without a laterality modifier although the service was on "
                 f"the {side} side")
        return steps.Replacement(reason=f"Adds modifier {modifier} ({side} side) to line 1, CPT {billed_code}, in "
                                        f"answer to the {denial} denial. Nothing else changed.",
                                 modifiers=", ".join(present + [modifier])), wrong
    diagnoses = notes["order_diagnoses"]
    if set(diagnoses.split(", ")) != set(notes["billed_diagnoses"].replace(",", " ").split()):
        wrong = (f"line 1 carried diagnosis {notes['billed_diagnoses']} instead of the order's "
                 f"diagnosis {diagnoses}")
        return steps.Replacement(reason=f"Replaces diagnosis {notes['billed_diagnoses']} with {diagnoses}, the "
                                        f"order's diagnosis, in answer to the {denial} denial. Nothing else changed.",
                                 diagnoses=diagnoses), wrong
    auth = notes.get("auth_number", "")
    if auth and notes["claim_auth"] in ("", "None"):
        wrong = f"the claim went out without the authorization number {auth} that is on file for the order"
        return steps.Replacement(reason=f"Adds authorization number {auth}, approved for this service, in answer to "
                                        f"the {denial} denial. Nothing else changed.", auth_number=auth), wrong
    raise ScriptFailed(f"no billing error found between the claim and its order: {notes}")


def note_text(work: Work, change: steps.Replacement, wrong: str) -> str:
    """The item note: the denial, what was wrong, what the corrected claim changed, its number
    and status, and the follow-up."""
    notes = work.notes
    return (f"Claim {notes['claim_number']} ({notes['payer']}, member {notes['member_id']}, date of service "
            f"{notes['service_date']}) was denied {notes['denials']} (remittance {notes['remittance_id']}, "
            f"{notes['paid_on']}). Billing error: {wrong}. Sent a corrected claim (frequency code 7, replacement; "
            f"not an appeal) on the payer's portal: {change.reason} Corrected claim {change.shown['number']}, "
            f"status {change.shown['status']}. Item set to {steps.CORRECTED_CLAIM_SENT}; follow up on "
            f"{steps.follow_up_day(work):%m/%d/%Y} for the payment of the replacement claim.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    def plan(work: Work) -> tuple[steps.Replacement, Callable[[], str]]:
        change, wrong = correction(work)
        return change, lambda: note_text(work, change, wrong)

    change = steps.work_the_denial(work, review, plan)
    work.finish(f"Sent a corrected claim (frequency code 7, a replacement, not an appeal) for claim "
                f"{work.notes.get('claim_number', '(unknown)')}: {change.reason} The payer gave corrected claim "
                f"number {work.notes.get('corrected_number', '(none)')}, status "
                f"{work.notes.get('corrected_status', '(none)')}. The Denials item is set to "
                f"{steps.CORRECTED_CLAIM_SENT} with that number and a follow-up on {steps.follow_up_day(work):%m/%d/%Y}.")
