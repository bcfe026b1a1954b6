"""Reading a denied claim's facts off the screens, for the appeals templates that decide
from them (past deadline, duplicate, fax appeal): the denied lines' reasons on the EHR's
claim page, the payer's letter in the fax inbox, and the same claim (deadline, appeals on
file) in the payer's portal. The EHR navigation itself is in ehr_denials.py.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import fax_steps, portal_a, portal_b
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"  # Keystone Mutual's claims are on its own portal (B); the others on portal A
# A claim page's denial paragraph: "Line 1 (64483) denied: CO-50 – <reason> [Remark ...]".
DENIED_LINE = re.compile(r"Line (?P<line>\d+) \((?P<service>[^)]+)\) denied: (?P<code>[A-Z]{2}-\w+) \u2013 (?P<reason>.+)")


def denied_claim_payer(work: Work) -> str:
    """The payer id of the coverage the denied claim was billed to (what the coordinator is handed)."""
    denied = next(claim for claim in work.case["claims"] if claim["key"] == "denied")
    return next(c["payer"] for c in work.case["coverages"] if c["key"] == denied["coverage"])


def denial_reasons(work: Work) -> str:
    """The open EHR claim page's denied lines with their reasons, e.g. "CO-50 on line 1
    (64483): These are non-covered services ..." (what a note should spell out)."""
    reasons = []
    for paragraph in work.env.page_locator("section[aria-labelledby='den-h'] p:has(strong)").all_inner_texts():
        match = DENIED_LINE.match(" ".join(paragraph.split()))
        if match:
            reasons.append(f"{match['code']} on line {match['line']} ({match['service']}): {match['reason']}")
    if not reasons:
        raise ScriptFailed(f"the claim page shows no denied line: {work.actor.text('main')[:300]}")
    return "; ".join(reasons)


def read_payer_notice(work: Work) -> str:
    """Find the payer's letter about this patient in the fax inbox by the number it came from,
    read its pages; returns its title line (the "Re:" line the letter opens with)."""
    spec = work.case["faxes"][0]
    name = work.patient_name
    row, _, text = fax_steps.find_fax(work, fax_steps.case_fax_number(work, spec["key"]), lambda page: name in page,
                                      f"a letter about {name}")
    work.notes.update(notice_id=row["fax_id"], notice_received=row["received"])
    title = re.search(r"Re:\s*([^\n]+)", text)
    return title.group(1).strip() if title else f"fax {row['fax_id']}"


def portal_claim(work: Work, claim_number: str) -> dict:
    """The claim in its payer's portal: status, remittance tab (amount and date paid, the
    appeal deadline and whether the portal marks it passed), then its appeals tab; returns
    what they show (status and deadline also into work.notes: portal_status, portal_deadline)."""
    actor = work.actor
    if denied_claim_payer(work) == KEYSTONE:
        portal_b.open_claim(work, claim_number, "eob")
        shown = actor.fact("Appeal Filing Deadline")
        facts = {"name": "Keystone Mutual's provider portal", "status": portal_b.claim_status(work),
                 "deadline": shown.split()[0], "passed": "Filing limit passed" in shown,
                 "paid": actor.fact("Amount Paid"), "paid_on": actor.fact("Processed / Paid On")}
        actor.click(f"nav[aria-label='Claim sections'] a:has-text('{portal_b.CLAIM_TABS['appeals']}')")
        facts["appeals"] = portal_b.appeals_on_claim(work)
    else:
        portal_a.open_claim(work, claim_number, "remittance")
        shown = actor.fact("Appeal deadline")
        facts = {"name": "Payer Portal A", "status": portal_a.claim_status(work),
                 "deadline": shown.split()[0], "passed": "Deadline passed" in shown,
                 "paid": actor.fact("Amount paid"), "paid_on": actor.fact("Paid on")}
        actor.click(f"ul.tabs-local a:has-text('{portal_a.CLAIM_TABS['appeals']}')")
        facts["appeals"] = portal_a.appeals_on_claim(work)
    work.notes.update(portal_status=facts["status"], portal_deadline=facts["deadline"])
    return facts
