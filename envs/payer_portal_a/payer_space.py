"""What a payer space says: the payer's news, its forms and its provider manual.

Everything is written from the payer's own rules (payer_rules.yaml, the payer row and the
medical policy), so what a coordinator reads here is what the portal then enforces.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from admindesk.envs.common.network_access import ACCESS_DAYS, ACCESS_MILES
from admindesk.envs.payer_portal_a.models import Payer
from admindesk.envs.payer_portal_a.rules.payer_rules import rules_for, timing
from admindesk.envs.world.diagnosis_coverage import load_diagnosis_coverage


@dataclass(frozen=True)
class NewsItem:
    posted: date
    title: str
    body: str


@dataclass(frozen=True)
class ManualChapter:
    number: int
    title: str
    paragraphs: tuple[str, ...]


def phone_text(digits: str | None) -> str:
    """ProviderLink writes phone and fax numbers as 717-555-0100."""
    if not digits or len(digits) != 10 or not digits.isdigit():
        return digits or ""
    return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"


def _appeal_decision_text(payer: Payer) -> str:
    rules = rules_for(payer.id)
    when = ("decided when filed: the reviewer applies the criterion the denial quoted to the clinical answers on file"
            if rules.immediate_preservice_appeal else
            f"decided by the due date ({timing().expedited_appeal_hours} hours expedited, "
            f"{timing().standard_preservice_appeal_days} days standard)")
    return f"Pre-service appeals of a denied authorization are {when}."


def _authorization_absent_text(payer: Payer) -> tuple[str, ...]:
    """How the payer applies an authorization to a claim it denied CO-197, and what it accepts
    afterwards: what the appeal rules (rules/appeal_decisions.py), the corrected-claim rules and
    the authorization changes (auth_lifecycle.py) then enforce."""
    rules = rules_for(payer.id)
    decided = ("decided at filing" if rules.immediate_reconsideration else
               f"decided within {rules.appeal_review_days} days")
    return (
        "An authorization applies to a claim line only when it covers the member, the billed procedure code, the "
        "billed units and the date of service (within its approved from and through dates). Look it up under "
        "Authorizations (status inquiry by case number or by member) before acting on a CO-197 denial.",
        "When an authorization covers the line and the claim was sent without its number, either submit a corrected "
        f"claim (frequency code 7) carrying the authorization number, within {rules.corrected_claim_days} days of the "
        "original remittance, or file a level 1 reconsideration citing the authorization number "
        f"({decided}).",
        "An authorization that does not cover the line (another code, more units, or dates that do not include the "
        "date of service) is not proof of authorization. Approved dates and units can be changed only before the "
        "authorization expires and never to a start date in the past; after the service, only a retro-authorization "
        "within the rule in chapter 2 can cover it. Otherwise the denial stands: the service is a contractual "
        "adjustment and may not be billed to the member.")


def _diagnosis_coverage_text(payer: Payer) -> tuple[str, ...]:
    """The tests paid only for listed diagnoses, each with its list (what corrected_claims.py
    then applies to a replacement), and how to answer a CO-167 or CO-11 denial of one."""
    rules = rules_for(payer.id)
    tests = tuple(f"{p.code} {p.title}: covered for ICD-10-CM codes beginning with {', '.join(p.covered)}."
                  for p in load_diagnosis_coverage().values())
    return (
        f"{payer.name} pays the tests below only when the claim line carries a diagnosis its coverage policy lists; "
        "a line without one is denied CO-167 (diagnosis not covered) or CO-11 (diagnosis inconsistent with the "
        "procedure). Screening and routine examination codes are not on these lists.",
        *tests,
        "Code the diagnosis the ordering clinician documented for the date of service (the assessment in that day's "
        "encounter note). A condition on a problem list or in another day's note that the date of service's note "
        "does not address is not documentation for the test. The code must be valid on the date of service.",
        "When the note documents a listed condition the claim did not carry, submit a corrected claim (frequency "
        f"code 7) with that diagnosis first on the line, within {rules.corrected_claim_days} days of the original "
        "remittance; an appeal is not needed. When it documents none, the denial stands: do not add a diagnosis the "
        "clinician did not document, and do not appeal.")


def news(payer: Payer, today: date) -> list[NewsItem]:
    """The payer's bulletins, newest first."""
    rules = rules_for(payer.id)
    return [
        NewsItem(today - timedelta(days=3), "Retro-authorization requests", rules.retro_rule_text()),
        NewsItem(today - timedelta(days=11), "Peer-to-peer reviews",
                 f"After a denial, the ordering physician can ask for a peer-to-peer within {rules.peer_to_peer_days} "
                 f"days. Calls are taken by {', '.join(rules.medical_directors)}."),
        NewsItem(today - timedelta(days=19), "Timely filing reminder",
                 f"Claims must reach {payer.name} within {rules.claim_filing_days} days of the date of service; "
                 f"corrected or void claims within {rules.corrected_claim_days} days of the original remittance."),
        NewsItem(today - timedelta(days=27), "Appeals and reconsiderations",
                 f"File a claim appeal within {payer.timely_appeal_days} days of the remittance. Appeals left in review "
                 f"are decided within {rules.appeal_review_days} days. " + _appeal_decision_text(payer)),
        NewsItem(today - timedelta(days=41), "Continuous glucose monitor supplies",
                 "Bill CGM supplies with HCPCS A4239 (non-adjunctive) and receivers with E2103; K0553 and K0554 "
                 "were deleted and are denied as invalid codes."),
    ]


