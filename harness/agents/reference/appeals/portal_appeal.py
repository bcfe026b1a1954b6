"""Reference solution of template appeals/portal_appeal: a level-1 appeal of a denied claim
filed on the payer's portal (A, or Keystone Mutual's own portal B), then recorded on the
patient's Denials work item.

The coordinator reads the denial code off the remittance and lets it choose the argument:
CO-197 cites the authorization approved for the order, CO-29 proves the first filing date,
CO-50 argues medical necessity from the chart. (CO-197 is no longer a row of this template; its
argument stays for the do-it-anyway control, which files every appeals task through this solution.)
"""
from __future__ import annotations

import re
from datetime import date, timedelta

from admindesk.harness.agents.reference import fax_steps, portal_a, portal_b
from admindesk.harness.agents.reference.appeals import ehr_denials
from admindesk.harness.agents.reference.work import Work, parse_us_date, us_date
from admindesk.harness.agents.scripted import ScriptFailed

KEYSTONE = "Keystone Mutual Health"  # its claims are appealed on its own portal (B)
BASIS_BY_CARC = {"197": "auth", "29": "timely", "50": "medical"}
APPEAL_FORMS = {  # (portal, basis) -> (request type, reason) on the portal's appeal form
    ("A", "auth"): ("Reconsideration", "Authorization was on file"),
    ("A", "timely"): ("Reconsideration", "Timely filing proof"),
    ("A", "medical"): ("Clinical Appeal", "Medical necessity"),
    ("B", "auth"): ("Reconsideration", "Precertification / authorization on file"),
    ("B", "timely"): ("Reconsideration", "Timely filing"),
    ("B", "medical"): ("Clinical appeal", "Medical necessity"),
}
CLINICAL_PHRASES = {  # chart fact -> how the letter states it
    "conservative_therapy_weeks": "{} weeks of conservative therapy without relief",
    "physical_therapy_weeks": "{} weeks of physical therapy",
    "physical_therapy_sessions": "{} physical therapy session(s) documented",
    "red_flags": "a red-flag finding: {}",
    "mcmurray_test": "a {} McMurray test",
    "symptom_duration_months": "symptoms for {} months",
    "epworth_score": "an Epworth Sleepiness Scale score of {}",
    "qualifying_symptoms": "qualifying symptoms: {}",
    "prior_therapy": "prior therapy with {}",
    "prior_therapy_weeks": "{} weeks of that prior therapy",
    "prior_therapy_outcome": "outcome of prior therapy: {}",
    "focal_neurologic_deficit": "focal neurologic deficit: {}",
}
FOLLOW_UP_AFTER_OVERTURN = 14  # days to confirm the reprocessed claim was paid


def basis_of(work: Work) -> str:
    """The appeal's argument, from the first denial code on the remittance."""
    for carc in work.need("carcs").split(", "):
        if carc in BASIS_BY_CARC:
            return BASIS_BY_CARC[carc]
    raise ScriptFailed(f"no appeal argument for denial codes {work.notes['carcs']}")


def portal_of(work: Work) -> str:
    """Keystone Mutual takes appeals on its own portal (B); every other payer on portal A."""
    return "B" if work.need("payer") == KEYSTONE else "A"


def proof_document(work: Work) -> str | None:
    """The chart document sent with the appeal: the latest one (a signed addendum comes after
    the note it corrects, and supersedes it)."""
    documents = work.case.get("documents", [])
    return documents[-1]["key"] if documents else None


def document_type(title: str, portal: str) -> str:
    """The portal's document type for a chart document or a fax, by its title."""
    lowered = title.lower()
    if " fax " in lowered:
        return "Other"
    if "medical necessity" in lowered:
        return "Letter of medical necessity"
    if "therapy" in lowered and portal == "A":
        return "Physical therapy notes"
    return "Clinical notes"


def clinical_facts(work: Work) -> list[str]:
    """The chart's clinical facts in words, each document's values overriding the ones before
    (an addendum corrects the note it follows)."""
    merged: dict = {}
    for document in work.case.get("documents", []):
        merged.update({k: v for k, v in (document.get("facts") or {}).items() if v is not None})
    return [CLINICAL_PHRASES.get(key, key.replace("_", " ") + ": {}").format(value) for key, value in merged.items()]


