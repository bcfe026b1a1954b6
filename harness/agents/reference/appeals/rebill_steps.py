"""Billing a denied claim's service to another of the patient's coverages, the EHR claim
page's Bill another payer, shared by the solutions whose denial points to another payer
(other_payer: CO-109 with the denying payer's letter; coverage_ended: CO-27 with another
coverage in force on the date of service): find that coverage in registration, confirm its
eligibility for the date of service at its payer and verify it on the Coverage tab, bill the
new claim, record it on the Denials item.

Reads and writes `work.notes`: new_payer, new_plan, new_member (the coverage billed),
eligibility_reference, new_claim, new_claim_status.
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_steps, portal_a, portal_b
from admindesk.harness.agents.reference.appeals import corrected_claim_steps as steps, ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

BILLED_TO_OTHER_PAYER = "Billed to Other Payer"
FOLLOW_UP_DAYS = 30  # the new payer adjudicates within a payment cycle or two


def registered_coverages(work: Work) -> list[dict[str, str]]:
    """The chart's Coverage tab: its coverages' rows (ehr_steps.COVERAGE_COLUMNS)."""
    ehr_denials.to_ehr_tab(work)
    work.actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    return ehr_steps.table_rows(work, ehr_steps.COVERAGE_TABLE, ehr_steps.COVERAGE_COLUMNS)


def choose_coverage(work: Work, row: dict[str, str]) -> None:
    """The registered coverage (a Coverage tab row) the claim is to be billed to."""
    work.notes.update(new_payer=row["payer"], new_plan=row["plan"], new_member=row["member_id"])


def find_registered_coverage(work: Work, member: str) -> None:
    """The Coverage tab's one row with this member id, chosen to bill."""
    rows = [row for row in registered_coverages(work) if row["member_id"] == member]
    if len(rows) != 1:
        raise ScriptFailed(f"the registration holds no coverage with member id {member}")
    choose_coverage(work, rows[0])


def eligibility_for_dos(work: Work, payer: str, member: str, served: date) -> tuple[str, str]:
    """The payer's own portal (A, or Keystone's): the member's eligibility for the date of
    service, as its result (Active...) and the inquiry's reference."""
    actor = work.actor
    if steps.portal_of(payer) == "b":
        portal_b.open_portal_b(work)
        portal_b.stay_signed_in(work)
        portal_b.check_eligibility(work, member, served)
        return actor.text("main h2 span.status"), actor.text("p:has-text('Inquiry') strong")
    payer_id = portal_a.PAYER_IDS[payer]
    result = portal_a.check_eligibility(work, member, payer_id, served)
    return result, actor.text("p:has-text('Inquiry reference') strong")


def verify_in_registration(work: Work, reference: str, because: str) -> None:
    """The chosen coverage recorded Verified - Active on the Coverage tab, with the inquiry's
    reference and why it was checked (`because`)."""
    notes, member = work.notes, work.need("new_member")
    served = parse_us_date(work.need("service_date"))
    notes.update(eligibility_reference=reference)
    key = next(key for key, coverage in work.ids["coverages"].items() if coverage["member_id"] == member)
    ehr_denials.to_ehr_tab(work)
    ehr_steps.record_coverage_verification(
        work, key, "Verified - Active",
        f"{notes['new_payer']} eligibility for date of service {us_date(served)}: active (inquiry {reference}), "
        f"{because}", reference)


def confirm_eligibility(work: Work, because: str) -> None:
    """The chosen coverage's payer: eligibility for the date of service must be Active; then
    verified in registration."""
    payer, member = work.need("new_payer"), work.need("new_member")
    served = parse_us_date(work.need("service_date"))
    result, reference = eligibility_for_dos(work, payer, member, served)
    if result != "Active":
        raise ScriptFailed(f"{payer} reports member {member} {result} on {us_date(served)}")
    verify_in_registration(work, reference, because)


def bill_new_claim(work: Work, reason: str) -> None:
    """The denied claim's page: Bill another payer, to the chosen coverage, with `reason`."""
    actor, notes = work.actor, work.notes
    ehr_denials.back_to_claim(work)
    actor.select_containing("#bill-other select[name=coverage_id]", f"({work.need('new_member')})")
    actor.fill("#bill-other textarea[name=reason]", reason)
    actor.click("#bill-other button:text-is('Bill as new claim')")
    if not actor.count(".alert-success:has-text('New claim')"):
        raise ScriptFailed(f"the new claim was not billed: {actor.text('main')[:400]}")
    notes.update(new_claim=actor.fact("Claim #"), new_claim_status=actor.fact("Status"))


def follow_up_day(work: Work) -> date:
    return work.task.now.date() + timedelta(days=FOLLOW_UP_DAYS)


def record_new_claim(work: Work) -> None:
    """The Denials item: Billed to Other Payer, the new claim number as reference, a follow-up."""
    ehr_denials.set_item_status(work, BILLED_TO_OTHER_PAYER, follow_up=follow_up_day(work),
                                reference=work.need("new_claim"))
