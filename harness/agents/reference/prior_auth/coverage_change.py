"""Reference solution of template prior_auth/coverage_change: the order is queued under a coverage
its payer ended before the date of service, and the patient's new card is in Documents (the newest
Insurance Card; an older card may be there too). The card's coverage is confirmed at its payer,
registered on the Coverage tab (Add coverage; the old coverage ended on its payer's last day and
recorded Verified - Inactive), the order billed to it, and the request worked with the new payer:
a precertification on Keystone's portal, or portal A's lookup saying none is needed.
"""
from __future__ import annotations

import re

from admindesk.harness.agents.reference import ehr_steps, portal_a, portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.prior_auth.no_auth_lookup import NO_AUTH, look_up_requirement
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "PYR-KMH"
# The card's lines (insurance_card_text), read off its PDF.
CARD = re.compile(r"FRONT (?P<payer>[^:]+?) Plan: (?P<plan>.+?) \((?P<product>[^)]+)\) Member: .+? "
                  r"Member ID: (?P<member>\S+) Group number: (?P<group>\S+) Subscriber: (?P<subscriber>.+?) "
                  r"\(patient's relationship: (?P<relationship>\w+)\) .*?Effective date: (?P<effective>[\d/]+)")


def newest_card(work: Work) -> str:
    """The key of the latest insurance card scanned into the chart (the Documents tab lists each by date)."""
    cards = [d for d in work.case["documents"] if d["type"] == "insurance_card"]
    return max(cards, key=lambda d: d["date"])["key"]


def read_card(work: Work) -> None:
    """The newest card's front: payer, plan, member id, group, subscriber, effective date."""
    text = ehr_denials.read_chart_document(work, newest_card(work))
    found = CARD.search(text)
    if found is None:
        raise ScriptFailed(f"the card does not read as a card: {text[:300]}")
    work.notes.update({f"card_{name}": value.strip() for name, value in found.groupdict().items()})
    work.notes["card_payer_id"] = portal_a.PAYER_IDS[work.notes["card_payer"]]


def eligibility(work: Work, payer_id: str, member: str) -> dict[str, str]:
    """The payer's eligibility for the planned date: status, inquiry reference, last day of coverage."""
    day, actor = parse_us_date(work.need("planned")), work.actor
    if payer_id == KEYSTONE:
        portal_b.open_portal_b(work)
        heading = portal_b.check_eligibility(work, member, day)
        ends = actor.fact("Coverage Terminated")
        return {"status": heading.rsplit(":", 1)[1].strip(), "reference": actor.text("main p strong"),
                "ends": portal_b.ehr_date(ends) if ends[0].isdigit() else ""}
    status = portal_a.check_eligibility(work, member, payer_id, day)
    ends = actor.fact("Coverage ends")
    return {"status": status, "reference": actor.text("p:has-text('Inquiry reference') strong"),
            "ends": ends if ends[0].isdigit() else ""}


def check_eligibility(work: Work) -> None:
    """The coverage on file at its payer (ended before the date of service), then the card's."""
    n = work.notes
    on_file = work.case["coverages"][0]
    n["old_payer"], n["old_member"] = on_file["payer"], work.ids["coverages"][on_file["key"]]["member_id"]
    old = eligibility(work, n["old_payer"], n["old_member"])
    if old["status"] == "Active" or not old["ends"]:
        raise ScriptFailed(f"the coverage on file is in force on the date of service: {old}")
    new = eligibility(work, work.need("card_payer_id"), n["card_member"])
    if new["status"] != "Active":
        raise ScriptFailed(f"the card's coverage is not active on the date of service: {new}")
    n.update(old_status=old["status"], old_reference=old["reference"], old_ends=old["ends"],
             new_reference=new["reference"])


def update_registration(work: Work) -> None:
    """Coverage tab: end the coverage on file on its payer's last day (recorded Verified - Inactive),
    then add the card's coverage as primary."""
    n, actor = work.notes, work.actor
    work.need("old_ends")  # registration follows the payers' answers
    ehr_denials.to_ehr_tab(work)
    ehr_steps.back_to_order(work)
    actor.click("nav[aria-label='Chart sections'] a:text-is('Coverage')")
    actor.select_containing("#end-coverage select[name=coverage_id]", f"({n['old_member']})")
    actor.fill("#end-coverage input[name=termination_date]", n["old_ends"])
    actor.fill("#end-coverage textarea[name=reason]",
               f"Payer eligibility inquiry {n['old_reference']}: coverage ends {n['old_ends']}.")
    actor.click("#end-coverage button:text-is('End coverage')")
    if not actor.count(".alert-success:has-text('coverage')"):
        raise ScriptFailed(f"the coverage was not ended: {actor.text('#end-coverage')[:400]}")
    ehr_steps.record_coverage_verification(
        work, work.case["coverages"][0]["key"], "Verified - Inactive",
        f"{n['old_status']} on {n['planned']} (coverage ended {n['old_ends']}).", n["old_reference"])
    actor.select_option("#add-coverage select[name=payer_id]", n["card_payer"])
    actor.select_containing("#add-coverage select[name=plan_id]", f"{n['card_payer']} - {n['card_plan']}")
    actor.fill("#add-coverage input[name=member_id]", n["card_member"])
    actor.fill("#add-coverage input[name=group_number]", n["card_group"])
    actor.fill("#add-coverage input[name=subscriber_name]", n["card_subscriber"])
    actor.select_option("#add-coverage select[name=relationship]", n["card_relationship"])
    actor.fill("#add-coverage input[name=effective_date]", n["card_effective"])
    actor.select_option("#add-coverage select[name=rank]", "Primary")
    actor.fill("#add-coverage textarea[name=source]",
               f"Insurance card scanned at check-in; payer eligibility inquiry {n['new_reference']}: active on "
               f"{n['planned']}.")
    actor.click("#add-coverage button:text-is('Add coverage')")
    if not actor.count(".alert-success:has-text('Coverage added')"):
        raise ScriptFailed(f"the coverage was not added: {actor.text('#add-coverage')[:400]}")
    n["registered"] = "yes"


