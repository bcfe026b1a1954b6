"""Portal A (the multi-payer clearinghouse portal) gestures: sign in, eligibility."""
from __future__ import annotations

from datetime import date

from admindesk.harness.agents.reference.work import Work, us_date
from admindesk.harness.scripted import ScriptFailed

PORTAL_A_TAB = "Payer Portal A"
PAYER_NAMES = {"PYR-ACH": "Atlas Choice Health", "PYR-CSH": "Cascade Summit Health",
               "PYR-HSA": "Harborview Senior Advantage", "PYR-KMH": "Keystone Mutual Health",
               "PYR-NWH": "Northwind Health Plan", "PYR-PSM": "Prairie State Community Care",
               "PYR-SLH": "Silverline Health Partners"}


def payer_name(payer_id: str) -> str:
    """The payer's name as every app's payer lists show it."""
    if payer_id not in PAYER_NAMES:
        raise ScriptFailed(f"unknown payer {payer_id}")
    return PAYER_NAMES[payer_id]


def open_portal_a(work: Work) -> None:
    """Portal A in a new tab, signed in (once per episode)."""
    actor = work.actor
    if work.notes.get("portal_a_tab"):
        actor.switch_to_tab(int(work.notes["portal_a_tab"]))
        return
    actor.open_app(PORTAL_A_TAB, new_tab=True)
    actor.login()
    work.notes["portal_a_tab"] = str(len(work.env.chrome_layout().tabs) - 1)


def check_eligibility(work: Work, member_id: str, payer_id: str, service_day: date) -> str:
    """An eligibility inquiry on portal A; returns the status shown (Active, Inactive...)."""
    open_portal_a(work)
    actor = work.actor
    actor.click("nav.top-tabs a:has-text('Eligibility')")
    actor.select_option("select[name=payer_id]", payer_name(payer_id))
    actor.fill("input[name=dob]", us_date(work.patient["dob"]))
    actor.fill("input[name=service_date]", us_date(service_day))
    actor.fill("input[name=member_id]", member_id)
    actor.click("button:text-is('Submit inquiry')")
    if not actor.count("#coverage-heading"):
        raise ScriptFailed(f"the eligibility inquiry gave no result: {actor.text('main')[:400]}")
    return actor.text(".status")


CLAIM_TABS = {"remittance": "Remittance (EOB)", "appeals": "Appeals (", "timeline": "Status timeline"}


def open_claim(work: Work, claim_number: str, tab: str = "summary") -> None:
    """Claim Status, the claim by its number, then one of its tabs (summary, remittance,
    appeals, timeline)."""
    open_portal_a(work)
    actor = work.actor
    actor.click("nav.top-tabs a:has-text('Claim Status')")
    actor.fill("input[name=claim_number]", claim_number)
    actor.click("form[role=search] button:text-is('Search')")
    if actor.text("main h1").split()[:2] != ["Claim", claim_number]:
        raise ScriptFailed(f"portal A found no claim {claim_number}: {actor.text('main')[:300]}")
    if tab != "summary":
        actor.click(f"ul.tabs-local a:has-text('{CLAIM_TABS[tab]}')")


def claim_status(work: Work) -> str:
    """The open claim's status badge (Paid, Denied...)."""
    return work.actor.text("main h1 .status")


def appeals_on_claim(work: Work) -> list[str]:
    """The open claim's Appeals tab rows (their text); empty when none was filed."""
    rows = work.env.page_locator("main table.data tbody tr").all_inner_texts()
    return [row.strip() for row in rows if "No appeals filed" not in row]