def download_proof_fax(work: Work, basis: str) -> None:
    """The received fax that proves the case, downloaded: for CO-197 the payer's approval letter
    (from its prior-authorization line, naming the authorization number on the order), for CO-29
    the clearinghouse's acceptance report (a rejection report proves nothing). It is found by the
    sender's number and recognised by reading its pages."""
    if basis == "auth":
        auth = work.need("auth_number")
        spec = next((f for f in work.case["faxes"] if f.get("about")), None)
        wanted, what = (lambda text: auth in text and "approved" in text.lower()), f"the approval of {auth}"
    else:
        spec = next((f for f in work.case["faxes"] if f.get("from_number")), None)
        wanted, what = (lambda text: re.search(r"Status:\s*ACCEPTED", text) is not None), "an acceptance report"
    if spec is None:  # another patient's denial (the wrong-patient control) can call for proof this case lacks
        raise ScriptFailed(f"the case has no fax that could hold {what}")
    number = fax_steps.case_fax_number(work, spec["key"])
    # An approval letter arrives about when the authorization starts (long before the denial).
    near = parse_us_date(work.need("auth_start")) if basis == "auth" else None
    row, file_name, _ = fax_steps.find_fax(work, number, wanted, what, near=near)
    work.notes.update(attachment_file=file_name,
                      attachment_title=f"fax {row['fax_id']} from {row['from_number']} received {row['received']}")


def review_denial(work: Work) -> None:
    """The Denials item, the claim, its EOB, the chart documents that carry the argument (the
    one sent is downloaded) and the order (authorization, provider)."""
    ehr_denials.open_denial_item(work)
    ehr_denials.open_claim(work)
    ehr_denials.open_remittance(work)
    basis = basis_of(work)
    attach = proof_document(work)
    for document in work.case.get("documents", []):
        name = ehr_denials.open_chart_document(work, document["key"], download=document["key"] == attach)
        if name:
            work.notes["attachment_file"] = name
            work.notes["attachment_title"] = work.notes[f"doc_{attach}_title"]
    ehr_denials.open_order_from_claim(work)  # from the document of the order, or the claim
    if work.ids.get("faxes") and basis in ("auth", "timely"):
        download_proof_fax(work, basis)
    if basis == "auth" and not work.notes.get("auth_number"):
        raise ScriptFailed("CO-197 denial but the order shows no approved authorization")
    work.notes["basis"] = basis


def argument(work: Work, basis: str) -> str:
    """The paragraph that makes the case for this basis."""
    n = work.notes
    enclosed = n.get("attachment_title", "")
    if basis == "auth":
        return (f"The service was authorized before it was performed: {n['payer']} approved authorization "
                f"{n['auth_number']} (reference {n['auth_reference']}) for this service, valid {n['auth_start']} "
                f"through {n['auth_end']}. The date of service {n['service_date']} falls within that approved "
                f"period, so the precertification requirement was met and the CARC 197 denial does not apply."
                + (f" The payer's approval letter is enclosed ({enclosed})." if enclosed else ""))
    if basis == "timely":
        days = (parse_us_date(n["submitted_on"]) - parse_us_date(n["service_date"])).days
        return (f"The claim was timely filed: it was first filed on {n['submitted_on']}, {days} days after the "
                f"date of service, well within {n['payer']}'s timely filing limit. Any later date the payer "
                f"counted is a resubmission, not the first filing, so the CARC 29 denial does not apply."
                + (f" The enclosed clearinghouse acceptance report ({enclosed}) shows the claim accepted on "
                   f"{n['submitted_on']}."
                   if enclosed else ""))
    return (f"The service was medically necessary. The chart documents {'; '.join(clinical_facts(work))}. "
            f"These findings meet {n['payer']}'s medical-necessity criteria for {n['service']}: conservative "
            f"management of the required duration was tried and failed, or the objective findings call for "
            f"the service without further delay. The enclosed {enclosed} states these facts"
            + (" (the signed addendum corrects the earlier letter of medical necessity; its values are the ones "
               "stated here)." if "addendum" in enclosed.lower() else "."))


def letter(work: Work, basis: str) -> str:
    """The appeal letter: who and what, the denial, the argument, the request, what is
    enclosed and whom to call."""
    n = work.notes
    enclosed = n.get("attachment_title")
    return (f"Re: Level 1 appeal of claim {n['claim_number']}\n\n"
            f"Patient: {work.patient_name}, date of birth {us_date(work.patient['dob'])}, member ID "
            f"{n['member_id']}. Claim {n['claim_number']}, date of service {n['service_date']}, {n['service']} "
            f"(diagnoses {n['diagnoses']}), billed {n['billed']}, ordered by {n['provider']}.\n\n"
            f"{n['payer']} denied the claim on its remittance {n['remittance_id']} of {n['paid_on']} with "
            f"{n['denials']}: {n['codes_explained']}.\n\n{argument(work, basis)}\n\n"
            f"We request that {n['payer']} overturn the denial and reprocess and pay claim {n['claim_number']}.\n"
            + (f"Enclosed: {enclosed}.\n" if enclosed else "Enclosed: none; the facts above are on file with the payer.\n")
            + f"For questions contact {n['user_name']}, Susquehanna Valley Health, at {n['provider_phone']}.")


