"""Gestures the corrected-claim solutions share (appeals/corrected_claim and
appeals/cob_corrected_claim): read a claim's lines and its order in the EHR, look the claim
up in its payer's portal, submit one replacement claim (frequency code 7) there, and record
it on the Denials item.

Which portal: Keystone Mutual's claims are on its own portal (B), every other payer's on
the clearinghouse portal (A), as the payer on the EHR claim page says.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from admindesk.harness.agents.reference import portal_a, portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE_NAME = "Keystone Mutual Health"
CORRECTED_CLAIM_SENT = "Corrected Claim Sent"
ACCEPTED = ("Accepted", "Processed", "Processed as secondary")  # portal A's, then Keystone's answers
FOLLOW_UP_DAYS = 30  # a replacement claim is adjudicated within a payment cycle or two
LINE_COLUMNS = ("line", "code", "modifiers", "units", "diagnoses", "billed", "paid", "adjustments")


def portal_of(payer: str) -> str:
    """"b" for Keystone Mutual (its own portal), "a" for every payer of the clearinghouse portal."""
    return "b" if payer == KEYSTONE_NAME else "a"


def money(text: str) -> float:
    """An amount as the screens show it ("$1,234.50") as a number."""
    cleaned = text.replace("$", "").replace(",", "").strip()
    if not re.fullmatch(r"-?\d+(\.\d+)?", cleaned):
        raise ScriptFailed(f"not an amount: {text!r}")
    return float(cleaned)


def read_claim_lines(work: Work) -> list[dict[str, str]]:
    """The open EHR claim page's service lines: line, code, modifiers, units, diagnoses,
    billed, paid and adjustments, as shown."""
    rows = work.env.page_locator("xpath=//table[caption[normalize-space()='Service lines and adjustments']]"
                                 "/tbody/tr").all()
    lines = [dict(zip(LINE_COLUMNS, (cell.inner_text().strip() for cell in row.locator("td").all())))
             for row in rows]
    if not lines:
        raise ScriptFailed(f"the claim page shows no service lines: {work.actor.text('main')[:300]}")
    return lines


def read_order(work: Work) -> dict[str, str]:
    """The open EHR order page: code, description, diagnosis codes (comma-separated) and status."""
    actor = work.actor
    diagnoses = [line.split()[0] for line in actor.fact("Diagnoses").splitlines() if line.strip()]
    return {"order_code": actor.fact("Code").split()[0], "order_description": actor.fact("Description").splitlines()[0],
            "order_diagnoses": ", ".join(diagnoses), "order_status": actor.fact("Order status")}


# ---- the payer's portal ----------------------------------------------------------------
def check_claim(work: Work, portal: str, claim_number: str) -> dict[str, str]:
    """The claim in its payer's portal, on its remittance (EOB) tab: status and the deadline
    shown there; stored in work.notes as portal_status and portal_deadline."""
    actor = work.actor
    if portal == "b":
        portal_b.open_claim(work, claim_number, "eob")
        facts = {"portal_status": portal_b.claim_status(work), "portal_deadline": actor.fact("Appeal Filing Deadline")}
    else:
        portal_a.open_claim(work, claim_number, "remittance")
        facts = {"portal_status": portal_a.claim_status(work), "portal_deadline": actor.fact("Appeal deadline")}
    work.notes.update(facts)
    return facts


@dataclass
class Replacement:
    """What a replacement claim changes (None: keep what the original claim carried) and why."""

    reason: str
    line: int = 0  # the service line (0-based) that `code` and `modifiers` change
    code: str | None = None
    modifiers: str | None = None
    diagnoses: str | None = None
    auth_number: str | None = None
    primary_payer: str | None = None
    primary_paid: float | None = None
    eob_file: str | None = None
    ndc: tuple[str, str, float] | None = None  # on `line`: the 11-digit NDC (5-4-2), unit of measure, quantity
    shown: dict[str, str] = field(default_factory=dict)  # the payer's answer: number, status, detail


def _open_correction_form(work: Work, portal: str, claim_number: str) -> None:
    actor = work.actor
    link = "main a:text-is('Submit a Corrected Claim')" if portal == "b" else "main a:text-is('Submit corrected claim')"
    if portal == "b":
        portal_b.open_portal_b(work)
    else:
        portal_a.open_portal_a(work)
    if not actor.count(link):
        (portal_b if portal == "b" else portal_a).open_claim(work, claim_number)
    actor.click(link)
    if claim_number not in actor.text("main h1"):
        raise ScriptFailed(f"the corrected-claim form is not for {claim_number}: {actor.text('main h1')!r}")


def submit_replacement(work: Work, portal: str, claim_number: str, change: Replacement) -> dict[str, str]:
    """Open the claim's corrected-claim form (pre-filled from the original), choose frequency
    code 7, change only what `change` names (on its line), submit; returns the payer's answer
    (number, status, detail) and keeps it in change.shown. ScriptFailed unless the payer
    accepted it."""
    actor = work.actor
    _open_correction_form(work, portal, claim_number)
    actor.select_containing("select[name=frequency_code]", "7 - Replacement")
    if change.code:
        actor.fill(f"input[name=lines-{change.line}-code]", change.code)
    if change.modifiers is not None:
        actor.fill(f"input[name=lines-{change.line}-modifiers]", change.modifiers)
    if change.ndc:
        ndc, unit, quantity = change.ndc
        actor.fill(f"input[name=lines-{change.line}-ndc_qualifier]", "N4")
        actor.fill(f"input[name=lines-{change.line}-ndc]", ndc)
        actor.fill(f"input[name=lines-{change.line}-ndc_unit]", unit)
        actor.fill(f"input[name=lines-{change.line}-ndc_quantity]", f"{quantity:g}")
    if change.diagnoses:
        actor.fill("input[name=diagnosis_codes]" if portal == "b" else "input[name=lines-0-diagnosis_codes]",
                   change.diagnoses)
    if change.auth_number:
        actor.fill("input[name=authorization_number]" if portal == "b" else "input[name=auth_number]",
                   change.auth_number)
    if change.primary_payer and portal == "b":
        actor.fill("input[name=primary_payer]", change.primary_payer)
    if change.primary_paid is not None:
        actor.fill("input[name=primary_paid_amount]", f"{change.primary_paid:.2f}")
    if change.eob_file:
        actor.upload("input[name=primary_eob]", change.eob_file)
    actor.fill("textarea[name=correction_reason]" if portal == "b" else "input[name=correction_reason]",
               change.reason)
    actor.submit_with("main form button[type=submit]")
    heading = actor.text("main h1")
    match = re.match(r"Corrected [Cc]laim (\S+)", heading)
    if not match:
        raise ScriptFailed(f"the corrected claim was refused: {actor.text('main')[:600]}")
    change.shown = {"number": match.group(1), "status": actor.fact("Status"),
                    "detail": actor.fact("Determination" if portal == "b" else "Detail")}
    if change.shown["status"] not in ACCEPTED:
        raise ScriptFailed(f"the payer did not accept corrected claim {change.shown['number']}: {change.shown}")
    work.notes.update(corrected_number=change.shown["number"], corrected_status=change.shown["status"])
    return change.shown


# ---- the EHR Denials item ----------------------------------------------------------------
def follow_up_day(work: Work) -> date:
    """When to look for the replacement's payment: FOLLOW_UP_DAYS after today (the task's clock)."""
    return work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS)


def record_on_item(work: Work, corrected_number: str) -> None:
    """The Denials item: Corrected Claim Sent, the corrected claim number as its reference,
    and a follow-up date."""
    ehr_denials.set_item_status(work, CORRECTED_CLAIM_SENT, follow_up=follow_up_day(work),
                                reference=corrected_number)
    shown = work.actor.fact("Appeal / corrected claim #")
    if shown != corrected_number:
        raise ScriptFailed(f"the item shows reference {shown!r}, not {corrected_number!r}")


def work_the_denial(work: Work, review: Callable[[Work], None],
                    plan: Callable[[Work], tuple[Replacement, Callable[[], str]]]) -> Replacement:
    """Both templates' subtasks in order, each under `work.doing`: review the denial, check the
    claim on the payer's portal, send the replacement `plan` works out, record it on the item,
    and leave the note `plan` words. Returns the replacement."""
    if work.doing("review_denial"):
        review(work)
    if work.doing("check_portal"):
        facts = check_claim(work, portal_of(work.need("payer")), work.need("claim_number"))
        if facts["portal_status"] != "Denied":
            raise ScriptFailed(f"the payer's portal shows the claim {facts['portal_status']}, not Denied")
    change, note = plan(work)
    if work.doing("send_correction"):
        work.need("portal_status")  # the portal's status says the claim can still be replaced
        submit_replacement(work, portal_of(work.notes["payer"]), work.notes["claim_number"], change)
    if work.doing("record_correction"):
        record_on_item(work, work.need("corrected_number"))
    if work.doing("explain"):
        work.need("corrected_number")
        ehr_denials.add_item_note(work, note())
    return change