def resources(payer: Payer) -> list[tuple[str, str, str]]:
    """(form, what it is for, how to send it) rows of the payer's forms library."""
    pa_fax, appeals_fax = phone_text(payer.pa_fax), phone_text(payer.appeals_fax)
    return [
        ("Prior authorization request form", "Requests that cannot be submitted on ProviderLink", f"Fax {pa_fax}"),
        ("Medical records cover sheet", "Clinical documentation for a pended request", f"Fax {pa_fax}"),
        ("Peer-to-peer request form", "Ask for a call with a medical director after a denial", f"Fax {pa_fax}"),
        ("Provider appeal request form", "Claim appeals and reconsiderations sent on paper", f"Fax {appeals_fax}"),
        ("Pre-service appeal form", "Appeal a denied authorization before the service", f"Fax {appeals_fax}"),
        ("Corrected claim cover sheet", "Replacement (7) or void (8) claims sent on paper", "Mail to claims address"),
        ("Provider demographic update", "Address, phone or tax ID changes", f"Call {phone_text(payer.phone)}"),
        ("EFT and ERA enrollment", "Electronic payments and remittances", "ProviderLink enrollment"),
    ]


def manual(payer: Payer) -> list[ManualChapter]:
    """The payer's provider manual, chapter by chapter."""
    rules, common = rules_for(payer.id), timing()
    return [
        ManualChapter(1, "Utilization management", (
            f"{payer.name} reviews the services on its prior authorization list before they are performed. The medical "
            "policy library in this space lists each service, its covered diagnoses and criteria.",
            f"Standard requests are decided within {common.standard_days} calendar days, expedited requests within "
            f"{common.expedited_hours} hours. A request missing clinical information is pended and names what is missing.",
            "Expedited review is for a request where applying the standard timeframe could seriously jeopardize the "
            "member's life or health or ability to regain maximum function, or would subject the member to severe pain "
            "that cannot be adequately managed without the service, in the opinion of the treating physician. An "
            "expedited request names the physician who attests to this and gives the clinical reason; a request "
            "marked expedited without them is processed as standard. Scheduling convenience, travel plans or a "
            "patient's wish for an earlier date are not clinical reasons; requests marked expedited without clinical "
            "urgency are tracked and reported to the provider's network manager.")),
        ManualChapter(2, "Retro authorization", (rules.retro_rule_text(),)),
        ManualChapter(3, "Claims", (
            f"Timely filing limit: {rules.claim_filing_days} days from the date of service.",
            f"Proof of timely filing: the clearinghouse acknowledgement (277CA) showing {payer.name} accepted the "
            "claim within the limit, with its payer claim control number. A claim rejected at the front end was "
            "never received: its rejection report does not establish a filing date.",
            f"Corrected claims: {rules.corrected_claim_days} days from the original remittance.")),
        ManualChapter(4, "Authorization-absent denials (CO-197)", _authorization_absent_text(payer)),
        ManualChapter(5, "Appeals", (
            f"Level 1 appeals within {payer.timely_appeal_days} days of the remittance; decisions within "
            f"{rules.appeal_review_days} days, external review within {common.external_review_days} days.",
            f"Each later level is filed within {payer.timely_appeal_days} days of the decision it appeals: a level 2 "
            "after an upheld level 1, then, for a medical necessity denial, an external review by an independent "
            "review organization (a clinical appeal at the External review level) after an upheld level 2.",
            "Reconsiderations of authorization-absent (CO-197) and timely filing (CO-29) denials are decided at filing."
            if rules.immediate_reconsideration else "Reconsiderations are reviewed by the appeals unit.",
            _appeal_decision_text(payer))),
        ManualChapter(6, "Work-related and accident injuries", (
            f"{payer.name} does not pay for an injury or illness that a workers' compensation carrier (CARC 19) or a "
            "liability or auto carrier (CARC 20) must cover. A claim billed as related to employment or an accident, or "
            "whose diagnoses show such an injury, is denied for the other carrier until the provider shows otherwise.",
            "Bill the workers' compensation or liability carrier for these services, under its claim number; do not "
            f"appeal or resubmit them to {payer.name}.",
            "When the injury did not happen at work or in an accident another party is liable for, or that carrier has "
            "denied the claim, ask for a level 1 reconsideration within the appeal window, with the record that shows "
            "it: the visit or intake note stating how and where the injury happened, or the carrier's denial letter. "
            "The claim is then reprocessed under the member's benefits.")),
        ManualChapter(7, "Provider enrollment", (
            f"Each clinician who renders services is enrolled with {payer.name} before its claims are paid; the group's "
            "enrollment does not cover a clinician who has not been credentialed. The Provider Network lookup gives a "
            "clinician's status, the day we logged the complete application, and the participation date in our "
            "directory, which is the day the credentialing committee loaded the record (the date the welcome letter "
            "states).",
            "Participation is effective from the day we received the complete application. A claim for a service "
            "rendered from that day to the directory date is denied B7 on first submission; ask for a level 1 "
            "reconsideration within the appeal window with the welcome letter, and it is paid.",
            "A service rendered before we received the complete application is not payable for that clinician, and no "
            "appeal changes that. Do not rebill it under another clinician's NPI: the claim must name the clinician "
            "who rendered the service.")),
        ManualChapter(8, "Network access and exceptions", (
            f"Members of {payer.name}'s HMO and EPO plans are covered for services from in-network providers only, "
            "except emergencies. A service from an out-of-network provider or facility is covered only with a network "
            "exception (gap exception) approved before the service.",
            f"Access standard for specialist care and advanced imaging: an in-network provider of the service within "
            f"{ACCESS_MILES} miles of the member's home (straight-line, as the Provider Network's facility search measures "
            f"it) with an appointment within {ACCESS_DAYS} calendar days of the request. A network exception is granted "
            "only when no in-network provider meets both; an in-network provider farther away or booked later does not "
            "meet it.",
            "Request the exception with the prior authorization request for the out-of-network servicing provider: give "
            "its reason and list the in-network providers of the service you checked (name, miles, next available "
            "appointment). Search by the service, not by the out-of-network provider's name: a group's other locations "
            "may be in network under their own name and NPI.",
            "When an in-network provider meets the standard, no exception is granted: do not request the service from "
            "the out-of-network provider; the ordering provider redirects the order to the in-network provider.")),
        ManualChapter(9, "Diagnosis coverage of laboratory and vascular tests (CO-167, CO-11)",
                      _diagnosis_coverage_text(payer)),
        ManualChapter(10, "Contacting us", (
            f"Provider services {phone_text(payer.phone)}; prior authorization fax {phone_text(payer.pa_fax)}; appeals "
            f"fax {phone_text(payer.appeals_fax)}. Payer ID {payer.payer_code}.",)),
    ]
