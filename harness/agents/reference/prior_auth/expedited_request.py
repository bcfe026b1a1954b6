"""Reference solution of template prior_auth/expedited_request: a prior authorization at a portal A
payer filed for the review timeframe its provider manual allows. Expedited only when the ordering
physician's note documents clinical urgency (its `clinical_urgency` fact starts "urgent"), with that
physician attesting and the note's clinical reason; otherwise standard, whatever the order's priority
or the patient's plans. The approval is recorded on the order, the item closed, and the order comment
says which review was requested, why, and when the decision was due.
"""
from __future__ import annotations

from admindesk.harness.agents.reference import ehr_steps, portal_a
from admindesk.harness.agents.reference.prior_auth.portal_a_submit import (
    chart_facts,
    download_document,
    find_active_coverage,
)
from admindesk.harness.agents.reference.work import Work

MANUAL_CHAPTER = "Utilization management"


def urgency_reason(facts: dict) -> str | None:
    """The clinical reason the physician documents for urgency, or None for a routine service."""
    stated = str(facts.get("clinical_urgency") or "routine")
    if not stated.lower().startswith("urgent"):
        return None
    return stated.split(" ", 1)[1].lstrip("-:; ").strip()


def clinical_summary(work: Work, facts: dict) -> str:
    """The general questionnaire's summary: the order and the physician's own words."""
    n = work.notes
    findings = "; ".join(str(facts[key]) for key in ("imaging_findings", "clinical_urgency") if facts.get(key))
    return (f"{n['code']} for {n['diagnoses']}, ordered by {n['provider']}. Per the attached note: {findings}.")[:1000]


def closing_comment(work: Work, decision: dict[str, str], reason: str | None, due: str) -> str:
    n = work.notes
    payer = portal_a.payer_name(n["payer_id"])
    if reason:
        review = (f"Filed for expedited review (decision due within 72 hours, by {due}), urgency attested by "
                  f"{n['provider']}: {reason}.")
    else:
        review = (f"Filed for standard review (decision due within 7 calendar days, by {due}): the ordering "
                  f"physician's note documents no clinical urgency; the order's priority ({n['priority']}) and the "
                  "patient's scheduling wishes are not clinical reasons under the payer's expedited review rule.")
    return (f"Prior authorization approved by {payer} via Payer Portal A: auth {decision['auth_number']}, case "
            f"{decision['case_number']}, {decision['units']} unit(s) of {n['code']} approved {decision['start']} to "
            f"{decision['end']}. {review} Sent: {n['attached']}. Eligibility active, member {n['member_id']}.")


def solve(work: Work) -> None:
    """The template's subtasks in order; each one's actions under `work.doing`."""
    attachments: list[tuple[str, str]] = []
    if work.doing("review_order"):
        ehr_steps.open_chart(work)
        ehr_steps.open_order(work)
        work.notes["priority"] = work.actor.fact("Priority")
        attachments = [(download_document(work, "visit"), "Clinical notes")]
        work.notes["attached"] = ", ".join(name for name, _ in attachments)
    if work.doing("verify_eligibility"):
        find_active_coverage(work)
    facts, _ = chart_facts(work)
    reason = urgency_reason(facts)
    decision: dict[str, str] = {}
    if work.doing("submit_request"):
        portal_a.manual_chapter(work, work.need("payer_id"), MANUAL_CHAPTER)
        decision = portal_a.submit_prior_auth(
            work, payer_id=work.need("payer_id"), member_id=work.need("member_id"),
            answers={"clinical_summary": clinical_summary(work, facts)}, attachments=attachments,
            expedited=(work.need("provider"), reason) if reason else None)
        work.notes.update(case_number=decision["case_number"], due=work.actor.fact("Decision due"))
        portal_a.require_approval(work, decision)
    if work.doing("record_decision"):
        work.need("case_number")
        portal_a.record_decision(work, decision)
    if work.doing("close_item"):
        work.need("recorded")
        ehr_steps.back_to_order(work)
        ehr_steps.add_order_comment(work, closing_comment(work, decision, reason, work.need("due")))
        ehr_steps.set_work_item(work, "Auth Obtained")
    review = "expedited" if reason else "standard"
    work.finish(f"Filed for {review} review and approved by {portal_a.payer_name(work.need('payer_id'))}: "
                f"authorization {decision.get('auth_number', 'none')} (case {decision.get('case_number', 'none')}) "
                f"recorded on order {work.need('order_id')}.")
