"""Reference solution of template prior_auth/no_auth_lookup: the payer's auth requirement
lookup (portal A) says the ordered code needs no authorization under the member's plan at
the order's place of service. Record "No Auth Required" with the lookup's reference on the
order, say so in an order comment, close the Prior Auth item the same way, file nothing.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.work import Work
from admindesk.harness.agents.scripted import ScriptFailed

NO_AUTH = "No Auth Required"


def read_billing_coverage(work: Work) -> None:
    """Payer and plan names off the order's "Billing coverage" line
    ("Payer (Primary) · Plan · Member ID X"), into work.notes."""
    payer_part, plan, *_rest = [part.strip() for part in work.need("coverage").split("\u00b7")]
    work.notes["payer"] = payer_part.rsplit(" (", 1)[0]
    work.notes["plan"] = plan


def look_up_requirement(work: Work) -> None:
    """Portal A's Auth requirement lookup for the order's code, plan and place of service;
    the result, reference number and explanation go into work.notes."""
    portal_a.open_portal_a(work)
    actor, notes = work.actor, work.notes
    actor.click("nav.top-tabs a:has-text('Authorizations')")
    actor.click("main a:text-is('Auth requirement lookup')")
    actor.select_option("select[name=payer_id]", work.need("payer"))
    actor.select_containing("select[name=plan_id]", f"{notes['payer']} - {notes['plan']}")
    actor.fill("input[name=code]", work.need("code"))
    actor.select_by_value("select[name=place_of_service]", work.need("place_of_service"))
    actor.click("button:text-is('Check requirement')")
    if not actor.count("#result-heading"):
        raise ScriptFailed(f"the lookup gave no result: {actor.text('main')[:400]}")
    notes.update(lookup_result=actor.fact("Result"), lookup_reference=actor.fact("Reference number"),
                 lookup_explanation=actor.text("section[aria-labelledby='result-heading'] > p"))
    if notes["lookup_result"] != "Not required":
        raise ScriptFailed(f"the payer requires authorization ({notes['lookup_explanation']}): not this template")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    ehr_steps.open_chart(work)
    if work.doing("review_order"):
        ehr_steps.open_order(work)
        read_billing_coverage(work)
    if work.doing("look_up_requirement"):
        look_up_requirement(work)
    if work.doing("record_outcome"):
        ehr_steps.back_to_order(work)
        ehr_steps.record_authorization(work, status=NO_AUTH, payer=work.need("payer"),
                                       reference=work.need("lookup_reference"))
    if work.doing("close_item"):
        ehr_steps.back_to_order(work)
        reference = work.need("lookup_reference")
        ehr_steps.add_order_comment(
            work, f"No prior authorization required for order {work.notes['order_id']} (CPT {work.notes['code']}, "
                  f"{work.patient_name}, DOB {work.patient['dob']}): {work.notes['payer']} auth requirement lookup "
                  f"on portal A, reference {reference}, for {work.notes['plan']} at place of service "
                  f"{work.notes['place_of_service']} says: {work.notes['lookup_explanation']} Recorded as "
                  f"{NO_AUTH} with the lookup reference; no request was submitted to the payer.")
        ehr_steps.set_work_item(work, NO_AUTH, f"Closed: {work.notes['payer']} lookup {reference} - authorization "
                                               f"not required for {work.notes['code']} under {work.notes['plan']}.")
    work.finish(f"No prior authorization is required for order {work.notes.get('order_id', '')} "
                f"(CPT {work.notes.get('code', '')}) under {work.notes.get('plan', 'the plan')}: "
                f"{work.notes.get('payer', 'the payer')} lookup reference {work.notes.get('lookup_reference', 'none')}. "
                f"Recorded as {NO_AUTH} on the order, item closed, nothing submitted.")
