"""Reference solution of template appeals/coverage_ended: a claim denied CO-27 (coverage
ended). The payer's own eligibility for the date of service decides, read against the
coverages registration holds (whose dates may lag or differ from the payer's):
- the payer shows the member covered on that date: its denial is in error; a level-1
  reconsideration citing its eligibility (dates and inquiry reference), item Appeal Filed;
- not covered, and another registered coverage in force on that date (confirmed at its payer
  and verified in registration): the claim billed to it as a new claim from the claim page's
  Bill another payer (rebill_steps, as other_payer does), item Billed to Other Payer with the new
  claim number as its reference and a follow-up;
- no coverage in force on that date: the balance transferred to the patient from the claim
  page, nothing filed, item Patient Responsibility.
"""
from __future__ import annotations

import json
from datetime import date

from admindesk.harness.agents.reference import portal_a
from admindesk.harness.agents.reference.appeals import ehr_denials, rebill_steps
from admindesk.harness.agents.reference.work import Work, parse_us_date
from admindesk.harness.agents.scripted import ScriptFailed

PATIENT_RESPONSIBILITY = "Patient Responsibility"
ELIGIBILITY_REASON = "Member eligible on date of service"


def review(work: Work) -> None:
    """The Denials item, the claim and its remittance, then the chart's coverages with their dates."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    if "27" not in work.notes["carcs"].split(", "):
        raise ScriptFailed(f"the claim is not denied CO-27: {work.notes['denials']}")
    rows = rebill_steps.registered_coverages(work)
    work.notes["coverages"] = json.dumps(rows)  # notes hold text; the decision reads the rows back


def _in_force(row: dict[str, str], day: date) -> bool:
    ends = row["termination"]
    return parse_us_date(row["effective"]) <= day and (ends == "None" or day <= parse_us_date(ends))


def payer_eligibility(work: Work, payer: str, member_id: str, day: date) -> dict[str, str]:
    """An eligibility inquiry at portal A for the date of service: status, coverage dates, reference."""
    status = portal_a.check_eligibility(work, member_id, portal_a.PAYER_IDS[payer], day)
    actor = work.actor
    return {"status": status, "begins": actor.fact("Coverage begins"), "ends": actor.fact("Coverage ends"),
            "reference": actor.text("main p strong")}


def check_eligibility(work: Work) -> None:
    """The denying payer's eligibility for the date of service; when it had ended, the other
    registered coverages in force on that date at their payers, the first active one chosen to
    bill and verified in registration."""
    n = work.notes
    day = parse_us_date(work.need("service_date"))
    denying = payer_eligibility(work, n["payer"], n["member_id"], day)
    n.update(elig_status=denying["status"], elig_begins=denying["begins"], elig_ends=denying["ends"],
             elig_reference=denying["reference"])
    if denying["status"] == "Active":
        return
    others = [row for row in json.loads(work.need("coverages")) if row["member_id"] != n["member_id"] and _in_force(row, day)]
    for row in others:
        result, reference = rebill_steps.eligibility_for_dos(work, row["payer"], row["member_id"], day)
        if result == "Active":
            rebill_steps.choose_coverage(work, row)
            rebill_steps.verify_in_registration(
                work, reference, f"after {n['payer']}'s CO-27 denial: its coverage ended {n['elig_ends']}.")
            return


def route_of(work: Work) -> str:
    if work.need("elig_status") == "Active":
        return "reconsideration"
    return "rebill" if work.notes.get("eligibility_reference") else "self_pay"


def reconsideration_letter(work: Work) -> str:
    n = work.notes
    return (f"Re: {work.patient_name}, DOB {work.patient['dob']}, member ID {n['member_id']}. Claim {n['claim_number']}, "
            f"date of service {n['service_date']}, billed {n['billed']}.\n\n"
            f"The claim was denied {n['denials']} (expenses incurred after coverage terminated, remittance "
            f"{n['remittance_id']} of {n['paid_on']}). {n['payer']}'s own eligibility record shows this member's coverage "
            f"beginning {n['elig_begins']} and ending {n['elig_ends']}: the eligibility inquiry for the date of service "
            f"{n['service_date']} (reference {n['elig_reference']}) returns Active. The member was covered on the date "
            "of service and the denial is in error.\n\n"
            "Enclosed: the eligibility inquiry reference above. Please reprocess and pay the claim. For questions, "
            f"contact {n['user_name']} at {n['provider_phone']}.")


def file_reconsideration(work: Work) -> dict[str, str]:
    n = work.notes
    ehr_denials.open_order_from_claim(work)  # the office's phone for the contact
    return portal_a.file_appeal(work, n["claim_number"], appeal_type="Reconsideration", reason=ELIGIBILITY_REASON,
                                letter=reconsideration_letter(work), contact_name=n["user_name"],
                                contact_phone=n["provider_phone"])


def bill_new_claim(work: Work) -> None:
    """The claim page's Bill another payer, to the coverage in force on the date of service."""
    n = work.notes
    rebill_steps.bill_new_claim(
        work, f"{n['payer']} denied claim {n['claim_number']} CO-27 on {n['paid_on']}: its eligibility (ref "
              f"{n['elig_reference']}) ends the coverage {n['elig_ends']}, before the date of service "
              f"{n['service_date']}. {n['new_payer']} member {n['new_member']} was in force on that date "
              f"(eligibility confirmed, inquiry {work.need('eligibility_reference')}).")


