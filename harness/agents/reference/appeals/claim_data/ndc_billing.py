"""Reference solution of template appeals/ndc_billing: a physician-administered drug line denied
CO-16 with RARC M119 (the NDC missing). Read the item, the claim's lines, the remittance and the
administration record of the date of service (its PDF's text): the package NDC of the product
given, as printed (10 digits), and how many packages. Then the claim on Keystone's portal, and one
corrected claim whose drug line carries qualifier N4, the NDC in 11 digits (5-4-2: a leading zero in
the segment that is short) and the packages given as UN, its HCPCS units unchanged; recorded as
Corrected Claim Sent with a note.

The order's drug-master NDC is not read: what was given decides, and only the record says that.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

NDC_SEGMENTS = (5, 4, 2)  # labeler, product, package: the claim's 11-digit format
# "NDC 50242-061-01" as printed; a PDF line break may fall after a hyphen.
PRINTED_NDC = re.compile(r"NDC (\d{4,5})-\s?(\d{3,4})-\s?(\d{1,2})\b")
PACKAGES_GIVEN = re.compile(r"quantity (\d+) (?:vial|syringe|carton)s?\b", re.IGNORECASE)
PRODUCT = re.compile(r"Product administered[^:]*: (.+?), NDC ")


def eleven_digits(segments: tuple[str, str, str]) -> str:
    """A 10-digit NDC (4-4-2, 5-3-2 or 5-4-1) as 11 digits in 5-4-2, hyphenated: the short
    segment gets the leading zero."""
    if sum(map(len, segments)) != 10:
        raise ScriptFailed(f"not a 10-digit NDC: {'-'.join(segments)}")
    return "-".join(segment.zfill(width) for segment, width in zip(segments, NDC_SEGMENTS))


def review(work: Work) -> None:
    """The item, the drug line denied CO-16, the remittance and what the record says was given."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    lines = steps.read_claim_lines(work)
    denied = [index for index, line in enumerate(lines) if "CO-16" in line["adjustments"]]
    if len(denied) != 1:
        raise ScriptFailed(f"expected one line denied CO-16: {lines}")
    line = lines[denied[0]]
    work.notes.update(drug_line=denied[0], drug_code=line["code"], drug_units=line["units"])
    ehr_denials.open_remittance(work)
    if "M119" not in work.notes["rarcs"]:
        raise ScriptFailed(f"the remittance gives no M119 (NDC) remark: {work.notes['denials']}")
    record = ehr_denials.read_chart_document(work, "mar")
    printed, packages, product = PRINTED_NDC.search(record), PACKAGES_GIVEN.search(record), PRODUCT.search(record)
    if not (printed and packages and product):
        raise ScriptFailed(f"the administration record names no product, NDC or quantity: {record[:400]}")
    work.notes.update(printed_ndc="-".join(printed.groups()), ndc=eleven_digits(printed.groups()),
                      packages=int(packages.group(1)), product=product.group(1).strip())


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if work.doing("check_portal"):
        steps.check_claim(work, "b", work.need("claim_number"))
    n = work.notes
    if "ndc" not in n:
        work.finish("Nothing changed: the administration record was not read.")
        return
    line = f"{n['drug_code']} line (line {n['drug_line'] + 1}, {n['drug_units']} units)"
    given = f"{n['product']}, NDC {n['printed_ndc']} as printed, {n['packages']} given"
    change = steps.Replacement(
        reason=f"CO-16/M119 on the {line}: added the NDC of the product given per the administration record "
               f"({given}): N4 {n['ndc']}, {n['packages']} UN. HCPCS units unchanged; nothing else changed.",
        line=n["drug_line"], ndc=(n["ndc"], "UN", n["packages"]))
    if work.doing("send_correction"):
        work.need("portal_status")
        steps.submit_replacement(work, "b", n["claim_number"], change)
    if work.doing("record_correction"):
        steps.record_on_item(work, work.need("corrected_number"))
    if work.doing("explain"):
        work.need("corrected_number")
        ehr_denials.add_item_note(
            work, f"The {line} of claim {n['claim_number']} (DOS {n['service_date']}) was denied {n['denials']}: no "
                  f"NDC. The administration record shows {given}. Sent corrected claim {change.shown['number']} "
                  f"(frequency 7) with N4 {n['ndc']} (11-digit), {n['packages']} UN on that line, HCPCS units "
                  f"unchanged; status {change.shown['status']}. Follow up on {steps.follow_up_day(work):%m/%d/%Y} "
                  f"for its payment.")
    work.finish(f"The {line} of claim {n['claim_number']} was denied CO-16/M119 for a missing NDC. Corrected claim "
                f"{n.get('corrected_number', '(none)')} ({n.get('corrected_status', '')}) reports the product given "
                f"({given}) as N4 {n['ndc']}, {n['packages']} UN. The item is {steps.CORRECTED_CLAIM_SENT} with a "
                f"follow-up on {steps.follow_up_day(work):%m/%d/%Y}.")