def bill_order(work: Work) -> None:
    """The order's Change billing coverage: the coverage registered from the card."""
    n, actor = work.notes, work.actor
    ehr_steps.back_to_order(work)
    actor.select_containing("select[name=coverage_id]", f"({n['card_member']})")
    actor.fill("textarea[name=reason]", f"Coverage changed: {n['card_payer']} from {n['card_effective']}.")
    actor.click("button:text-is('Save billing coverage')")
    if not actor.count(".alert-success:has-text('is billed to')"):
        raise ScriptFailed(f"the order's coverage was not changed: {actor.text('main')[:400]}")
    n["billed"] = "yes"


def coverage_sentence(work: Work) -> str:
    n = work.notes
    return (f"{portal_a.payer_name(n['old_payer'])} member {n['old_member']} is {n['old_status']} on the date of "
            f"service {n['planned']} (coverage ended {n['old_ends']}, inquiry {n['old_reference']}). The patient's "
            f"current card, {n['card_payer']} {n['card_plan']} member {n['card_member']} effective "
            f"{n['card_effective']}, is active on that date (inquiry {n['new_reference']}); registered as primary, "
            f"the old coverage ended, and order {n['order_id']} billed to it.")


def submit(work: Work) -> None:
    """Subtasks submit_request, record_decision, close_item on Keystone's portal, the order's visit
    note attached."""
    n = work.notes
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        work.need("billed")  # the request goes under the coverage the order bills
        note = next(d["key"] for d in work.case["documents"] if d.get("order") == "svc")
        attachment = ehr_steps.open_document(work, note, download=True)
        portal_b.open_portal_b(work)
        portal_b.stay_signed_in(work)
        summary = (f"{work.patient_name}, DOB {work.patient['dob']}, member {n['card_member']}. {n['code']} for "
                   f"{n['diagnoses']}, ordered by {n['provider']}; see the attached visit note.")
        decision = portal_b.submit_approved_precert(work, n["card_member"], {}, summary,
                                                    [(attachment, "Clinical notes")])
    portal_b.record_and_close(work, decision, lambda d: (
        f"{coverage_sentence(work)} Precertification approved by Keystone Mutual Health: auth {d['auth_number']}, "
        f"reference {d['reference']}, {d['units']} unit(s), {d['start']} to {d['end']}; the visit note attached."))


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        ehr_steps.open_order(work)
        read_card(work)
    if work.doing("check_eligibility"):
        check_eligibility(work)
    if work.doing("update_registration"):
        update_registration(work)
    if work.doing("bill_order"):
        work.need("registered")
        bill_order(work)
    n = work.notes
    if "submit_request" in {s.id for s in work.task.subtasks}:
        submit(work)
        work.finish(f"Order {n.get('order_id', '')} now bills {n.get('card_payer', 'the new payer')} member "
                    f"{n.get('card_member', '')}; authorization {n.get('recorded', 'not obtained')}.")
        return
    if work.doing("look_up_requirement"):
        work.need("billed")
        n.update(payer=n["card_payer"], plan=n["card_plan"])
        look_up_requirement(work)
    if work.doing("record_outcome"):
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(work, status=NO_AUTH, payer=work.need("payer"),
                                       reference=work.need("lookup_reference"))
    if work.doing("close_item"):
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(
            work, f"{coverage_sentence(work)} {n['card_payer']} auth requirement lookup {n['lookup_reference']} for "
                  f"{n['code']} under {n['card_plan']} at place of service {n['place_of_service']}: "
                  f"{n['lookup_explanation']} Recorded as {NO_AUTH}; no request was submitted.")
        ehr_steps.set_work_item(work, NO_AUTH)
    work.finish(f"Order {n.get('order_id', '')} now bills {n.get('card_payer', 'the new payer')} member "
                f"{n.get('card_member', '')}: no prior authorization is required under {n.get('card_plan', '')} "
                f"(lookup reference {n.get('lookup_reference', 'none')}). Recorded as {NO_AUTH}, item closed.")
