"""Reference solution of template appeals/portal_appeal: a level-1 appeal of a denied claim
filed on the payer's portal (A, or Keystone Mutual's own portal B), then recorded on the
patient's Denials work item.

The coordinator reads the denial code off the remittance and lets it choose the argument:
CO-197 cites the authorization approved for the order, CO-29 proves the first filing date,
CO-50 argues medical necessity from the chart, CO-16/252 sends the missing records.
"""
from __future__ import annotations

from datetime import date, timedelta

from admindesk.harness.agents.reference import ehr_denials, portal_a
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"  # its claims are appealed on its own portal (B)
BASIS_BY_CARC = {"197": "auth", "29": "timely", "50": "medical", "16": "records", "252": "records"}
PORTAL_A_FORM = {  # basis -> (request type, reason) on portal A's appeal form
    "auth": ("Reconsideration", "Authorization was on file"),
    "timely": ("Reconsideration", "Timely filing proof"),
    "records": ("Reconsideration", "Missing information now provided"),
    "medical": ("Clinical Appeal", "Medical necessity"),
}
FOLLOW_UP_AFTER_OVERTURN = 14  # days to confirm the reprocessed claim was paid
FOLLOW_UP_BEFORE_DUE = 0  # an appeal in review is followed up on its decision-due date


def basis_of(work: Work) -> str:
    """The appeal's argument, from the first denial code on the remittance."""
    for carc in work.need("carcs").split(", "):
        if carc in BASIS_BY_CARC:
            return BASIS_BY_CARC[carc]
    raise ScriptFailed(f"no appeal argument for denial codes {work.notes['carcs']}")


def proof_document(work: Work) -> str | None:
    """The chart document sent with the appeal: the latest one (a signed addendum comes after
    the note it corrects, and supersedes it)."""
    documents = work.case.get("documents", [])
    return documents[-1]["key"] if documents else None


def review_denial(work: Work) -> None:
    """The Denials item, the claim, its EOB, the order (authorization, provider) and the chart
    documents that carry the argument."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    ehr_denials.back_to_claim(work)
    ehr_denials.open_order_from_claim(work)
    basis = basis_of(work)
    work.notes["basis"] = basis
    attach = proof_document(work)
    for document in work.case.get("documents", []):
        name = ehr_denials.open_chart_document(work, document["key"], download=document["key"] == attach)
        if name:
            work.notes["attachment_file"] = name
            work.notes["attachment_title"] = work.notes[f"doc_{attach}_title"]
    if basis == "auth" and not work.notes.get("auth_number"):
        raise ScriptFailed("CO-197 denial but the order shows no approved authorization")


def letter(work: Work, basis: str) -> str:
    """The appeal letter: who and what, the denial, the argument for this basis, the request,
    what is enclosed and whom to call."""
    n = work.notes
    who = (f"Patient: {work.patient_name}, date of birth {us_date(work.patient['dob'])}, member ID {n['member_id']}. "
           f"Claim {n['claim_number']}, date of service {n['service_date']}, {n['service']} "
           f"(diagnoses {n['diagnoses']}), billed {n['billed']}, ordered by {n['provider']}.")
    denial = (f"{n['payer']} denied the claim on its remittance {n['remittance_id']} of {n['paid_on']} "
              f"with {n['denials']}: {n['codes_explained']}.")
    enclosed = n.get("attachment_title")
    if basis == "auth":
        argument = (f"The service was authorized before it was performed: {n['payer']} approved authorization "
                    f"{n['auth_number']} (reference {n['auth_reference']}) for this service, valid "
                    f"{n['auth_start']} through {n['auth_end']}. The date of service {n['service_date']} falls "
                    f"within that approved period, so the precertification requirement was met and the "
                    f"CARC 197 denial does not apply.")
    elif basis == "timely":
        days = (parse_us_date(n["submitted_on"]) - parse_us_date(n["service_date"])).days
        argument = (f"The claim was timely filed: it was first filed on {n['submitted_on']}, {days} days after the "
                    f"date of service, well within {n['payer']}'s timely filing limit. Any later date the payer "
                    f"counted is a resubmission, not the first filing, so the CARC 29 denial does not apply.")
    elif basis == "records":
        argument = (f"The claim was denied for missing information. The {enclosed or 'chart record'} that "
                    f"documents the service on {n['service_date']} is enclosed; with it the claim can be "
                    f"adjudicated as billed.")
    else:
        argument = ("The service was medically necessary under the payer's criteria, as the enclosed "
                    f"{enclosed or 'letter of medical necessity'} documents.")
    enclosure = (f"Enclosed: {enclosed}." if enclosed else
                 "Enclosed: no attachment; the facts above are on file with the payer.")
    return (f"Re: Level 1 appeal of claim {n['claim_number']}\n\n{who}\n\n{denial}\n\n{argument}\n\n"
            f"We request that {n['payer']} overturn the denial and reprocess and pay claim {n['claim_number']}.\n"
            f"{enclosure}\nFor questions contact {n['user_name']}, Susquehanna Valley Health, at "
            f"{n['provider_phone']}.")


def check_portal(work: Work) -> None:
    """The claim on the payer's portal: its status and appeal deadline, and no appeal yet."""
    claim = work.need("claim_number")
    portal_a.open_claim(work, claim, tab="remittance")
    work.notes["portal_deadline"] = work.actor.fact("Appeal deadline").split()[0]
    if parse_us_date(work.notes["portal_deadline"]) < date.fromisoformat(str(work.task.now)[:10]):
        raise ScriptFailed(f"the appeal deadline {work.notes['portal_deadline']} has passed")
    work.actor.click("ul.tabs-local a:has-text('Appeals (')")
    if portal_a.appeals_on_claim(work):
        raise ScriptFailed(f"claim {claim} already has an appeal on file")