def check_portal(work: Work, portal: str) -> None:
    """The claim on the payer's portal: its EOB's appeal deadline, and no appeal on file yet."""
    claim = work.need("claim_number")
    today = date.fromisoformat(str(work.task.now)[:10])
    if portal == "A":
        portal_a.open_claim(work, claim, tab="remittance")
        deadline = parse_us_date(work.actor.fact("Appeal deadline").split()[0])
        work.actor.click("ul.tabs-local a:has-text('Appeals (')")
        on_file = portal_a.appeals_on_claim(work)
    else:
        portal_b.open_claim(work, claim, tab="eob")
        deadline = portal_b.shown_date(work.actor.fact("Appeal Filing Deadline"))
        work.actor.click("nav[aria-label='Claim sections'] a:has-text('Appeals (')")
        on_file = portal_b.appeals_on_claim(work)
    if deadline < today:
        raise ScriptFailed(f"the appeal deadline {deadline} has passed")
    if on_file:
        raise ScriptFailed(f"claim {claim} already has an appeal on file: {on_file}")
    work.notes["portal_deadline"] = deadline.strftime("%m/%d/%Y")


def file_appeal(work: Work, portal: str, basis: str) -> dict[str, str]:
    """One level-1 appeal with the basis' type, reason, proof and letter."""
    n = work.notes
    kind, reason = APPEAL_FORMS[(portal, basis)]
    attachments = []
    if n.get("attachment_file"):
        attachments.append((n["attachment_file"], document_type(n["attachment_title"], portal)))
    if portal == "B":
        return portal_b.file_appeal(
            work, n["claim_number"], kind=kind, reason=reason, explanation=letter(work, basis),
            appellant=n["user_name"], service_day=parse_us_date(n["service_date"]), billed=n["billed"],
            attachments=attachments)
    return portal_a.file_appeal(
        work, n["claim_number"], appeal_type=kind, reason=reason, letter=letter(work, basis),
        contact_name=n["user_name"], contact_phone=n["provider_phone"],
        cited_auth=n.get("auth_number", "") if basis == "auth" else "",
        proof_of_filing=n["submitted_on"] if basis == "timely" else "",
        attachment=attachments[0] if attachments else None)


def follow_up_day(appeal: dict[str, str]) -> date:
    """After an overturn: two weeks to see the claim paid; in review: the decision-due date."""
    if appeal["decision"]:
        return parse_us_date(appeal["submitted"]) + timedelta(days=FOLLOW_UP_AFTER_OVERTURN)
    return parse_us_date(appeal["decision_due"])


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`. A skipped
    phase whose findings a later one needs ends the episode with nothing more done."""
    if work.doing("review_denial"):
        review_denial(work)
    if "basis" not in work.notes:
        work.finish("Nothing filed: the denial was not reviewed, so there is no argument to appeal with.")
        return
    basis, portal = work.notes["basis"], portal_of(work)
    if work.doing("check_portal"):
        check_portal(work, portal)
    if "portal_deadline" not in work.notes:
        work.finish("Nothing filed: the claim and its appeal deadline were not checked on the payer's portal.")
        return
    appeal: dict[str, str] = {}
    if work.doing("file_appeal"):
        appeal = file_appeal(work, portal, basis)
    if not appeal:
        work.finish("No appeal was filed; the denial item is unchanged.")
        return
    n = work.notes
    kind, reason = APPEAL_FORMS[(portal, basis)]
    outcome = appeal["decision"] or f"{appeal['status']}, decision due {appeal['decision_due']}"
    follow_up = follow_up_day(appeal)
    sent = n.get("attachment_title", "no attachment (the argument rests on facts the payer holds)")
    if work.doing("record_appeal"):
        ehr_denials.record_filed_appeal(work, appeal, follow_up)
    if work.doing("explain"):
        ehr_denials.add_item_note(
            work, f"Denial {n['denials']} on claim {n['claim_number']} (DOS {n['service_date']}, {n['payer']}). "
                  f"Filed a level 1 {kind.lower()} on payer portal {portal} on {appeal['submitted']}, reference "
                  f"{appeal['reference']}, reason: {reason}"
                  + (f", citing authorization {n['auth_number']}" if basis == "auth" else "")
                  + (f", proof of first filing {n['submitted_on']}" if basis == "timely" else "")
                  + f". Sent: {sent}. Payer status: {outcome}. Follow up on {follow_up:%m/%d/%Y}"
                  + (" to confirm the reprocessed claim is paid." if appeal["decision"] else
                     " for the payer's decision; if none has come, call the payer."))
    work.finish(f"Filed a level 1 {kind.lower()} of the {n['denials']} denial of claim {n['claim_number']} on "
                f"payer portal {portal}: reference {appeal['reference']}, {outcome}. Attached: {sent}. "
                f"Denial item {n['item_id']} set to Appeal Filed, follow-up {follow_up:%m/%d/%Y}.")
