"""Reference solution of template appeals/member_waiver: a Keystone claim for a service the plan
does not cover (CARC 50, 96 or 204, group CO or PR). Read the item, the claim, its remittance and
the patient's signed financial forms in the chart (each scanned form ends with its signature
block: "Date signed: MM/DD/YYYY"), then Keystone's billing rule on its Reimbursement page: the
member may be billed only with a waiver signed before the service that names the service and its
estimated cost, whatever the group code. Such a waiver: file nothing, Patient Responsibility with
a note. None: file nothing, bill nothing, a note, then Write-off Requested.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

PATIENT_RESPONSIBILITY = "Patient Responsibility"
WRITE_OFF = "Write-off Requested"
NOT_COVERED_CARCS = {"50", "96", "204"}
SIGNED = re.compile(r"Date signed: (\d{2}/\d{2}/\d{4})")
RULE = "Valid advance member waiver"


def read_waiver(work: Work, code: str) -> dict[str, str]:
    """The chart's advance waiver: when it was signed and whether it names this service and its cost."""
    text = ehr_denials.read_chart_document(work, "waiver")
    signed = SIGNED.search(text)
    if signed is None:
        raise ScriptFailed(f"the waiver shows no signature date: {text[:300]}")
    cost = re.search(r"Estimated cost: (\$[\d,.]+\d)", text)
    return {"signed": signed.group(1), "names_service": str(f"CPT {code}" in text),
            "cost": cost.group(1) if cost else "", "title": work.need("doc_waiver_title")}


def review_denial(work: Work) -> None:
    """The item, the claim, its remittance (a non-covered service) and the signed forms in the chart."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    remittance = ehr_denials.open_remittance(work)
    if not NOT_COVERED_CARCS & set(remittance["carcs"].split(", ")):
        raise ScriptFailed(f"expected a non-covered service denial (CARC 50, 96 or 204): {remittance['denials']}")
    for key in work.ids["documents"]:  # the other forms on file (a general financial policy) are read too
        if key != "waiver":
            ehr_denials.open_chart_document(work, key)
    code = work.case["orders"][0]["code"]
    work.notes.update({f"waiver_{k}": v for k, v in read_waiver(work, code).items()}, code=code)


def check_rule(work: Work) -> None:
    """Keystone's Reimbursement page, where its rule on billing members for non-covered services is."""
    portal_b.open_portal_b(work)
    portal_b.stay_signed_in(work)
    work.actor.click("nav.sidebar a:has-text('Reimbursement & Fee Schedule')")
    portal_b.stay_signed_in(work)
    if RULE not in work.actor.text("main"):
        raise ScriptFailed("the Reimbursement page states no member waiver rule")
    work.notes["rule_read"] = "yes"


def waiver_faults(work: Work) -> list[str]:
    """What keeps the chart's waiver from meeting the payer's rule (none: it is valid)."""
    n = work.notes
    faults = []
    if parse_us_date(n["waiver_signed"]) > parse_us_date(n["service_date"]):
        faults.append(f"it was signed {n['waiver_signed']}, after the date of service {n['service_date']}")
    if n["waiver_names_service"] != "True":
        faults.append(f"it does not name CPT {n['code']}")
    if not n["waiver_cost"]:
        faults.append("it gives no estimated cost")
    return faults


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review_denial(work)
    if work.doing("check_rule"):
        check_rule(work)
    n = work.notes
    if "waiver_signed" not in n or "rule_read" not in n:
        work.finish("Nothing changed: the chart's waiver and the payer's rule were not both read.")
        return
    head = (f"Claim {n['claim_number']} (DOS {n['service_date']}, CPT {n['code']}, {n['billed']}) denied "
            f"{n['denials']} by {n['payer']}: a service the plan does not cover; an appeal changes nothing. "
            f"{n['payer']}'s rule (Reimbursement page, Non-Covered Services): the member may be billed only with an "
            f"advance waiver signed before the service naming the service and its estimated cost, whatever the group "
            f"code; a general financial policy does not count. ")
    faults = waiver_faults(work)
    if not faults:
        if work.doing("bill_patient"):
            ehr_denials.set_item_status(work, PATIENT_RESPONSIBILITY)
        note = head + (f"Chart: '{n['waiver_title']}' signed by the patient {n['waiver_signed']}, before the date of "
                       f"service, naming CPT {n['code']} with an estimated cost of {n['waiver_cost']}: a valid advance "
                       "waiver. Nothing filed; balance moved to patient responsibility.")
        if work.doing("explain"):
            ehr_denials.add_item_note(work, note)
        work.finish(note + f" Denial item set to {PATIENT_RESPONSIBILITY}.")
        return
    note = head + (f"Chart: '{n['waiver_title']}' (signed {n['waiver_signed']}) is not a valid advance waiver: "
                   f"{'; '.join(faults)}. The patient may not be billed. "
                   "Nothing filed, nothing billed to the patient. Request: write off the balance as a non-covered "
                   f"service adjustment ({n['denials']}).")
    if work.doing("document_write_off"):
        ehr_denials.add_item_note(work, note)
        n["write_off_documented"] = "yes"
    if work.doing("close_item"):
        work.need("write_off_documented")  # a write-off request goes up only with its reason written down
        ehr_denials.set_item_status(work, WRITE_OFF)
    work.finish(note + f" Denial item set to {WRITE_OFF}.")