def file_appeal(work: Work, basis: str) -> dict[str, str]:
    """One level-1 appeal on portal A with the basis' type, reason, proof and letter."""
    n = work.notes
    appeal_type, reason = PORTAL_A_FORM[basis]
    attachment = None
    if n.get("attachment_file"):
        attachment = (n["attachment_file"], "Medical records")
    return portal_a.file_appeal(
        work, n["claim_number"], appeal_type=appeal_type, reason=reason, letter=letter(work, basis),
        contact_name=n["user_name"], contact_phone=n["provider_phone"],
        cited_auth=n.get("auth_number", "") if basis == "auth" else "",
        proof_of_filing=n["submitted_on"] if basis == "timely" else "", attachment=attachment)


def follow_up_day(appeal: dict[str, str]) -> date:
    """After an overturn: two weeks to see the claim paid; in review: the decision-due date."""
    if appeal["decision"]:
        return parse_us_date(appeal["submitted"]) + timedelta(days=FOLLOW_UP_AFTER_OVERTURN)
    return parse_us_date(appeal["decision_due"]) - timedelta(days=FOLLOW_UP_BEFORE_DUE)


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    if work.doing("review_denial"):
        review_denial(work)
    if "basis" not in work.notes:
        work.finish("Nothing filed: the denial was not reviewed, so there is no argument to appeal with.")
        return
    basis = work.notes["basis"]
    if work.doing("check_portal"):
        check_portal(work)
    if "portal_deadline" not in work.notes:
        work.finish("Nothing filed: the claim and its appeal deadline were not checked on the payer's portal.")
        return
    appeal: dict[str, str] = {}
    if work.doing("file_appeal"):
        appeal = file_appeal(work, basis)
    if not appeal:
        work.finish("No appeal was filed; the denial item is unchanged.")
        return
    outcome = appeal["decision"] or f"{appeal['status']}, decision due {appeal['decision_due']}"
    follow_up = follow_up_day(appeal)
    if work.doing("record_appeal"):
        ehr_denials.record_appeal(work, reference=appeal["reference"], submitted_on=parse_us_date(appeal["submitted"]),
                                  follow_up=follow_up)
    n = work.notes
    sent = n.get("attachment_title", "no attachment (the argument rests on facts the payer holds)")
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Denial {n['denials']} on claim {n['claim_number']} (DOS {n['service_date']}, {n['payer']}). "
                  f"Filed a level 1 {PORTAL_A_FORM[basis][0].lower()} on payer portal A on {appeal['submitted']}, "
                  f"reference {appeal['reference']}, reason: {PORTAL_A_FORM[basis][1]}"
                  + (f", citing authorization {n['auth_number']}" if basis == "auth" else "")
                  + (f", proof of first filing {n['submitted_on']}" if basis == "timely" else "")
                  + f". Sent: {sent}. Payer status: {outcome}. Follow up on {follow_up:%m/%d/%Y}"
                  + (" to confirm the reprocessed claim is paid." if appeal["decision"] else
                     " for the payer's decision; if none, call the payer."))
    work.finish(f"Filed a level 1 {PORTAL_A_FORM[basis][0].lower()} of the {n['denials']} denial of claim "
                f"{n['claim_number']} on payer portal A: reference {appeal['reference']}, {outcome}. "
                f"Attached: {sent}. Denial item {n['item_id']} set to Appeal Filed, follow-up {follow_up:%m/%d/%Y}.")