def transfer_to_patient(work: Work) -> None:
    """The claim page's Patient balance: the balance transferred to the patient, with why."""
    n, actor = work.notes, work.actor
    ehr_denials.back_to_claim(work)
    actor.fill("#patient-balance textarea[name=reason]",
               f"{n['payer']} eligibility (ref {n['elig_reference']}): coverage ended {n['elig_ends']}, before the "
               f"date of service {n['service_date']}; no other coverage on file was in force on that date. "
               "The balance is the patient's responsibility.")
    actor.click("#patient-balance button:text-is('Transfer balance to patient')")
    if not actor.count("#patient-balance dt:text-is('Transferred to patient')"):
        raise ScriptFailed(f"the balance was not transferred: {actor.text('#patient-balance')[:400]}")
    n["transferred"] = actor.fact("Transferred to patient")


def note_text(work: Work, route: str, outcome: dict[str, str]) -> str:
    n = work.notes
    head = (f"Claim {n['claim_number']} (DOS {n['service_date']}, {n['billed']}) denied {n['denials']} by {n['payer']}. "
            f"{n['payer']} eligibility for the DOS (ref {n['elig_reference']}): {n['elig_status']}, coverage "
            f"{n['elig_begins']} to {n['elig_ends']}. ")
    if route == "reconsideration":
        return head + (f"The member was covered on the DOS, so the denial is the payer's error: filed a level 1 "
                       f"reconsideration on portal A, reference {outcome['reference']}, {outcome['status']}, decision "
                       f"due {outcome['decision_due']}. Follow up on {outcome['follow_up']}.")
    if route == "rebill":
        return head + (f"Coverage ended before the DOS; {n['new_payer']} ({n['new_plan']}, member {n['new_member']}, "
                       f"eligibility confirmed active for the DOS, inquiry {n['eligibility_reference']}) was in force "
                       f"on it and is verified in registration. Billed new claim {outcome['claim']} to "
                       f"{n['new_payer']}; nothing filed with {n['payer']}. Follow up on "
                       f"{rebill_steps.follow_up_day(work):%m/%d/%Y} for {n['new_payer']}'s adjudication.")
    return head + ("Coverage ended before the DOS and no other coverage on file was in force on it. Balance "
                   f"transferred to the patient (self-pay), {outcome['claim']}; nothing filed. Registration should "
                   "confirm with the patient whether other coverage existed.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review(work)
    if work.doing("check_eligibility"):
        check_eligibility(work)
    if "elig_status" not in work.notes:
        work.finish("Nothing done: the payer's eligibility for the date of service was not checked.")
        return
    route, outcome = route_of(work), {}
    if route == "reconsideration":
        if work.doing("file_reconsideration"):
            appeal = file_reconsideration(work)
            outcome = {**appeal, "follow_up": appeal["decision_due"]}
        if not outcome:
            work.finish("No reconsideration was filed; the denial item is unchanged.")
            return
        if work.doing("record_outcome"):
            ehr_denials.record_appeal(work, reference=outcome["reference"],
                                      submitted_on=parse_us_date(outcome["submitted"]),
                                      follow_up=parse_us_date(outcome["decision_due"]))
    elif route == "rebill":
        if work.doing("bill_new_claim"):
            bill_new_claim(work)
            outcome = {"claim": work.need("new_claim")}
        if not outcome:
            work.finish("No new claim was billed; the denial item is unchanged.")
            return
        if work.doing("record_new_claim"):
            rebill_steps.record_new_claim(work)
    else:
        if work.doing("transfer_to_patient"):
            transfer_to_patient(work)
            outcome = {"claim": work.need("transferred")}
        if not outcome:
            work.finish("The balance was not transferred; the denial item is unchanged.")
            return
        if work.doing("record_outcome"):
            ehr_denials.set_item_status(work, PATIENT_RESPONSIBILITY)
    if work.doing("explain"):
        ehr_denials.add_item_note(work, note_text(work, route, outcome))
    work.finish(note_text(work, route, outcome))
